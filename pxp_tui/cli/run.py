"""``pxp run``: create (or resume) a run and drive it, headless or in the app."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import fields
from typing import Any

from pxp_tui.agents.checker import CHECKER_SETTINGS
from pxp_tui.agents.llm import LLMClient
from pxp_tui.cli.common import add_db, positive
from pxp_tui.cli.printing import SessionLines, evaluation_line, resume_command, rules, say
from pxp_tui.cli.repeat import drive_experiment
from pxp_tui.common.kinds import HumanKind
from pxp_tui.config import CHOICES, DEFAULTS, GROUND_METRICS, RunConfig, parse_human
from pxp_tui.protocol import evince
from pxp_tui.runs import presets
from pxp_tui.tasks import TASKS

#: the options of a few words (RunConfig's CHOICES) and what they say
WORDED = {
    "learn_metric": "the gate's accuracy: prediction and explanation both right, or the prediction alone",
    "learn_rule": "keep a session if the accuracy improves (the journal), or if it does not drop (the reference)",
    "learn_first": "the first session: measured against the machine with no context, or always kept (the reference)",
    "prompts": "the prompts' wording: pxp's, the papers' Examples 1 and 2, or the reference scripts'",
    "rad_question": "RAD: name one of five diseases, or say Yes/No to the case's disease (the conference)",
    "rad_unnamed": "RAD: a reply naming none of the five conditions is asked again (pxp), or kept and scored wrong "
    "(the reference scripts)",
    "drug_match": "DRUG's MATCH: the same set of canonical reactants (the papers), a canonical reactant in common (the "
    "reference scripts' DRUG.match as it runs), or that or an identical Morgan fingerprint, radius 2, 1024 bits (its "
    "code as written)",
}

#: runs of one configuration with --repeat, unless told
REPEAT = 1


def _default(text: str, value: object) -> str:
    """A help text naming its default."""
    return f"{text} (default: {value})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``pxp run``'s options: every default is RunConfig's (DEFAULTS), the model clients' or the checker's."""
    d = DEFAULTS
    add_db(parser)
    parser.add_argument("--headless", action="store_true", help="no app: print a line per session, then the table")
    parser.add_argument("--resume", type=positive, metavar="RUN_ID", help="continue an unfinished run at its next message")
    parser.add_argument("--task", choices=sorted(TASKS), default=d.task, help=_default("the task", d.task))
    parser.add_argument("--dataset", help="a dataset in the blackboard (default: the task's bundled demo)")
    parser.add_argument("--model", default=d.model, help=_default("machine: a litellm model string, or `offline`", d.model))
    parser.add_argument("--checker", help="model for AGREE (default: the machine's model; `offline`: TF-IDF)")
    parser.add_argument(
        "--human",
        default=d.human_kind.value,
        help=_default(
            "`proxy` (the dataset's answers), `model:MODEL` (a second machine: a litellm model or `offline`), "
            "or the live expert's name (`live:NAME` for any name)",
            d.human_kind,
        ),
    )
    parser.add_argument("--human-temperature", type=float, help="the second machine's temperature (--human model:...)")
    parser.add_argument("--human-api-base", help="base URL of an OpenAI-compatible server for the second machine")
    parser.add_argument("--top-k", type=positive, help="ask both agents for a top-k probability distribution with each answer")
    parser.add_argument(
        "--contentiousness", type=float, help="EVINCE's debate contentiousness in both prompts, 0..1 (the paper: 0.9)"
    )
    parser.add_argument(
        "--contentiousness-decay",
        type=float,
        default=d.contentiousness_decay,
        help=_default("contentiousness lost each round after the first two", d.contentiousness_decay),
    )
    parser.add_argument(
        "--stop",
        choices=list(evince.STOP_RULES),
        default=d.stop,
        help=_default("the session stop rule: PXP's, EVINCE's (--evince-rule), or whichever comes first", d.stop),
    )
    parser.add_argument(
        "--evince-rule",
        choices=list(evince.EVINCE_RULES),
        default=d.evince_rule,
        help=_default(
            "EVINCE's stop rule: fig1, the paper's Figure 1 loop (goes on while WD does not rise and MI and CRIT do "
            "not fall; CRIT judged each round), or plateau (stops when WD stops falling and MI stops rising)",
            d.evince_rule,
        ),
    )
    parser.add_argument(
        "--evince-mi",
        choices=list(evince.MI_MEASURES),
        default=d.evince_mi,
        help=_default(
            "the mutual information EVINCE's stop rules compare round to round: nmi (normalised by the larger "
            "entropy, as the paper's results report it) or mi (Figure 1's letter, in bits)",
            d.evince_mi,
        ),
    )
    parser.add_argument(
        "--stop-tolerance",
        type=float,
        default=d.stop_tolerance,
        help=_default("a change of WD, MI or CRIT/10 smaller than this counts as none", d.stop_tolerance),
    )
    parser.add_argument(
        "--smoothing",
        type=float,
        default=d.smoothing,
        help=_default("added to every probability for the smoothed KL divergence and cross entropy", d.smoothing),
    )
    parser.add_argument(
        "--ground-metric",
        choices=list(GROUND_METRICS),
        help="the Wasserstein distance's ground metric: labels in the task's order, or any two 1 apart (default: the task's)",
    )
    parser.add_argument(
        "--final-weights",
        choices=list(evince.FINAL_WEIGHTS),
        default=d.final_weights,
        help=_default(
            "how a session's final distribution (EVINCE) weighs the two agents: by the last round's CRIT scores "
            "(the checker's model judges; offline: a heuristic stand-in), or equally",
            d.final_weights,
        ),
    )
    parser.add_argument(
        "--aggregation",
        choices=list(evince.AGGREGATIONS),
        default=d.aggregation,
        help=_default(
            "how the final distribution combines the agents' last ones: entopps (EnToPPS when their top-k label sets "
            "differ, else the weighted average), or weighted (always the weighted average)",
            d.aggregation,
        ),
    )
    parser.add_argument("--n", type=positive, default=d.n, help=_default("message bound per session", d.n))
    parser.add_argument("--k", type=positive, default=d.k, help=_default("REJECT allowed after message k", d.k))
    parser.add_argument("--context", default=d.context, help=_default("carried context: all, none or last:N", d.context))
    parser.add_argument("--seed", type=int, help="shuffle the instances with this seed (default: dataset order)")
    parser.add_argument("--limit", type=positive, help="at most this many sessions")
    parser.add_argument("--split", default=d.split, help=_default("the dataset split to run on", d.split))
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible server (Ollama, vLLM, ...)")
    parser.add_argument("--max-tokens", type=positive, help="generation token limit (default: the task's)")
    parser.add_argument("--temperature", type=float, help="generation temperature (default: the task's)")
    parser.add_argument("--timeout", type=float, help=_default("seconds a model call may take", f"{LLMClient.timeout:g}"))
    parser.add_argument("--retries", type=int, help=_default("retries of a failed model call, with backoff", LLMClient.retries))
    parser.add_argument(
        "--max-reply",
        type=positive,
        metavar="KB",
        help=_default("the largest model reply read; a larger one is refused as unparseable", f"{LLMClient.max_reply_kb} KB"),
    )
    parser.add_argument("--checker-api-base", help="base URL for a checker other than the machine's model")
    parser.add_argument(
        "--checker-max-tokens", type=positive, help=_default("the checker's token limit", CHECKER_SETTINGS["max_tokens"])
    )
    parser.add_argument(
        "--checker-temperature", type=float, help=_default("the checker's temperature", CHECKER_SETTINGS["temperature"])
    )
    parser.add_argument(
        "--learn-gate",
        action=argparse.BooleanOptionalAction,
        help="keep a session's context only if validation accuracy passes --learn-rule (default: off)",
    )
    for name, text in WORDED.items():
        parser.add_argument(f"--{name.replace('_', '-')}", choices=CHOICES[name], help=_default(text, getattr(d, name)))
    parser.add_argument(
        "--evaluate",
        action=argparse.BooleanOptionalAction,
        help="measure the machine on the test split: start, after kept sessions, end (default: off)",
    )
    parser.add_argument(
        "--preset",
        choices=presets.names(),
        help="the settings of a paper's experiment (docs/FIDELITY.md); options given beside it win",
    )
    parser.add_argument(
        "--repeat",
        type=positive,
        metavar="R",
        help=_default("R runs of this configuration as one experiment, concurrently", REPEAT),
    )
    parser.add_argument("--experiment", metavar="NAME", help="the experiment id of the run(s) (default: new with --repeat)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    # An option left out is absent from the parsed arguments (RunConfig's default, or the preset's, applies), so
    # that a preset knows which of its values the researcher replaced.
    fields_ = {f.name for f in fields(RunConfig)} | {"repeat", "human"}
    for action in parser._actions:
        if action.dest in fields_:
            action.default = argparse.SUPPRESS


def config_of(args: argparse.Namespace) -> RunConfig:
    """The run ``pxp run``'s options describe: every RunConfig field is the option of the same name; with
    ``--preset``, the preset's values where no option was given."""
    options = {f.name: getattr(args, f.name) for f in fields(RunConfig) if hasattr(args, f.name)}
    if hasattr(args, "human"):  # else the preset's seat, or the proxy
        human_kind, name = parse_human(args.human)
        options["human_kind"] = human_kind
        options["expert"] = name if human_kind is HumanKind.LIVE else None
        options["human_model"] = name if human_kind is HumanKind.MODEL else None
    if getattr(args, "preset", None):
        if hasattr(args, "repeat"):
            options["repeat"] = args.repeat
        values, overridden = presets.apply(args.preset, options)
        args.repeat = values.pop("repeat", REPEAT)
        options = {**values, "preset_overrides": overridden or None}
    return RunConfig(**options)


def repeat_of(args: argparse.Namespace) -> int:
    """How many runs: ``--repeat``, else the preset's, else one."""
    return int(getattr(args, "repeat", REPEAT))


def main(args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import Blackboard
    from pxp_tui.runs.create import create_run

    if args.resume and repeat_of(args) > 1:
        raise ValueError("--resume continues one run: leave out --repeat")
    config = None if args.resume else config_of(args)  # with --preset, sets args.repeat
    repeat = repeat_of(args)
    if repeat > 1 and config is not None and config.human_kind.interactive:
        raise ValueError(
            f"an experiment of {repeat} runs goes on headless, without a live expert: use --human proxy or --repeat 1"
        )
    if not args.headless and repeat <= 1:  # the app: refused here, before the run is made, where it cannot be seen
        from pxp_tui.app.shell.launch import require_terminal

        require_terminal()
    board = Blackboard.open(args.db)
    with board:
        if args.resume:
            run_id = args.resume
            run = board.run(run_id)
            if run.finished:
                raise ValueError(f"run {run_id} is already finished")
            from pxp_tui.runs.copies import check_resumable

            check_resumable(run)
        else:
            assert config is not None
            if config.human_kind.interactive and args.headless:
                raise ValueError("a live expert answers in the app: leave out --headless (or use --human proxy)")
            if repeat > 1:  # an experiment runs headless: the app shows one run at a time
                return drive_experiment(board, config, args, repeat)
            run_id = create_run(board, config)
        if args.headless:
            return _drive(board, run_id, args)
    from pxp_tui.app.shell.launch import run_app

    return run_app(args.db, run_id)


def _dotenv_notice() -> None:
    """Say which variables of ``.env`` are not read (only providers' keys are)."""
    from pxp_tui.agents.llm import DOTENV_SETTING, load_dotenv

    ignored = load_dotenv()
    if ignored:
        print(
            f"pxp: .env: not read: {', '.join(ignored)} (only providers' keys are read from .env; give a base URL"
            f" with --api-base, or set {DOTENV_SETTING}=all to read all of .env)",
            file=sys.stderr,
        )


def _drive(board: Any, run_id: int, args: argparse.Namespace) -> int:
    from pxp_tui.blackboard import WriteError
    from pxp_tui.blackboard.metrics import counts_of, run_rows
    from pxp_tui.common.models import model_label
    from pxp_tui.engine import AgentError
    from pxp_tui.engine.stopping import StopSignalError, until_stopped
    from pxp_tui.engine.writes import at_once
    from pxp_tui.report import table
    from pxp_tui.runs.execute import execute

    run = board.run(run_id)
    print(
        f"run {run_id}: {run.config.task} on {run.config.dataset}, machine {model_label(run.config.model)}, human {run.human}, "
        f"n={run.config.n} k={run.config.k}{rules(run.config)}, {len(run.plan)} session{'s' if len(run.plan) != 1 else ''} -> {args.db}",
        flush=True,
    )
    _dotenv_notice()
    observer = None if args.quiet else SessionLines()
    resume_hint = f"resume with: {resume_command(run_id, args.db)}"
    # nothing but the run waits on this loop: each write on its thread, costing a message no more than its commit
    work = execute(board, run_id, observer=observer, on_evaluation=None if args.quiet else evaluation_line, store=at_once)
    try:
        asyncio.run(until_stopped(work))
    except AgentError as exc:
        print(f"pxp: run {run_id} paused: {exc.cause}\n{resume_hint}", file=sys.stderr)
        return 1
    except WriteError as exc:  # e.g. the disk is full: the message being written was rolled back whole
        say(f"pxp: run {run_id} paused: {exc}; every message before it is kept\n{resume_hint}")
        return 1
    except StopSignalError as stop:
        say(f"pxp: run {run_id} paused: {stop.reason}; {resume_hint}")
        return 128 + stop.signum
    except KeyboardInterrupt:
        print(f"pxp: run {run_id} interrupted; {resume_hint}", file=sys.stderr)
        return 130
    rows = run_rows(board, [run_id])
    print()
    print(table.text([table.heading(run_id, run.config.task, run.human)], [counts_of(rows[0])]))
    return 0
