"""The suite waits for conditions, never for a fixed time: a check over the tests' own source.

A fixed pause (a pause of a fixed number of seconds in Pilot, ``time.sleep(1)``) passes on an idle machine and fails on a
loaded one. Every wait in tests/ and pxp_harness/ is a bounded loop on a condition that names what it waited for when it
gives up (``app_helpers.wait_for``, ``waiting.poll``, ``Tmux.wait``). A sleep is allowed only where
:data:`ALLOWED` says why it is not a wait: the step of such a loop, or time a stand-in really takes (a
slow model, a slow server) or a trial chooses (a kill at a random moment).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
HARNESS = TESTS.parent / "pxp_harness"

#: (file, function, the call's argument) -> why that sleep (or pause) is not a fixed wait
ALLOWED = {
    ("waiting.py", "poll", "step"): "the step of a bounded loop on a condition",
    ("waiting.py", "async_poll", "step"): "the step of a bounded loop on a condition",
    ("terminal.py", "Tmux.keys", "KEY_GAP"): "keys typed apart, as a person types: escape then a key at once reads as alt+key",
    ("stub.py", "_handler.Handler.do_POST", "injected.delay"): "a slow server: the delay a test asked the stub for",
    ("stub.py", "_handler.Handler.do_POST", "injected.trickle"): "a server that trickles its reply, as a test asked",
    ("test_turn_latency.py", "fixed_answer_time.timed", "ms / 1000"): "a model that really takes the time it reports",
    ("test_machine_calls.py", "Timed.__call__", "DELAY"): "a model a round trip away: each answer takes DELAY",
    ("crash_scenarios.py", "headless_trial", "delay"): "a kill at a random moment after a session line: the trial's choice",
    ("crash_scenarios.py", "app_trial", "delay"): "a kill at a random moment after the expert's send: the trial's choice",
    ("test_graphics_probe.py", "in_terminal", "late"): "a slow terminal: the time it takes to answer, as a test asked",
}


def timed_calls(source: str) -> list[tuple[int, str, str, str]]:
    """(line, function, argument, call) of each call in ``source`` that waits a time it is given: Pilot's
    ``pause(seconds)`` and ``press("wait:ms")``, ``time.sleep`` and ``asyncio.sleep`` (``sleep(0)`` only
    yields, ``pause()`` waits for the app's pending messages: neither is one)."""
    found: list[tuple[int, str, str, str]] = []

    def timed(call: ast.Call) -> str | None:
        func = call.func
        attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        args = [*call.args, *(k.value for k in call.keywords)]
        if (
            attr == "pause"
            and isinstance(func, ast.Attribute)
            and any(not (isinstance(a, ast.Constant) and a.value is None) for a in args)
        ):
            return "pause(<seconds>)"
        if attr == "sleep" and not (len(args) == 1 and isinstance(args[0], ast.Constant) and args[0].value == 0):
            return "sleep(<seconds>)"
        if attr == "press" and any(isinstance(a, ast.Constant) and str(a.value).startswith("wait:") for a in args):
            return 'press("wait:<ms>")'
        return None

    def visit(node: ast.AST, where: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inside = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inside = (*where, child.name)
            if isinstance(child, ast.Call) and (what := timed(child)):
                argument = ast.unparse(child.args[0]) if child.args else ""
                found.append((child.lineno, ".".join(where) or "<module>", argument, what))
            visit(child, inside)

    visit(ast.parse(source), ())
    return found


def fixed_waits(source: str, name: str) -> list[tuple[int, str, str]]:
    """(line, function, call) of each fixed wait in ``source`` (the file ``name``): a timed call not in :data:`ALLOWED`."""
    return [
        (line, function, what)
        for line, function, argument, what in timed_calls(source)
        if (name, function, argument) not in ALLOWED
    ]


def sources() -> list[Path]:
    return [p for folder in (TESTS, HARNESS) for p in folder.rglob("*.py") if "__snapshots__" not in p.parts]


def test_no_test_waits_a_fixed_time() -> None:
    found = [
        f"{p.relative_to(TESTS.parent)}:{line} in {function}: {what}"
        for p in sources()
        for line, function, what in fixed_waits(p.read_text(), p.name)
    ]
    assert not found, (
        "a test waits a fixed time; wait for the state it needs instead (app_helpers.wait_for, waiting.poll), "
        "or add the place to ALLOWED with why it is not a wait:\n" + "\n".join(found)
    )


def test_every_allowed_sleep_is_still_there() -> None:
    """An entry of ALLOWED that matches nothing (the function renamed or moved) would allow a fixed wait added later."""
    seen = {(p.name, function, argument) for p in sources() for _, function, argument, _ in timed_calls(p.read_text())}
    assert set(ALLOWED) <= seen, set(ALLOWED) - seen


#: the checker's sample call, spelled apart so that a search of the tests for fixed pauses does not find its inputs
PAUSE = "await pilot." + "pause"


@pytest.mark.parametrize(
    ("source", "what"),
    [
        (f"async def t(pilot):\n    {PAUSE}(0.3)\n", "pause(<seconds>)"),
        (f"async def t(pilot):\n    {PAUSE}(delay=DELAY)\n", "pause(<seconds>)"),
        ("import time\ndef t():\n    time.sleep(0.5)\n", "sleep(<seconds>)"),
        ("from time import sleep\ndef t():\n    sleep(1)\n", "sleep(<seconds>)"),
        ("import asyncio\nasync def t():\n    await asyncio.sleep(DELAY / 4)\n", "sleep(<seconds>)"),
        ("async def t(pilot):\n    await pilot.press('1', 'wait:300', 'ctrl+s')\n", 'press("wait:<ms>")'),
        (f"async def wait_for_async(pilot, condition):\n    {PAUSE}(STEP)\n", "pause(<seconds>)"),  # no step
    ],
)
def test_the_check_finds_a_fixed_wait(source: str, what: str) -> None:
    name = "app_helpers.py" if "wait_for" in source else "test_x.py"
    assert [w for _, _, w in fixed_waits(source, name)] == [what]


@pytest.mark.parametrize(
    "source",
    [
        "async def t(pilot):\n    await pilot.pause()\n",  # waits for the app's pending messages
        "import asyncio\nasync def t():\n    await asyncio.sleep(0)\n",  # yields to the loop once
    ],
)
def test_the_check_leaves_waits_on_conditions_alone(source: str) -> None:
    name = "app_helpers.py" if "wait_for" in source else "test_x.py"
    assert fixed_waits(source, name) == []
