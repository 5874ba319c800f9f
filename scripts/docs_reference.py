"""The docs' reference tables, written by the code they describe: ``python scripts/docs_reference.py``.

Each table is a block between ``<!-- reference:NAME -->`` and ``<!-- /reference:NAME -->`` on its page (the
block mechanism of ``benchmarks/docs_section.py``); the prose around it is kept by hand. The blocks:

- ``keys`` (docs/keys.md): every binding pxp declares, per screen, dialog or widget (its keys, what it does, its
  id), from the classes' ``BINDINGS``, and the keys whose meaning is the focus's (``app/shell/keymap.py``);
- ``run-evince``, ``run-learn`` (docs/machine-machine.md, docs/tasks-and-data.md) and ``import`` (docs/tasks-and-data.md):
  options of ``pxp run`` and ``pxp import`` with their defaults, from the parsers (whose defaults are RunConfig's);
- ``states`` (docs/ARCHITECTURE.md): the session screen's moves, from ``states.TRANSITIONS`` and ``states.WHY``;
- ``presets`` (docs/experiments.md): every preset's settings, from ``runs.presets.PRESETS``.

``--check`` writes nothing: it names each block that differs from what the code writes and exits 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KIND = "reference"


def _docs_section() -> Any:
    """benchmarks/docs_section.py, which holds the block mechanism (the benchmarks' blocks use it too)."""
    spec = importlib.util.spec_from_file_location("docs_section", ROOT / "benchmarks" / "docs_section.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cell(text: object) -> str:
    """``text`` in one Markdown table cell: one line, its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


# -- keys ------------------------------------------------------------------------------------------------


def app_classes() -> list[type]:
    """Every screen, dialog, widget and app class defined in pxp_tui.app, in the order of their modules."""
    from textual.dom import DOMNode

    import pxp_tui.app

    found = []
    for info in pkgutil.walk_packages(pxp_tui.app.__path__, "pxp_tui.app."):
        module = import_module(info.name)
        classes = [cls for _, cls in inspect.getmembers(module, inspect.isclass) if cls.__module__ == module.__name__]
        found += sorted((cls for cls in classes if issubclass(cls, DOMNode)), key=lambda cls: inspect.getsourcelines(cls)[1])
    return found


def key_display(key: str) -> str:
    """A key as typed: a character as itself (``?``, ``+``), a named key by its name (``enter``, ``left``, ``f1``),
    modifiers spelled out (``ctrl+s``)."""
    from textual.keys import format_key

    *modifiers, name = key.split("+")
    shown = format_key(name)
    return "+".join([*modifiers, shown if len(shown) == 1 and shown.isascii() and shown.isprintable() else name])


def where(cls: type) -> str:
    """Where a class's keys apply, in the words of the help screen (``app/shell/keys.py``)."""
    from textual.app import App
    from textual.screen import ModalScreen, Screen

    if issubclass(cls, App):
        return f"everywhere (`{cls.__name__}`)"
    place = cls.__dict__.get("keys_where")
    kind = "dialog" if issubclass(cls, ModalScreen) else "screen" if issubclass(cls, Screen) else "widget"
    return f"`{cls.__name__}` ({place or kind})"


def keys_block() -> str:
    from textual.binding import Binding

    from pxp_tui.app.shell.keymap import CONTEXTUAL

    rows = []
    for cls in sorted(app_classes(), key=lambda cls: not where(cls).startswith("everywhere")):  # the app's keys first
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding):
                shown = binding.key_display or ", ".join(key_display(key.strip()) for key in binding.key.split(","))
                rows.append((where(cls), shown, binding.description, f"`{binding.id}`"))
    contextual = [(key_display(key), text) for key, text in CONTEXTUAL.items()]
    return "\n\n".join(
        [
            table(["where", "key", "what it does", "id"], rows),
            "Keys whose meaning is what has the focus, or what the footer says at that moment:",
            table(["key", "what it does"], contextual),
        ]
    )


# -- options ---------------------------------------------------------------------------------------------

DEFAULT = re.compile(r"\s*\(default: (?P<default>[^()]*(?:\([^()]*\)[^()]*)*)\)$")


def options(command: str, names: Iterable[str] | None = None) -> list[tuple[str, str, str]]:
    """``pxp COMMAND``'s options (those named, in that order; all of them when None): the option as typed, its
    default (as its help says it), what it does."""
    from pxp_tui.cli.common import positive
    from pxp_tui.cli.main import parser

    root = parser(command)
    sub = next(action for action in root._actions if isinstance(action, argparse._SubParsersAction))
    every = [action for action in sub.choices[command]._actions if action.option_strings and action.help]
    actions = {string: action for action in every for string in action.option_strings}
    rows = []
    for name in (
        names if names is not None else [action.option_strings[0] for action in every if action.dest not in ("help", "db")]
    ):
        action = actions[name]
        typed = name
        if action.choices:
            typed += " " + "|".join(str(choice) for choice in action.choices)
        elif action.nargs != 0:
            typed += " " + (
                action.metavar or {float: "X", int: "N"}.get(action.type, "N" if action.type is positive else action.dest.upper())
            )
        if isinstance(action, argparse.BooleanOptionalAction):
            typed = f"{name}, --no-{name[2:]}"
        help_text = str(action.help).replace("%%", "%")
        found = DEFAULT.search(help_text)
        default = found.group("default") if found else ""
        rows.append(
            (
                f"`{typed}`",
                f"`{default}`" if default and " " not in default else default,
                help_text[: found.start()] if found else help_text,
            )
        )
    return rows


def options_block(command: str, names: Iterable[str] | None = None) -> str:
    return table(["option", "default", "what it does"], options(command, names))


EVINCE_OPTIONS = [
    "--human",
    "--human-temperature",
    "--human-api-base",
    "--top-k",
    "--contentiousness",
    "--contentiousness-decay",
    "--stop",
    "--evince-rule",
    "--evince-mi",
    "--stop-tolerance",
    "--smoothing",
    "--ground-metric",
    "--final-weights",
    "--aggregation",
]
LEARN_OPTIONS = ["--learn-gate", "--learn-metric", "--learn-rule", "--learn-first", "--evaluate", "--context", "--split"]


# -- states and presets ----------------------------------------------------------------------------------


def states_block() -> str:
    """The session screen's moves: a row per reason, the states it moves from grouped."""
    from pxp_tui.app.session.states import TRANSITIONS, WHY, SessionState

    order = list(SessionState)
    grouped: dict[tuple[SessionState, str], list[SessionState]] = {}
    for source in order:
        for target in sorted(TRANSITIONS[source], key=order.index):
            grouped.setdefault((target, WHY[source, target]), []).append(source)
    rows, last = [], []
    for (target, why), sources in grouped.items():
        if sources == [state for state in order if state is not target] and len(sources) > 2:
            last.append((f"every state but `{target.value}`", f"`{target.value}`", why))
        else:
            rows.append((", ".join(f"`{state.value}`" for state in sources), f"`{target.value}`", why))
    rows.sort(key=lambda row: order.index(SessionState(row[0].split("`")[1])))
    rows += last
    return table(["from", "to", "when"], rows)


def presets_block() -> str:
    """Every preset's settings: a row per setting, a column per preset (empty: the preset leaves it to the option)."""
    from pxp_tui.common.kinds import HumanKind
    from pxp_tui.runs.presets import PRESETS

    names = list(PRESETS)
    fields = list(dict.fromkeys(field for preset in PRESETS.values() for field in preset))

    def shown(value: object) -> str:
        if isinstance(value, HumanKind):
            return value.value
        return "none" if value is None else f"`{value}`"

    rows = [
        [f"`{field}`", *(shown(PRESETS[name][field].value) if field in PRESETS[name] else "" for name in names)]
        for field in fields
    ]
    return table(["setting", *(f"`{name}`" for name in names)], rows)


#: block name -> (its page, what writes it)
BLOCKS: dict[str, tuple[str, Callable[[], str]]] = {
    "keys": ("docs/keys.md", keys_block),
    "presets": ("docs/experiments.md", presets_block),
    "run-evince": ("docs/machine-machine.md", lambda: options_block("run", EVINCE_OPTIONS)),
    "run-learn": ("docs/tasks-and-data.md", lambda: options_block("run", LEARN_OPTIONS)),
    "import": ("docs/tasks-and-data.md", lambda: options_block("import")),
    "states": ("docs/ARCHITECTURE.md", states_block),
}


def written(root: Path = ROOT) -> dict[Path, tuple[str, str]]:
    """Each page's text now and as the code writes it."""
    docs = _docs_section()
    pages: dict[Path, tuple[str, str]] = {}
    for name, (page, write) in BLOCKS.items():
        path = root / page
        old, new = pages.get(path, (path.read_text(),) * 2)
        try:
            new = docs.replace_block(new, KIND, name, write())
        except LookupError as exc:  # a page without the block's markers
            raise SystemExit(f"{page}: {exc}: put the block's two marker lines where the table goes") from None
        pages[path] = (old, new)
    return pages


def differing(root: Path = ROOT) -> list[str]:
    """The blocks whose text differs from what the code writes: ``page: reference:NAME``."""
    docs = _docs_section()
    pages = written(root)
    return [
        f"{page}: {KIND}:{name}"
        for name, (page, _) in BLOCKS.items()
        if docs.block(pages[root / page][0], KIND, name) != docs.block(pages[root / page][1], KIND, name)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each block that differs")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # a copy of the docs, for the tests
    args = parser.parse_args(argv)
    if args.check:
        stale = differing(args.root)
        for name in stale:
            print(f"{name}: differs from what the code writes (python scripts/docs_reference.py rewrites it)", file=sys.stderr)
        return 1 if stale else 0
    for path, (old, new) in written(args.root).items():
        if new != old:
            path.write_text(new)
            print(f"wrote {path.relative_to(args.root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
