"""Controlled experiments: the LEARN gate and machine performance measured during a run.

- LEARN gate (``--learn-gate``): after each session, the machine is measured on the validation
  split with that session added to its context; the context is kept only if validation accuracy
  does not drop below that of the context kept so far (measured at the start of the run).
- Test measurement (``--evaluate``): prediction accuracy, explanation agreement and both, on the
  test split, at the start, after every kept session, and at the end.

Every measurement is committed to the blackboard (``evaluations``, ``evaluation_items``) before
the run goes on, so an interrupted run resumes without measuring anything twice; a session whose
after-session step did not finish is settled first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from pxp_tui.agents.machine import MachineAgent
from pxp_tui.blackboard import Blackboard, BlackboardError
from pxp_tui.blackboard import evaluations as stored
from pxp_tui.blackboard.records import Run
from pxp_tui.common.instance import Instance
from pxp_tui.engine import ContextPolicy, RunProgress, RunStatus, SessionRecord, describe_error
from pxp_tui.engine.context import CarriedContext
from pxp_tui.runs.measure import measure

OnMeasurement = Callable[[dict[str, Any]], None]


def check_held_out(board: Blackboard, dataset: str, split: str, *, learn_gate: bool, evaluate: bool, context: str) -> None:
    """A one-line reason why these options cannot run on ``dataset``, as a BlackboardError."""
    needed = [("val", "--learn-gate")] if learn_gate else []
    needed += [("test", "--evaluate")] if evaluate else []
    for held_out, option in needed:
        if split == held_out:
            raise BlackboardError(f"{option} measures on the {held_out} split, so the sessions cannot run on it")
        if not board.instance_ids(dataset, held_out):
            raise BlackboardError(
                f"{option} needs a {held_out} split, and dataset {dataset!r} has none "
                "(import one with `pxp import ... --split`, or use --seeded-split)"
            )
    if learn_gate and ContextPolicy.parse(context).keep == 0:
        raise BlackboardError("--learn-gate decides which sessions the context keeps, so it needs --context all or last:N")


class Learn:
    """The after-session hook of a run (the engine's ``gate``) and its start and end measurements."""

    def __init__(
        self,
        board: Blackboard,
        run: Run,
        machine: MachineAgent,
        *,
        learn_gate: bool,
        evaluate: bool,
        report: OnMeasurement | None = None,
    ) -> None:
        self.board = board
        self.run_id = run.id
        self.policy = ContextPolicy.parse(run.config.context)
        self.machine = machine
        self.learn_gate = learn_gate
        self.evaluate = evaluate
        self.report = report
        self.summary = {"model": run.config.model, "checker": run.config.checker}
        dataset = run.config.dataset
        assert dataset is not None  # a stored run's is named (runs.create)
        self.held_out = {
            split: board.instances(board.instance_ids(dataset, split))
            for split, wanted in (("val", learn_gate), ("test", evaluate))
            if wanted
        }

    async def _measure(
        self,
        phase: str,
        split: str,
        context: Sequence[SessionRecord],
        sessions: int,
        session_id: int | None = None,
        *,
        gate: bool = False,
    ) -> dict[str, Any]:
        """One measurement, taken once (a resumed run finds it stored); with ``gate``, the LEARN decision."""
        found = stored.find(self.board, self.run_id, phase, split, session_id)
        if found is not None:
            return found
        reference = stored.baseline(self.board, self.run_id) if gate else None
        items = await measure(self.machine, self.held_out[split], context)
        kept = None
        if gate:  # the same instances as the reference: compare counts
            kept = reference is None or sum(bool(i["correct"]) for i in items) >= reference["correct"]
        row = stored.record(
            self.board, self.run_id, phase, split, items, session_id=session_id, kept=kept,
            sessions=sessions, context_sessions=len(context), **self.summary,
        )  # fmt: skip
        if self.report is not None:
            self.report(row)
        return row

    def _with(self, prior: Sequence[SessionRecord], record: SessionRecord) -> Sequence[SessionRecord]:
        return CarriedContext(self.policy, [*prior, record]).view()

    async def before(self, instances: Sequence[Instance], progress: RunProgress) -> RunProgress:
        """Settle an interrupted after-session step, measure the starting context; the run's progress."""
        async with self._pausing():
            if stored.ungated(self.board, self.run_id):
                await self.settle(progress.done, progress.kept)
                progress = self.board.progress(self.run_id, instances)
            if not progress.done and progress.open_session is None:
                if self.learn_gate:
                    await self._measure("start", "val", (), 0)
                if self.evaluate:
                    await self._measure("start", "test", (), 0)
        return progress

    async def after(self, instances: Sequence[Instance]) -> None:
        """Measure the context the run ends with."""
        if not self.evaluate:
            return
        async with self._pausing():
            progress = self.board.progress(self.run_id, instances)
            context = CarriedContext(self.policy, progress.kept_sessions).view()
            await self._measure("end", "test", context, len(progress.done))

    @asynccontextmanager
    async def _pausing(self) -> AsyncIterator[None]:
        """Outside the engine's loop, a failure pauses the run too (it resumes at the same step)."""
        try:
            yield
        except BaseException as exc:
            self.board.set_status(self.run_id, RunStatus.PAUSED, describe_error(exc))
            raise

    async def __call__(self, record: SessionRecord, prior: Sequence[SessionRecord]) -> bool:
        """After session ``record``: the LEARN gate's decision, and the test measurement if kept."""
        kept = True
        context = self._with(prior, record)
        if self.learn_gate:
            decided = await self._measure("session", "val", context, record.order + 1, record.session_id, gate=True)
            kept = bool(decided["kept"])
        if kept and self.evaluate:
            await self._measure("session", "test", context, record.order + 1, record.session_id)
        return kept

    async def settle(self, done: Sequence[SessionRecord], kept: set[int]) -> None:
        """Finish the after-session step of a session interrupted during it (a resumed run)."""
        pending = set(stored.ungated(self.board, self.run_id))
        for index, record in enumerate(done):
            if record.session_id not in pending:
                continue
            earlier = [r for r in done[:index] if r.session_id in kept and r.session_id not in pending]
            decision = await self(record, CarriedContext(self.policy, earlier).view())
            self.board.keep_context(record.session_id, decision)
            pending.discard(record.session_id)
