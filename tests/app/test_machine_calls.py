"""The machine's calls for one message: the checker's AGREE that needs no fresh answer is asked beside the
model's own call (a model a round trip away then costs one round trip per message, not two)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time

import pytest

from pxp_harness.stub import Injected, Request, StubServer
from pxp_harness.waiting import PATIENCE, async_poll
from pxp_tui.agents.checker import Checker
from pxp_tui.agents.llm import LLMClient
from pxp_tui.agents.machine import MachineAgent
from pxp_tui.common.instance import Instance
from pxp_tui.engine import AgentError, Message, Turn
from pxp_tui.protocol import Sender, Tag
from pxp_tui.tasks import get_task

TARGET = Instance(1, "d", "ethyl-acetate", input="CCOC(C)=O")
MACHINE_J1 = Message(1, 1, Sender.MACHINE, Tag.INIT, "CCO.CC(=O)Cl", "Acylation of ethanol with acetyl chloride.")
EXPERT_J2 = Message(1, 2, Sender.HUMAN, Tag.REFUTE, "CCO.CC(=O)O", "A Fischer esterification with acetic acid.")
TURN_3 = Turn(1, 1, TARGET, 0, 1, 3, 10, 3, (MACHINE_J1, EXPERT_J2), ())
DELAY = 0.4  # seconds each request is answered after


class Timed:
    """A stub model that answers after ``DELAY`` and notes when each request came and was answered. With
    ``together``, a request is not answered before the other one has come (or :data:`PATIENCE` has passed)."""

    def __init__(self, machine: str | Injected, checker: str | Injected = "No", *, together: bool = False) -> None:
        self.answers = {"machine": machine, "checker": checker}
        self.came: dict[str, int] = {"machine": 0, "checker": 0}
        self.spans: dict[str, list[tuple[float, float]]] = {"machine": [], "checker": []}
        self.lock = threading.Lock()
        self.both = threading.Barrier(2) if together else None

    def __call__(self, request: Request) -> str | Injected:
        who = "checker" if request.is_checker else "machine"
        came = time.monotonic()
        with self.lock:
            self.came[who] += 1
        answer = self.answers[who]
        if isinstance(answer, Injected):
            return answer
        if self.both is not None:
            with contextlib.suppress(threading.BrokenBarrierError):  # the other never came while this one was open
                self.both.wait(PATIENCE)
        time.sleep(DELAY)
        with self.lock:
            self.spans[who].append((came, time.monotonic()))
        return answer


def agent(stub: StubServer) -> MachineAgent:
    client = LLMClient("openai/stub", api_base=stub.url, retries=0)
    checker = Checker(LLMClient("openai/stub", api_base=stub.url, retries=0))
    return MachineAgent(get_task("drug"), client, checker)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub")


async def test_the_checkers_question_on_the_earlier_messages_is_asked_while_the_model_answers() -> None:
    # the machine keeps its answer (so AGREE(e, e'') needs no call): one model call and one checker call
    model = Timed("Pathway: CCO.CC(=O)Cl\nExplanation: Acylation of ethanol with acetyl chloride.", together=True)
    with StubServer(reply=model) as stub:
        reply = await agent(stub).respond(TURN_3)
    (m_came, m_done), (c_came, c_done) = model.spans["machine"][0], model.spans["checker"][0]
    assert c_came < m_done and m_came < c_done  # the two requests were in flight together
    # the tag is the decision table's, as when the calls ran one after the other: the expert's explanation was
    # judged inconsistent with the machine's, which kept its own answer
    assert reply.tag is Tag.REFUTE and reply.meta["guard_agree"] is False and reply.meta["guard_changed"] is False
    # both calls are counted in the message's latency (the models' own time) and cost
    assert reply.meta["latency_ms"] >= 2 * DELAY * 1000


async def test_a_failed_model_call_leaves_no_checker_call_behind() -> None:
    model = Timed(Injected(status=401), checker=Injected(status=401))  # both refused: the checker's error unread
    with StubServer(reply=model) as stub:
        loop = asyncio.get_running_loop()
        errors: list[dict] = []
        loop.set_exception_handler(lambda _, context: errors.append(context))
        before = asyncio.all_tasks()
        with pytest.raises(AgentError):
            await agent(stub).respond(TURN_3)
        # every task the call started has ended (the checker's too, cancelled or failed), and nobody read its answer
        await async_poll(
            lambda: all(t.done() for t in asyncio.all_tasks() - before - {asyncio.current_task()}), "the call's tasks to end"
        )
        gc.collect()  # an unread task's failure is reported when the task is collected
    assert not errors  # no "Task exception was never retrieved", no stray task


async def test_cancelling_the_machine_cancels_the_checkers_call() -> None:
    model = Timed("Pathway: CCO\nExplanation: x", checker="Yes")
    with StubServer(reply=model) as stub:
        machine = agent(stub)
        call = asyncio.ensure_future(machine.respond(TURN_3))
        await async_poll(lambda: model.came == {"machine": 1, "checker": 1}, "both requests at the model")
        before = {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        # the checker's call ends cancelled, with the model's call (its connection closed: a loop iteration or two),
        # not answered
        checks = {t for t in before if getattr(t.get_coro(), "__qualname__", "") == "Checker.agree"}
        assert len(checks) == 1, before
        await async_poll(lambda: all(t.done() for t in checks), "the checker's call to end")
        assert all(t.cancelled() for t in checks)
    assert call.cancelled()
