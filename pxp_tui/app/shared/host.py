"""What the start and session screens ask of the app they run in (:class:`~pxp_tui.app.shell.pxp_app.PXPApp`).

A protocol, so that the screens name the app's services without importing the app's module (which
imports them): ``host(self.app).blackboard()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from pxp_tui.blackboard import Blackboard

T = TypeVar("T")


@runtime_checkable
class Host(Protocol):
    """The app's shared services: the blackboard (one writer, readers in threads), loading, the runs it drives."""

    async def painted(self) -> None:
        """Wait for the first frame."""

    async def loaded(self) -> None:
        """Wait until the tasks, the run wiring and the drawing code are loaded (litellm loads on its own)."""

    def expect_model(self, model: str | None) -> None:
        """A model may be called soon: litellm starts loading if it is not the offline baseline."""

    async def blackboard(self) -> Blackboard:
        """The writer's blackboard, opened (and migrated) on first use."""

    async def read_board(self, read: Callable[..., T], *args: Any) -> T:
        """``read(board, *args)`` in a thread, on a read-only connection of its own."""

    async def stop_engines(self, reason: str | None = None) -> None:
        """Pause every run the app drives."""

    def open_run(self, run_id: int) -> None:
        """Show run ``run_id``'s session screen."""

    def action_open_review(self) -> None:
        """Open the review of past runs."""


def host(app: object) -> Host:
    """``app`` as the :class:`Host` the screens need; TypeError if it is another app."""
    if not isinstance(app, Host):
        raise TypeError(f"{type(app).__name__} is not a pxp app (the start and session screens run in PXPApp)")
    return app
