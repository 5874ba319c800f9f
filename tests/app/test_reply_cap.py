"""A model's reply over ``--max-reply`` (256 KB by default) is not read: it is an unparseable reply, asked again,
then the run pauses saying its size. A broken or hostile server's 10 MB reply then costs the run a pause, not
minutes of parsing, gigabytes of memory and tens of megabytes of blackboard: memory and storage are measured here
(what the reply's handling adds to this process's peak resident memory, and to the file), never time."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from pxp_harness.app_helpers import live_app, messages, wait_for
from pxp_harness.stub import Request, StubServer, drug_first, learner
from pxp_tui.app.session.failure import FailureScreen
from pxp_tui.blackboard import Blackboard
from pxp_tui.cli.main import main

MB = 2**20
SENTENCE = "the acid chloride is hydrolysed before the ester because this reasoning goes on, and "


def prose(size: int) -> str:
    """A DRUG reply of ``size`` characters: a prediction, then an explanation that goes on and on."""
    sentence = SENTENCE
    return ("Pathway: CCO.CC(=O)Cl\nExplanation: " + sentence * (size // len(sentence) + 1))[:size]


#: a reply of 10 MB (10,000,000 bytes: 9.5 MB of 2**20), as a server that ignores max_tokens might send
BIG = prose(10_000_000)
#: what handling the refused reply may add to the process's peak memory. The stub answers in this process, each
#: request in a thread of its own building the 10 MB answer again (its JSON text and bytes): 32 to 83 MB of it here,
#: as the threads' memory arenas are reused or not. pxp reads none of the answer (the server says its length:
#: "refused unread", and tests below drive the cut directly); benchmarks/big_reply.py measures pxp alone, the stub in
#: a process of its own. Read, parsed, stored three times and kept in every later prompt, a reply costs gigabytes
PEAK_GROWTH = 150 * MB

needs_proc = pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="peak memory is read from Linux's /proc")


def resident() -> tuple[int, int]:
    """(resident memory now, its peak since :func:`reset_peak`), in bytes, from /proc/self/status."""
    found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M))
    return int(found["VmRSS"]) * 1024, int(found["VmHWM"]) * 1024


def reset_peak() -> int:
    """Start counting the peak resident memory from now (Linux: ``5`` to clear_refs); the resident memory now."""
    Path("/proc/self/clear_refs").write_text("5")
    return resident()[0]


def file_size(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())


def machine_says(text: str, state: dict[str, bool] | None = None) -> Callable[[Request], str]:
    """A stub model whose machine replies ``text`` (while ``state["big"]``; a short answer before); the checker says Yes."""
    good = learner("Pathway", drug_first)
    state = {"big": True} if state is None else state
    return lambda request: text if state["big"] and not request.is_checker else good(request)


def pxp(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


@needs_proc
def test_a_10_mb_reply_is_refused_unread_and_the_run_pauses_saying_its_size(capsys, db_path: Path) -> None:
    state = {"big": False}
    with StubServer(reply=machine_says(BIG, state)) as stub:
        run = ("run", "--headless", "--task", "drug", "--db", db_path, "--limit", "1", "--n", "1", "--model", "openai/stub")
        code, out = pxp(capsys, *run, "--api-base", stub.url)  # a short reply first: litellm loaded, its first call made
        assert code == 0, out
        state["big"] = True
        before, stored = reset_peak(), file_size(db_path)
        code, out = pxp(capsys, *run, "--api-base", stub.url, "--retries", "0")
        grew = resident()[1] - before
        asked = len(stub.machine_requests())
    assert code == 1, out
    assert (
        "unparseable reply after 3 attempts (the reply is 9.5 MB, over the limit of 256 KB (--max-reply), refused unread)" in out
    ), out
    assert "Traceback" not in out and asked == 1 + 3  # asked again twice, then paused
    with Blackboard.open(db_path, readonly=True) as board:
        assert board.run(2).status == "paused" and board.progress(2, []).open_messages == []
    assert file_size(db_path) - stored < MB, "the refused reply is stored nowhere"
    assert grew < PEAK_GROWTH, f"handling the refused reply added {grew / MB:.0f} MB to the peak memory"


def test_the_limit_is_the_run_s_and_a_reply_within_it_is_stored_once_besides_its_text(capsys, db_path: Path) -> None:
    """A 40 KB reply: refused under --max-reply 32; within the default, its explanation is stored in ``messages``
    (and the whole reply in ``raw``), never again in the context entry."""
    reply = prose(40_000)
    with StubServer(reply=machine_says(reply)) as stub:
        base = ("run", "--headless", "--task", "drug", "--db", db_path, "--limit", "1", "--n", "1", "--model", "openai/stub")
        code, out = pxp(capsys, *base, "--api-base", stub.url, "--max-reply", "32")
        assert code == 1 and "(the reply is 39 KB, over the limit of 32 KB (--max-reply), beginning 'Pathway: CCO" in out
        code, out = pxp(capsys, *base, "--api-base", stub.url)
    assert code == 0, out
    conn = sqlite3.connect(db_path)
    try:
        explanation, raw, context = conn.execute(
            "SELECT m.explanation, m.raw, c.context FROM messages m JOIN context c USING (session_id, j) "
            "JOIN data d USING (session_id) WHERE d.run_id = 2"
        ).fetchone()
    finally:
        conn.close()
    assert len(explanation) > 39_000 and raw == reply
    assert len(context) < 500 and explanation[:100] not in context


@needs_proc
async def test_the_live_app_shows_a_10_mb_reply_s_refusal_and_stores_nothing(db_path: Path) -> None:
    from pxp_tui.agents.llm import load_litellm

    load_litellm()  # what the app loads after its first paint, loaded before the peak is counted
    with StubServer(reply=machine_says(BIG)) as stub:
        before = reset_peak()
        async with live_app(db_path, limit=1, model="openai/stub", api_base=stub.url) as (app, pilot, run_id):
            dialog = await wait_for(pilot, lambda: isinstance(app.screen, FailureScreen) and app.screen, "the failure notice")
            cause = dialog.cause
            grew = resident()[1] - before
            assert "unparseable reply after 3 attempts (the reply is 9.5 MB, over the limit of 256 KB" in cause, cause
            assert messages(db_path, run_id) == []
    assert file_size(db_path) < MB, "the refused reply is stored nowhere"
    assert grew < PEAK_GROWTH + 50 * MB, f"the app's peak memory grew by {grew / MB:.0f} MB"  # its screens too
    assert "refused unread" in cause and len(cause) < 1_000  # the cause says the reply's size, not the reply


async def test_an_answer_of_unknown_length_is_read_no_further_than_the_limit() -> None:
    """A server that does not say its answer's length (chunked): the answer is cut off once the bytes a reply within
    --max-reply can take have come, the rest never asked for; one that says it is refused before a byte is read; one
    compressed though asked not to be is refused (a few KB may be gigabytes once decoded)."""
    import gzip

    import httpx

    from pxp_tui.agents import reply_cap
    from pxp_tui.agents.llm import refused_unread

    sent = [0]

    async def chunks():
        for _ in range(10_000):
            sent[0] += 1_000
            yield b"x" * 1_000

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.headers["accept-encoding"] == "identity"  # asked uncompressed: its bytes bound its size
        if request.url.path == "/chunked":
            return httpx.Response(200, content=chunks())
        if request.url.path == "/gzip":  # 2 KB that a client decoding it would make 10 MB
            return httpx.Response(200, content=gzip.compress(b"x" * 10_000_000), headers={"Content-Encoding": "gzip"})
        if request.url.path == "/title":  # the server's header is data: an escape sequence is not passed on
            return httpx.Response(200, content=b"x", headers={"Content-Encoding": "\x1b]0;title\x07gzip"})
        return httpx.Response(200, content=b"x" * 2_000_000)

    limit = reply_cap.body_limit(32)
    assert limit == 32 * 1024 * 6 + 64 * 1024  # the escaped text's worst case, and the JSON around it
    reply_cap.LIMIT.set(limit)
    async with httpx.AsyncClient(transport=reply_cap.CappedTransport(lambda: httpx.MockTransport(answer))) as client:
        with pytest.raises(reply_cap.ReplyTooLargeError) as chunked:
            await client.get("http://model.invalid/chunked")
        assert chunked.value.size is None and limit < sent[0] <= limit + 1_000
        with pytest.raises(reply_cap.ReplyTooLargeError) as said:
            await client.get("http://model.invalid/said")
        assert said.value.size == 2_000_000
        with pytest.raises(reply_cap.ReplyTooLargeError) as compressed:
            await client.get("http://model.invalid/gzip")
        assert compressed.value.encoding == "gzip"
        with pytest.raises(reply_cap.ReplyTooLargeError) as titled:
            await client.get("http://model.invalid/title")
        assert "\x1b" not in titled.value.encoding and "\x07" not in titled.value.encoding
        assert refused_unread(compressed.value, 32).startswith("the reply came compressed (gzip) though asked not to be")
        reply_cap.LIMIT.set(reply_cap.body_limit(2_000))
        assert len((await client.get("http://model.invalid/said")).content) == 2_000_000  # within a larger limit
