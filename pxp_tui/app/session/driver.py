"""Driving a run from the app: ``runs.execute`` with a live expert, its events posted as Textual messages."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.message_pump import MessagePump

from pxp_tui.agents.live import LiveHuman
from pxp_tui.app.session.messages import HumanTurn, MessageRecorded, RunStopped, SessionEnded, SessionStarted, StopOutcome
from pxp_tui.common.instance import Instance
from pxp_tui.engine import AgentError, Message, Observer, ProtocolViolationError, SessionRecord, Turn
from pxp_tui.protocol import StopReason


class RunDriver(Observer):
    """The engine's observer and the expert's agent for one run, reporting to ``target``.

    ``drive`` runs (or resumes) the run to its end, and always finishes by posting one
    :class:`RunStopped`: done; cancelled (the worker was cancelled: nothing pending was
    written); or failed with the cause (a model failure or a blackboard problem), never a traceback.
    """

    def __init__(self, board: Any, run_id: int, target: MessagePump, human_name: str = "expert") -> None:
        self.board = board
        self.run_id = run_id
        self.target = target
        self.human = LiveHuman(human_name, on_turn=self._human_turn)

    # -- the engine's Observer --------------------------------------------------------------------
    def session_started(self, session_id: int, instance: Instance, order: int, total: int, history: tuple[Message, ...]) -> None:
        self.target.post_message(SessionStarted(session_id, instance, order, total, history))

    def message_recorded(self, message: Message, stop: StopReason | None) -> None:
        self.target.post_message(MessageRecorded(message, stop))

    def session_ended(self, record: SessionRecord, kept: bool) -> None:
        self.target.post_message(SessionEnded(record))

    def _human_turn(self, turn: Turn) -> None:
        self.target.post_message(HumanTurn(turn))

    # -- running ----------------------------------------------------------------------------------
    async def drive(self) -> StopOutcome:
        from pxp_tui.blackboard import BlackboardError
        from pxp_tui.common.redaction import redact
        from pxp_tui.runs.execute import execute

        try:
            await execute(self.board, self.run_id, human=self.human, observer=self)
        except asyncio.CancelledError:
            self.target.post_message(RunStopped(StopOutcome.CANCELLED))
            raise
        except AgentError as exc:
            self.target.post_message(RunStopped(StopOutcome.FAILED, exc.cause, exc.retryable))
            return StopOutcome.FAILED
        except (BlackboardError, ProtocolViolationError, ValueError) as exc:
            self.target.post_message(RunStopped(StopOutcome.FAILED, str(exc), retryable=False))
            return StopOutcome.FAILED
        except Exception as exc:
            self.target.log.error(f"run {self.run_id} stopped", exc_info=exc)
            self.target.post_message(RunStopped(StopOutcome.FAILED, redact(f"{type(exc).__name__}: {exc}")))
            return StopOutcome.FAILED
        self.target.post_message(RunStopped(StopOutcome.DONE))
        return StopOutcome.DONE
