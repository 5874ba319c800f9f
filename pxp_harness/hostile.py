"""Hostile text for display tests: terminal escape sequences in a model's reply, a dataset and a blackboard.

- :data:`ESCAPES`: what a terminal acts on (the window title, the clipboard, the screen, the cursor, bidi, C1);
- :func:`hostile_csv`: a DRUG dataset whose name and explanation fields hold them;
- :func:`machine_reply`: the stub model's replies (a valid pathway, an explanation holding them);
- :func:`poison`: the blackboard written directly with ``sqlite3`` (a note, names, a prediction, a distribution);
- :func:`hostile_board`: all of them in one blackboard;
- :func:`leaks` and :func:`screen_text`: what a check reads.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any

from pxp_harness.stub import Request

#: one of everything: OSC 0 and 2 (the terminal's title), OSC 52 (its clipboard: "pwned"), a wipe and a cursor
#: home, cursor moves, a carriage return painting over the line, a right-to-left override and an isolate, C1's CSI
ESCAPES = (
    "\x1b]0;PWNED-TITLE\x07"
    "\x1b]2;PWNED-TITLE\x1b\\"
    "\x1b]52;c;cHduZWQ=\x07"
    "\x1b[2J\x1b[H"
    "\x1b[3A\x1b[5;5H"
    "safe\rEVIL"
    "\u202eDESREVER\u202c"
    "\u2067iso\u2069"
    "\x9b2J\x7f"
)
#: what shows on the screen where ESCAPES was: the escapes as text (after the label, see :func:`shown`)
SHOWN = ":\\x1b]0;PWNED"
#: the bidi embeddings, overrides and isolates (Unicode's bidi classes)
BIDI_CONTROLS = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
#: the DRUG pathway the stub model proposes (valid SMILES: what the parser keeps of a reply)
PATHWAY = "CCO.CC(=O)Cl"


def hostile(label: str) -> str:
    """``label`` then every escape sequence: where the text came from shows on the screen."""
    return f"{label}:{ESCAPES} end"


#: the hostile dataset's name
DATASET = hostile("set")


def shown(label: str) -> str:
    """What the screen shows of :func:`hostile` ``(label)``: the label, then the first escape as text."""
    return label + SHOWN


def acted_on(char: str) -> bool:
    """Whether a terminal (or a layout) would act on ``char``: controls, bidi controls, line separators, surrogates."""
    return unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp") or unicodedata.bidirectional(char) in BIDI_CONTROLS


def leaks(text: str, *, one_line: bool = False) -> list[str]:
    """The characters of ``text`` a terminal would act on (line breaks allowed unless ``one_line``)."""
    allowed = "" if one_line else "\n"
    return [c for c in text if acted_on(c) and c not in allowed]


def hostile_csv(folder: Path) -> Path:
    """A DRUG dataset file (``key,name,input,output,explanation``) with hostile names and explanations."""
    path = folder / "hostile.csv"
    rows = [
        ("aspirin", hostile("name"), "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)OC(C)=O.O=C(O)c1ccccc1O", hostile("dataset")),
        ("paracetamol", hostile("name2"), "CC(=O)Nc1ccc(O)cc1", "CC(=O)OC(C)=O.Nc1ccc(O)cc1", hostile("dataset2")),
    ]
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["key", "name", "input", "output", "explanation"])
        writer.writerows(rows)
    return path


#: the stub model's reply as the machine: a valid pathway, a hostile explanation
REPLY = f"Reactants: {PATHWAY}\nExplanation: {hostile('reply')}"


def machine_reply(request: Request) -> str:
    """The stub model: "Yes" as the checker; :data:`REPLY` as the machine."""
    return "Yes" if request.is_checker else REPLY


def poison(db: Path) -> None:
    """What someone else wrote into the blackboard with ``sqlite3``: every run's experiment, a live expert's name,
    the first message's prediction and distribution, the last run's error, a note on each session."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET experiment = ?", (hostile("experiment"),))
        conn.execute("UPDATE runs SET expert = ? WHERE human_kind = 'live'", (hostile("expert"),))
        conn.execute("UPDATE runs SET error = ? WHERE id = (SELECT MAX(id) FROM runs)", (hostile("error"),))
        first = conn.execute("SELECT session_id, j FROM messages ORDER BY session_id, j LIMIT 1").fetchone()
        if first is not None:
            conn.execute(
                "UPDATE messages SET prediction = ?, distribution = ? WHERE session_id = ? AND j = ?",
                (hostile("prediction"), json.dumps({hostile("label"): 0.7, "CCO": 0.3}), *first),
            )
        conn.execute(
            "INSERT OR REPLACE INTO annotations (session_id, run_id, flagged, note, updated_at) "
            "SELECT session_id, run_id, 1, ?, '2025-01-01T00:00:00' FROM data",
            (hostile("note"),),
        )


def hostile_board(folder: Path, model_url: str, capsys: Any) -> Path:
    """A blackboard in ``folder``: the hostile dataset imported (``pxp import``); run 1, the stub machine at
    ``model_url`` and the proxy, run headless (its lines checked as printed); run 2, a live expert's, and run 3,
    the proxy's, created but not started; then :func:`poison`."""
    from pxp_harness.app_helpers import make_run
    from pxp_harness.cli_helpers import pxp

    db = folder / "sessions.db"
    code, out, err = pxp(capsys, "import", "drug", hostile_csv(folder), "--name", DATASET, "--db", db)
    assert code == 0 and not leaks(out + err), err
    machine = {"task": "drug", "dataset": DATASET, "model": "openai/stub", "api_base": model_url}
    run = ["run", "--headless", "--human", "proxy", "--n", "4", "--db", db]
    code, out, err = pxp(capsys, *run, *(f"--{k.replace('_', '-')}={v}" for k, v in machine.items()))
    assert code == 0, err
    assert not leaks(out + err)
    assert shown("name") in out  # the instance's name, on its session's line
    make_run(db, **machine, human="live:alice", limit=1)
    make_run(db, **machine, human="proxy", n=4, limit=2)
    poison(db)
    return db


def stored(db: Path, sql: str, params: tuple = ()) -> list[Any]:
    """The first column of ``sql``'s rows, read with ``sqlite3`` (the bytes as stored)."""
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute(sql, params)]


def screen_text(app: Any) -> str:
    """Every cell the app's screen draws now (its layers: dialogs, notifications), as the terminal is sent them."""
    from pxp_harness.internals import screen_lines

    return "\n".join(screen_lines(app.screen))
