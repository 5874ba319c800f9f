"""``e``: export the run on screen as files a person opens (the summary and the review's screens).

The run's readable tables (``pxp export --run ID --format xlsx``: runs, sessions, one flat row per
message, instances) go to ``export/run-ID/`` beside the blackboard; a notification says where, and
the command for the other formats. xlsx because a spreadsheet opens it as it is, and a text cell in it
stays text (a model's explanation beginning with ``=`` is not run as a formula).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.binding import Binding
from textual.widget import Widget

FORMAT = "xlsx"


def export_binding(prefix: str) -> Binding:
    return Binding("e", "export_run", "Export run", id=f"{prefix}.export", tooltip="Write this run's tables as spreadsheets")


def folder(db_path: Path, run_id: int) -> Path:
    """Where run ``run_id`` of ``db_path`` is exported: ``export/run-ID`` beside the blackboard."""
    return db_path.resolve().parent / "export" / f"run-{run_id}"


def shown(path: Path) -> str:
    """``path`` as the user knows it: relative to the working folder when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _export(board: Any, run_id: int, out: Path) -> list[Any]:
    from pxp_tui.blackboard import export

    return export.export(board, FORMAT, out, runs=[run_id])


async def export_run(widget: Widget, read: Callable[..., Awaitable[Any]], db_path: Path, run_id: int) -> Path | None:
    """Export run ``run_id`` through ``read`` (a reader's ``read(function, *args)``); notify where it went."""
    from pxp_tui.blackboard import BlackboardError
    from pxp_tui.common.files import describe

    out = folder(db_path, run_id)
    try:
        done = await read(_export, run_id, out)
    except BlackboardError as exc:
        widget.notify(f"Run {run_id} was not exported: {exc}", severity="error", markup=False)
        return None
    except OSError as exc:
        widget.notify(f"Run {run_id} was not exported to {out}: {describe(exc)}", severity="error", markup=False)
        return None
    messages = next((d.rows for d in done if d.name == "messages"), 0)
    other = shlex.join(["pxp", "export", "--run", str(run_id), "--format", "csv", "--db", str(db_path)])
    widget.notify(
        f"Run {run_id} exported ({messages} messages) to {shown(out)}: {', '.join(d.path.name for d in done if d.path)}.\n"
        f"Other formats: {other}",
        title="Exported",
        markup=False,
        timeout=12,
    )
    return out


class ExportsRun:
    """A screen's ``e``: export the run it shows (:meth:`export_target` says which, and how to read it)."""

    def export_target(self) -> tuple[Callable[..., Awaitable[Any]], Path, int] | None:
        """The reader's ``read``, the blackboard's path and the run; None while there is none."""
        raise NotImplementedError

    def action_export_run(self) -> None:
        assert isinstance(self, Widget)
        target = self.export_target()
        if target is not None:
            self.run_worker(export_run(self, *target), group="export", exclusive=True)
