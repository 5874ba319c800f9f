"""How the LEARN gate reads the journal's "the LLM only revises its prediction if its validation-set accuracy improves":
the gate decides which sessions the context carries on, never a message's tag (docs/FIDELITY.md, row learn-revise)."""

from __future__ import annotations

from pathlib import Path

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard


def test_the_gate_keeps_out_a_sessions_context_not_its_revision(capsys, db_path: Path) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--learn-gate", "--limit", "4", "--quiet", "--db", db_path)
    assert code == 0, err
    with Blackboard.open(db_path, create=False) as board:
        sessions = list(
            board.db.query(
                "SELECT d.context_kept, group_concat(m.tag, ' ') AS tags FROM data d JOIN messages m USING (session_id)"
                " WHERE m.sender = 'machine' GROUP BY d.session_id ORDER BY d.ord"
            )
        )
    refused = [s["tags"] for s in sessions if not s["context_kept"]]
    assert any("REVISE" in tags.split() for tags in refused), sessions  # revised, though the gate did not keep it
