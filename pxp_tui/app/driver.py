"""Driving a run from the app: ``runs.execute`` with a live expert, its events posted as Textual messages."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.message_pump import MessagePump

from pxp_tui.agents.live import LiveHuman
from pxp_tui.app.messages import HumanTurn, MessageRecorded, RunStopped, SessionEnded, SessionStarted
from pxp_tui.engine import AgentError, Message, ProtocolViolation, SessionRecord, Turn


class RunDriver:
    """The engine's observer and the expert's agent for one run, reporting to ``target``.

    ``drive`` runs (or resumes) the run to its end, and always finishes by posting one
    :class:`RunStopped`: ``done``; ``cancelled`` (the worker was cancelled: nothing pending was
    written); or ``failed`` with the cause (a model failure or a blackboard problem), never a traceback.
    """

    def __init__(self, board: Any, run_id: int, target: MessagePump, human_name: str = "expert") -> None:
        self.board = board
        self.run_id = run_id
        self.target = target
        self.human = LiveHuman(human_name, on_turn=self._human_turn)

    # -- the engine's Observer --------------------------------------------------------------------
    def session_started(self, session_id: int, instance: Any, order: int, total: int, history: tuple[Message, ...]) -> None:
        self.target.post_message(SessionStarted(session_id, instance, order, total, history))

    def message_recorded(self, message: Message) -> None:
        self.target.post_message(MessageRecorded(message))

    def session_ended(self, record: SessionRecord, kept: bool) -> None:
        self.target.post_message(SessionEnded(record))

    def _human_turn(self, turn: Turn) -> None:
        self.target.post_message(HumanTurn(turn))

    # -- running ----------------------------------------------------------------------------------
    async def drive(self) -> str:
        from pxp_tui.blackboard import BlackboardError
        from pxp_tui.common.redaction import redact
        from pxp_tui.runs.execute import execute

        try:
            await execute(self.board, self.run_id, human=self.human, observer=self)
        except asyncio.CancelledError:
            self.target.post_message(RunStopped("cancelled"))
            raise
        except AgentError as exc:
            self.target.post_message(RunStopped("failed", exc.cause, exc.retryable))
            return "failed"
        except (BlackboardError, ProtocolViolation, ValueError) as exc:
            self.target.post_message(RunStopped("failed", str(exc), retryable=False))
            return "failed"
        except Exception as exc:
            self.target.log.error(f"run {self.run_id} stopped", exc_info=exc)
            self.target.post_message(RunStopped("failed", redact(f"{type(exc).__name__}: {exc}")))
            return "failed"
        self.target.post_message(RunStopped("done"))
        return "done"
