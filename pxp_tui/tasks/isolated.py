"""Calls run in a worker process, so that a crash or a runaway in native code cannot take the caller down.

A library written in C++ (RDKit) can die on an input (a stack overflow is a SIGSEGV, not an exception)
or run for minutes, and a thread cannot be stopped. :class:`Worker` keeps one Python process that
imports the functions it is asked to call (``"package.module:function"``) and answers one call at a
time over pipes. A call that takes longer than its time limit has the worker killed; a worker that
dies is started again at the next call; either way the caller gets :class:`IsolatedError` saying what
happened, in one line. The worker runs in its own session (no terminal, no terminal signals), with
its memory bounded, and ends when its caller does (its input closes).

A round trip costs about 0.1 ms beside the call itself (benchmarks/isolated_calls.py).

``python -m pxp_tui.tasks.isolated`` is the worker's side.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from importlib import import_module
from pathlib import Path
from typing import Any

#: seconds a worker has to start (import its modules) before it is given up
START_TIMEOUT = 60.0
#: the worker's address space (bytes): an allocation beyond it fails as MemoryError in the worker
MEMORY_LIMIT = 4 * 1024**3

#: set in a worker's environment: code running there is isolated already (see :func:`inside`)
INSIDE = "PXP_ISOLATED_WORKER"

_HEADER = struct.Struct("!I")
_READY = "ready"


def inside() -> bool:
    """Whether this process is a worker (whose calls need no worker of their own)."""
    return os.environ.get(INSIDE) == "1"


class IsolatedError(RuntimeError):
    """A call in the worker did not return: it crashed, ran past its time limit, or raised."""


class WorkerUnavailableError(IsolatedError):
    """No worker process could be started (the caller may do the work itself)."""


class Worker:
    """One worker process for calls to ``"module:function"``; thread-safe (calls take turns).

    ``preload`` is imported by the worker as it starts, so that the first call does not pay for it.
    """

    def __init__(self, preload: tuple[str, ...] = (), timeout: float = 5.0, name: str = "worker") -> None:
        self.preload = preload
        self.timeout = timeout
        self.name = name
        self._process: subprocess.Popen[bytes] | None = None
        self._ready = False  # it has said it has imported ``preload``
        self._lock = threading.Lock()
        if hasattr(os, "register_at_fork"):  # a forked child starts a worker of its own; the parent's is the parent's
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._process = None
        self._ready = False
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the worker now, without waiting for it: it imports ``preload`` while the caller goes on
        (otherwise it is started at the first call). The first call waits until it is ready."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._spawn()

    def call(self, function: str, *args: Any, timeout: float | None = None) -> Any:
        """``function(*args)`` in the worker; :class:`IsolatedError` if it crashes, raises or runs past ``timeout`` s."""
        limit = self.timeout if timeout is None else timeout
        with self._lock:
            process = self._ensure()
            try:
                _send(process, (function, args))
                ok, value = _receive(process, limit)
            except _DeadError as dead:
                self._stop()
                raise IsolatedError(dead.reason) from None
            except _TimedOutError:
                self._stop()
                raise IsolatedError(f"gave no answer within {limit:g} s (stopped)") from None
        if not ok:
            raise IsolatedError(value)
        return value

    def close(self) -> None:
        with self._lock:
            self._stop()

    # -- the process ------------------------------------------------------------------------------
    def _ensure(self) -> subprocess.Popen[bytes]:
        """The worker, started if need be, once it is ready."""
        if self._process is None or self._process.poll() is not None:
            self._spawn()
        assert self._process is not None
        if not self._ready:
            try:
                ok, value = _receive(self._process, START_TIMEOUT)
            except (_DeadError, _TimedOutError) as exc:
                self._stop()
                reason = exc.reason if isinstance(exc, _DeadError) else f"did not start within {START_TIMEOUT:g} s"
                raise WorkerUnavailableError(f"the {self.name} {reason}") from None
            if not ok or value != _READY:
                self._stop()
                raise WorkerUnavailableError(f"the {self.name} could not start: {value}")
            self._ready = True
        return self._process

    def _spawn(self) -> None:
        self._stop()
        root = str(Path(__file__).resolve().parents[2])  # this package's, whether installed or not
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, *self.preload],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": path, INSIDE: "1"},
                start_new_session=True,  # no terminal: its signals (^C, a closed window) are the caller's to handle
            )
        except OSError as exc:
            raise WorkerUnavailableError(f"the {self.name} could not start: {exc.strerror or exc}") from None
        self._ready = False

    def _stop(self) -> None:
        if self._process is not None:
            _kill(self._process)
            self._process = None
            self._ready = False


class _DeadError(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


class _TimedOutError(Exception):
    pass


def _send(process: subprocess.Popen[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    assert process.stdin is not None
    try:
        process.stdin.write(_HEADER.pack(len(data)) + data)
        process.stdin.flush()
    except (BrokenPipeError, OSError):
        raise _DeadError(_death(process)) from None


def _receive(process: subprocess.Popen[bytes], timeout: float) -> tuple[bool, Any]:
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    header = _read(process, fd, _HEADER.size, deadline)
    (size,) = _HEADER.unpack(header)
    result: tuple[bool, Any] = pickle.loads(_read(process, fd, size, deadline))
    return result


def _read(process: subprocess.Popen[bytes], fd: int, size: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    while size:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise _TimedOutError
        chunk = os.read(fd, size)
        if not chunk:
            raise _DeadError(_death(process))
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _death(process: subprocess.Popen[bytes]) -> str:
    """What became of a worker whose pipe closed."""
    try:
        code = process.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        _kill(process)
        return "stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"crashed ({name})"
    return f"ended (exit code {code})"


def _kill(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):  # a killed process that does not end: nothing more to do
        process.wait(timeout=5.0)


# -- the worker's side ----------------------------------------------------------------------------
def _serve(preload: list[str]) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):  # pragma: no cover - no such limit on this platform
        pass
    inbox, outbox = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers

    def answer(ok: bool, value: Any) -> None:
        data = pickle.dumps((ok, value), protocol=pickle.HIGHEST_PROTOCOL)
        outbox.write(_HEADER.pack(len(data)) + data)
        outbox.flush()

    try:
        for module in preload:
            import_module(module)
    except Exception as exc:  # noqa: BLE001 - told to the caller
        answer(False, f"{type(exc).__name__}: {exc}")
        return
    answer(True, _READY)
    while True:
        header = inbox.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return  # the caller has gone
        (size,) = _HEADER.unpack(header)
        function, args = pickle.loads(inbox.read(size))
        try:
            module, _, name = function.partition(":")
            value = getattr(import_module(module), name)(*args)
        except MemoryError:
            answer(False, f"ran out of memory (over {MEMORY_LIMIT // 1024**3} GB)")
            continue
        except Exception as exc:  # noqa: BLE001 - told to the caller
            answer(False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            continue
        answer(True, value)


if __name__ == "__main__":
    _serve(sys.argv[1:])
