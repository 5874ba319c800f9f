"""The INTERACT procedure, async.

How the recorder's writes are awaited is the caller's choice (a :data:`~pxp_tui.engine.writes.Store`, from
:mod:`pxp_tui.engine.writes`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence

from pxp_tui.common.instance import Instance
from pxp_tui.engine.context import CarriedContext, ContextPolicy, update_context
from pxp_tui.engine.types import (
    Agent,
    InstanceSkippedError,
    Message,
    Observer,
    ProtocolViolationError,
    Recorder,
    Reply,
    RunProgress,
    RunSpec,
    RunStatus,
    SessionRecord,
    Turn,
    distribution_of,
    distributions,
    round_crit,
)
from pxp_tui.engine.writes import Store, stored
from pxp_tui.protocol import Sender, StopReason, Tag, allowed_tags, sender_at, stop_reason
from pxp_tui.protocol.evince import FIG1, NMI, TOLERANCE, rounds_of, stop_outcome
from pxp_tui.protocol.information import SMOOTHING

#: called after each session; returns whether the session's context is kept (the LEARN gate)
SessionGate = Callable[[SessionRecord, Sequence[SessionRecord]], Awaitable[bool]]
#: called when a session ended (committed), before the gate: e.g. weighing its final distribution (EVINCE)
SessionHook = Callable[[SessionRecord], Awaitable[None]]
#: called when a message closes a round of two distributions, before it is committed: EVINCE's CRIT judge of
#: the round (the instance, the machine's message, the other's); what it returns joins the closing message's
#: ``meta`` (``{"crit": ...}``), so the round's verdict is committed with it and the stop rule can read it
RoundJudge = Callable[[Instance, Message, Message], Awaitable[Mapping[str, object]]]


def _check(reply: Reply, j: int, k: int, sender: Sender) -> None:
    tags = allowed_tags(j, k)
    if reply.tag not in tags:
        allowed = ", ".join(t.value for t in tags)
        raise ProtocolViolationError(f"the {sender.value} sent {reply.tag.value} at message {j}; allowed: {allowed}")


async def interact(
    spec: RunSpec,
    instances: Sequence[Instance],
    machine: Agent,
    human: Agent,
    recorder: Recorder,
    *,
    progress: RunProgress | None = None,
    gate: SessionGate | None = None,
    observer: Observer | None = None,
    ended: SessionHook | None = None,
    judge: RoundJudge | None = None,
    store: Store = stored,
) -> None:
    """Run (or continue) a run: one session per instance, machine at odd ``j``, human at even ``j``.

    Every message is committed through ``recorder`` before the next agent is asked, each write awaited through
    ``store`` (:func:`stored`: in a worker thread, the loop turning meanwhile; :func:`at_once`: on the loop's thread). ``progress`` (from the
    recorder's store) resumes an interrupted run at its next message. An exception from an agent propagates after
    the run is marked ``paused``; nothing recorded is lost.
    """
    progress = progress or RunProgress()
    if observer is None:
        observer = Observer()
    policy = ContextPolicy.parse(spec.context)
    carried = CarriedContext(policy, progress.kept_sessions)
    agents = {Sender.MACHINE: machine, Sender.HUMAN: human}
    total = len(instances)
    await store(recorder.set_status, spec.run_id, RunStatus.RUNNING)
    try:
        for order in range(progress.next_order, total):
            instance = instances[order]
            if order == progress.next_order and progress.open_session is not None:
                session_id, history = progress.open_session, list(progress.open_messages)
            else:
                session_id, history = await store(recorder.start_session, spec.run_id, instance.id, order), []
            observer.session_started(session_id, instance, order, total, tuple(history))
            record = await _session(
                spec, instance, order, total, session_id, history, agents, recorder, carried, observer, judge, store
            )
            if record.stop is StopReason.SKIPPED:  # neither measured nor carried: the expert set it aside
                observer.session_ended(record, False)
                continue
            if ended is not None:
                await ended(record)
            kept = await gate(record, carried.view()) if gate else True
            if gate:
                await store(recorder.keep_context, session_id, kept)
            if kept:
                carried.add(record)
            observer.session_ended(record, kept)
    except BaseException as exc:
        # at once, before the exception goes on (a cancelled app closes its blackboard next); a pause waits little. If
        # even that write fails (the file is still locked, the disk full), the first error is the one that counts.
        with contextlib.suppress(Exception):
            recorder.set_status(spec.run_id, RunStatus.PAUSED, describe_error(exc))
        raise
    await store(recorder.set_status, spec.run_id, RunStatus.DONE)


async def _session(
    spec: RunSpec,
    instance: Instance,
    order: int,
    total: int,
    session_id: int,
    history: list[Message],
    agents: dict[Sender, Agent],
    recorder: Recorder,
    carried: CarriedContext,
    observer: Observer,
    judge: RoundJudge | None = None,
    store: Store = stored,
) -> SessionRecord:
    latest: dict[Sender, Tag] = {m.sender: m.tag for m in history}
    prior = carried.view()
    stop = None
    j = len(history) + 1
    while stop is None:
        sender = sender_at(j)
        turn = Turn(spec.run_id, session_id, instance, order, total, j, spec.n, spec.k, tuple(history), prior)
        try:
            reply = await agents[sender].respond(turn)
        except InstanceSkippedError:
            await store(recorder.skip_session, session_id)
            return SessionRecord(session_id, instance, order, tuple(history), StopReason.SKIPPED)
        _check(reply, j, spec.k, sender)
        message = Message(session_id, j, sender, reply.tag, reply.prediction, reply.explanation, dict(reply.meta))
        if judge is not None and _closes_round(message, history):
            verdict = await judge(instance, history[-1], message)
            message = Message(session_id, j, sender, reply.tag, reply.prediction, reply.explanation, {**reply.meta, **verdict})
        latest[sender] = reply.tag
        stop = _stop(spec, message, [*history, message], latest)
        await store(recorder.record, message, update_context(message, instance.id, prior, carried.policy), stop)
        history.append(message)
        observer.message_recorded(message, stop)
        j += 1
    return SessionRecord(session_id, instance, order, tuple(history), stop)


def _closes_round(message: Message, history: Sequence[Message]) -> bool:
    """Whether ``message`` is the other agent's answer in a round where both state a distribution."""
    return (
        message.j % 2 == 0
        and bool(history)
        and distribution_of(message.meta) is not None
        and distribution_of(history[-1].meta) is not None
    )


def _stop(spec: RunSpec, message: Message, session: Sequence[Message], latest: dict[Sender, Tag]) -> StopReason | None:
    """Whether the session stops after ``message``, by the run's rule (:attr:`RunSpec.stop`)."""
    return stop_by_rule(
        spec.stop,
        spec.n,
        spec.order,
        message,
        session,
        latest,
        evince_rule=spec.evince_rule,
        tolerance=spec.tolerance,
        smoothing=spec.smoothing,
        mi=spec.evince_mi,
    )


def stop_by_rule(
    rule: str,
    n: int,
    order: Sequence[str] | None,
    message: Message,
    session: Sequence[Message],
    latest: Mapping[Sender, Tag] | None = None,
    *,
    evince_rule: str = FIG1,
    tolerance: float = TOLERANCE,
    smoothing: float = SMOOTHING,
    mi: str = NMI,
) -> StopReason | None:
    """Whether a session stops after ``message`` (the last of ``session``) by ``rule`` (``pxp``, ``evince`` or
    ``both``: see :attr:`RunSpec.stop`), EVINCE's being ``evince_rule`` (``fig1`` or ``plateau``) with
    ``tolerance``, comparing the MI ``mi``; ``latest``: each agent's latest tag, found in ``session`` if not given.

    EVINCE's rule compares the rounds both agents stated a distribution for (a round without one is not among
    them: the round after it is compared with the last one before it); a stop says what the rule found (:func:`pxp_tui.protocol.evince.outcome`:
    converged, diverged or stalled). At the bound the session is ``bound`` whatever the rule finds there."""
    if latest is None:
        latest = {m.sender: m.tag for m in session}
    pxp = stop_reason(message.j, n, message.tag, latest.get(Sender.MACHINE), latest.get(Sender.HUMAN))
    if rule == "pxp":
        return pxp
    if rule == "evince" and pxp is StopReason.RATIFIED:
        # EVINCE's debate goes on while its measures move, up to the bound
        pxp = StopReason.BOUND if message.j >= n else None
    if pxp is not None or message.j % 2:
        return pxp
    rounds = rounds_of(distributions(session), order, smoothing)
    by_j = {m.j: m for m in session}
    crit = [round_crit(by_j[2 * r.round].meta) for r in rounds]
    found = stop_outcome(rounds, tolerance, evince_rule, crit, mi)
    return StopReason(found) if found is not None else None


def describe_error(exc: BaseException) -> str:
    """Why a run paused, in one line: the exception's class and text ("cancelled", "interrupted"); a
    cancellation's message when it has one (the stop signal's reason)."""
    name = type(exc).__name__
    if name == "CancelledError":
        return str(exc).strip() or "cancelled"
    if name == "KeyboardInterrupt":
        return "interrupted"
    text = str(exc).strip()
    return f"{name}: {text}" if text else name
