"""The terminal watcher names the fatal error even when Python writes its report's first line in pieces
(``Fatal Python error: `` then ``Segmentation fault``): it said "ended abruptly ()" when it read the first
piece alone."""

from __future__ import annotations

import os
import threading

import pytest

from pxp_tui.app.shell import terminal_guard


def test_a_report_written_in_pieces_is_named_whole(tmp_path, monkeypatch: pytest.MonkeyPatch, capfd) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    read, write = os.pipe()
    first_read = threading.Event()
    real = terminal_guard._read

    def watched(pipe: int, first: int | None = None) -> bytes:
        got = real(pipe, first)
        first_read.set()  # the watcher has read the first piece: the rest comes after it
        return got

    monkeypatch.setattr(terminal_guard, "_read", watched)

    def dying() -> None:
        os.write(write, b"Fatal Python error: ")
        first_read.wait(10)
        os.write(write, b"Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n")
        os.close(write)

    writer = threading.Thread(target=dying)
    writer.start()
    terminal_guard.watch(read, "None", "")
    writer.join()
    err = capfd.readouterr().err
    assert "pxp: ended abruptly (Segmentation fault); the terminal is restored." in err
    assert "Current thread" in (tmp_path / "pxp-tui" / "last-crash.txt").read_text()
