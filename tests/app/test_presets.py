"""``pxp run --preset``: the papers' settings, each citing its row of docs/FIDELITY.md, overridden by any option given,
and recorded with the run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pxp_harness.cli_helpers import pxp
from pxp_tui.blackboard import Blackboard
from pxp_tui.common.kinds import HumanKind
from pxp_tui.runs.presets import PRESETS

from ..conftest import ROOT


def fidelity_rows() -> set[str]:
    """The ids of docs/FIDELITY.md's rows: the first cell of a table row, in backquotes."""
    text = (ROOT / "docs" / "FIDELITY.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M))


def test_every_value_of_every_preset_cites_a_row_of_the_fidelity_document() -> None:
    rows = fidelity_rows()
    for name, settings in PRESETS.items():
        for field, setting in settings.items():
            assert setting.row in rows, f"{name}.{field} cites {setting.row!r}, which docs/FIDELITY.md has no row for"


def test_the_papers_stated_settings() -> None:
    """Written from the papers: the conference's Sec. 4.1.3 and 4.2, the journal's Appendix A and Sec. 5.3."""
    rad, drug = PRESETS["conference-rad"], PRESETS["conference-drug"]
    assert (rad["model"].value, rad["checker"].value) == ("gpt-4o-mini", "gpt-4o")
    assert rad["temperature"].value == 1.0 and drug["temperature"].value == 0.3  # "default ... (1.0)"; "0.3"
    assert drug["model"].value == drug["checker"].value == "anthropic/claude-3-opus-20240229"
    assert (rad["repeat"].value, drug["repeat"].value) == (5, 1)  # "R = 5 for RAD, and R = 1 for DRUG"
    assert rad["rad_question"].value == "yes-no"  # Example 1: "Prediction: Yes/No"
    for name in ("journal-rad", "journal-drug"):
        journal = PRESETS[name]
        assert journal["model"].value == journal["checker"].value == "anthropic/claude-3-5-sonnet-latest"
        assert journal["temperature"].value is None  # "All other settings are the defaults"
        assert journal["repeat"].value == 5 and journal["learn_gate"].value is True  # "5 repetitions"; validation set
    assert PRESETS["journal-rad"]["max_tokens"].value == 300 and PRESETS["journal-drug"]["max_tokens"].value == 1024
    for settings in PRESETS.values():
        assert settings["n"].value == 10  # "this bound is set to 10"
        assert (settings["checker_temperature"].value, settings["checker_max_tokens"].value) == (0.0, 10)


@pytest.fixture
def demo(capsys, db_path: Path) -> Path:
    """A blackboard holding RAD's demo (a run that names no dataset imports it)."""
    code, _, err = pxp(capsys, "run", "--headless", "--task", "rad", "--limit", "1", "--quiet", "--db", str(db_path))
    assert code == 0, err
    return db_path


def test_a_preset_names_the_papers_data_and_how_to_import_it(capsys, demo: Path) -> None:
    code, _, err = pxp(capsys, "run", "--preset", "journal-drug", "--model", "offline", "--db", str(demo))
    assert code == 2
    assert "no dataset 'interact-drug'" in err and "pxp import drug DATA/retro.csv --name interact-drug --reference-split" in err


def test_a_preset_fills_what_is_not_given_and_the_run_records_it(capsys, demo: Path) -> None:
    code, _, err = pxp(capsys, "run", "--headless", "--preset", "journal-rad", "--dataset", "demo-rad", "--model",
                       "offline", "--repeat", "1", "--limit", "2", "--n", "6", "--quiet", "--db", str(demo))  # fmt: skip
    assert code == 0, err
    with Blackboard.open(demo, create=False) as board:
        run = board.runs()[-1]
    config = run.config
    assert (config.n, config.k, config.model, config.checker) == (6, 3, "offline", "offline")  # --n, --model win
    assert config.preset == "journal-rad"
    assert config.preset_overrides == ["dataset", "model", "n", "repeat"]
    assert config.learn_gate is True and config.prompts == "reference"
    effective = config.effective
    assert effective is not None
    assert effective["machine"] == {"model": "offline", "temperature": "provider default", "max_tokens": 300}
    assert effective["checker"] == {"model": "offline", "temperature": 0.0, "max_tokens": 10}
    assert effective["learn"] == {"metric": "match-and-agree", "rule": "improves", "first": "measure"}


def test_an_option_turns_off_what_the_preset_turns_on(capsys, demo: Path) -> None:
    code, _, err = pxp(capsys, "run", "--preset", "journal-rad", "--dataset", "demo-rad", "--model", "offline",
                       "--no-learn-gate", "--repeat", "2", "--limit", "1", "--quiet", "--db", str(demo))  # fmt: skip
    assert code == 0, err  # an experiment runs headless without being told
    with Blackboard.open(demo, create=False) as board:
        runs = board.runs()[-2:]
        measured = list(board.db.query("SELECT id FROM evaluations WHERE run_id IN (?, ?)", [r.id for r in runs]))
    assert all("learn_gate" in (r.config.preset_overrides or ()) for r in runs) and measured == []
    assert runs[0].config.experiment == runs[1].config.experiment is not None


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_validates(name: str) -> None:
    from pxp_tui.config import RunConfig
    from pxp_tui.runs.presets import apply

    named = {"expert": "Ada"} if name == "conference-drug" else {}  # its live chemist has no name of the paper's
    values, overridden = apply(name, named)
    values.pop("repeat")
    RunConfig(**values).validate()
    assert overridden == list(named)


def test_the_drug_experiments_with_a_chemist_seat_a_live_expert_as_the_papers_did() -> None:
    """001 Sec. 4.1.2: "the human-agent has access to a chemist"; 002 Sec. 5.3: uncontrolled experiments with two
    chemists and no validation set; the reference's README starts them with ``--machine="claude-3-sonnet-20240229"
    --task=DRUG --no_learn``."""
    assert PRESETS["conference-drug"]["human_kind"].value is HumanKind.LIVE
    assert PRESETS["conference-drug"]["expert"].value is None  # the researcher names the chemist
    proxy = PRESETS["conference-drug-proxy"]
    assert proxy["human_kind"].value is HumanKind.PROXY
    assert {k: v.value for k, v in proxy.items() if k not in ("human_kind", "expert")} == {
        k: v.value for k, v in PRESETS["conference-drug"].items() if k not in ("human_kind", "expert")
    }  # the same experiment, the proxy in the chemist's seat
    for number in (1, 2):
        h = {k: v.value for k, v in PRESETS[f"journal-drug-h{number}"].items()}
        assert (h["human_kind"], h["expert"]) == (HumanKind.LIVE, f"DRUG-h{number}")
        assert (
            h["model"] == h["checker"] == "claude-3-sonnet-20240229"
        )  # the README's string; the checker: its --evaluator default
        assert h["learn_gate"] is False and h["repeat"] == 1 and h["prompts"] == "reference"
        assert h["evaluate"] is True  # the reference measures the test split of DRUG whatever the human
        assert h["temperature"] is None and h["dataset"] == "interact-drug"


def test_a_live_preset_asks_for_the_experts_name_and_runs_in_the_app(capsys, demo: Path) -> None:
    code, _, err = pxp(capsys, "run", "--preset", "conference-drug", "--dataset", "demo-drug", "--model", "offline", "--db", demo)
    assert code == 2
    assert "preset conference-drug has a live expert in the human's seat, as the paper had: name them with --human NAME" in err
    assert "(or run conference-drug-proxy, the proxy in their seat)" in err
    code, _, err = pxp(capsys, "run", "--headless", "--preset", "journal-drug-h1", "--dataset", "demo-drug", "--model",
                       "offline", "--no-evaluate", "--db", demo)  # fmt: skip
    assert code == 2 and "a live expert answers in the app" in err


def test_the_experts_name_is_the_presets_unless_given_and_a_proxy_replaces_them() -> None:
    from pxp_tui.cli.main import parser
    from pxp_tui.cli.run import config_of

    def config(*argv: str):
        return config_of(parser("run").parse_args(["run", *argv]))

    h2 = config("--preset", "journal-drug-h2")
    assert (h2.human_kind, h2.expert, h2.preset_overrides) == (HumanKind.LIVE, "DRUG-h2", None)
    named = config("--preset", "journal-drug-h2", "--human", "Grace")
    assert (named.human_kind, named.expert, named.preset_overrides) == (HumanKind.LIVE, "Grace", ["expert"])
    proxy = config("--preset", "conference-drug", "--human", "proxy")
    assert (proxy.human_kind, proxy.expert, proxy.preset_overrides) == (HumanKind.PROXY, None, ["human_kind"])
    assert config("--task", "rad").human_kind is HumanKind.PROXY  # no preset, no --human: the proxy
