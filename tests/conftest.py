"""What every tier shares: the real cases of ../shared/data/interact and the papers (skipped where absent, failing
under CI), blackboards, the test environment. The tests live in three folders by what they need in the test
process: tests/pure (neither pxp's app nor its agents nor litellm), tests/app (Pilot, snapshots, the agents) and
tests/real (real terminals, the browser, kill -9); each tier's conftest.py adds what its tests need."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# The apps run in the tests' process (Pilot, snapshots) draw in 24-bit colours whatever terminal runs pytest: with
# TERM=xterm and no COLORTERM, Rich would report 16 colours and the theme would give way to its calm 16-colour one
# (tests/app/test_app_look.py tests that one on purpose).
os.environ["TEXTUAL_COLOR_SYSTEM"] = "truecolor"
if "textual.constants" in sys.modules:  # a plugin (pytest-textual-snapshot) imported Textual before this file
    sys.modules["textual.constants"].COLOR_SYSTEM = "truecolor"

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("PXP_SHARED_DATA", ROOT.parent / "shared" / "data" / "interact"))
SHARED_PAPERS = ROOT.parent / "shared" / "papers"


def shared(path: Path, what: str) -> Path:
    """``path`` (beside the checkout, in ../shared), or the test skips, saying so; under CI (``CI`` set, as .ci/run
    runs) it fails instead: CI has ../shared, so a test that cannot find it is broken, not skipped."""
    if path.is_dir():
        return path
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"{what} not found at {path}, and CI is set: CI has ../shared beside the checkout", pytrace=False)
    pytest.skip(f"{what} not found at {path}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the ``slow`` tests first, and among them the real tier's (tests/real: the browsers and
    terminals, the longest of all), and the pure tier's last (tests/pure: the shortest): the workers share the long
    ones out from the start, and the short ones fill the end, instead of one worker finishing a long test alone at
    the end while the other has nothing left."""
    if hasattr(config, "workerinput"):
        # stable: file order otherwise
        items.sort(
            key=lambda item: (
                item.get_closest_marker("slow") is None,
                item.path.parent.name != "real",
                item.path.parent.name == "pure",
            )
        )


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Before the first test module that uses Hypothesis is imported (so that its ``@settings`` inherit it), the
    profile of this suite: no deadline and no too-slow health check, both measures of the wall clock, which moves
    with what else runs on the machine (a test asserts behaviour, never time). Other modules never import Hypothesis."""
    if isinstance(collector, pytest.Module) and "hypothesis" not in sys.modules and b"hypothesis" in collector.path.read_bytes():
        from hypothesis import HealthCheck, settings

        settings.register_profile("pxp", deadline=None, suppress_health_check=[HealthCheck.too_slow])
        settings.load_profile("pxp")


def freeze_what_every_test_keeps(*, with_litellm: bool) -> None:
    """Leave out of the garbage collector's full passes what every test of this process keeps: the modules
    collection imported (Textual, the app, RDKit...) and, for the tiers whose tests call a model, litellm, which the
    first run in a process imports. Each full pass walked all of them again (half a million objects, about 15 % of a
    Pilot test's CPU). Called by the conftest of the app and real tiers (tests/app, tests/real) once their tests are
    collected; the pure tier (tests/pure) imports neither litellm nor Textual's app and runs alone in a second or two."""
    import gc

    if with_litellm:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as _offline_env: no fetch over the network
        import litellm  # noqa: F401  # what the offline machine imports at the first run, in any case

    gc.collect()
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    """A failed test that started ``pxp serve`` reports what the server and its apps wrote on stderr: a browser's
    timeout says nothing of why the server did not answer."""
    report = yield
    served = sys.modules.get("pxp_harness.browser")
    if served is not None and report.failed:
        for log in served.SERVED_LOGS:
            if log.exists():
                report.sections.append((f"pxp serve's stderr ({log.name})", log.read_text(errors="replace")[-6000:]))
    if served is not None and call.when == "teardown":
        served.SERVED_LOGS.clear()
    return report


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No simulated latency, no retry waits and no X-ray opened full-screen by itself unless a test asks for them; settings (the theme) and the cache (pictures
    opened outside) in a temporary dir."""
    monkeypatch.setenv("PXP_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PXP_OFFLINE_LATENCY", "0")
    monkeypatch.setenv("PXP_RETRY_DELAY", "0")
    # a small X-ray stays in the session pane (tests/app/test_app_picture_tools.py tests it opening full-screen)
    monkeypatch.setenv("PXP_FULL_SCREEN", "never")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def shared_data() -> Path:
    """The papers' published data; tests that need it skip where it is absent (fail under CI)."""
    return shared(SHARED_DATA, "real cases")


@pytest.fixture
def shared_papers() -> Path:
    """The papers' text; tests that need it skip where it is absent (fail under CI)."""
    return shared(SHARED_PAPERS, "the papers")


@pytest.fixture
def machine_gate(monkeypatch: pytest.MonkeyPatch):
    """The offline machine answers only while this gate is open (``close()``, ``open()``; open again at the end)."""
    from pxp_harness.app_helpers import MachineGate

    gate = MachineGate(monkeypatch)
    yield gate
    gate.open()  # a call still held ends now, not at the gate's patience


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


def pxp(*args: str, env: dict[str, str] | None = None, timeout: float = 300, cwd: Path | None = None):
    """Run the ``pxp`` command as a user would (a subprocess), returning the CompletedProcess."""
    import subprocess
    import sys

    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "pxp_tui", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=cwd,
    )


@pytest.fixture
def snap_compare(snap_compare, request: pytest.FixtureRequest, tmp_path: Path):
    """pytest-textual-snapshot's ``snap_compare``, failing with the rows that differ and both screens saved as SVG
    in the test's temporary folder (pxp_harness/svg_diff.py), not only in the report it writes at the end of the run."""
    from pxp_harness.svg_diff import explained

    return explained(snap_compare, request.node, tmp_path)
