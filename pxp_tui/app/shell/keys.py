"""Every key of the app, read from the bindings themselves (the help screen and the command palette use it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen

from pxp_tui.app.shared.textual_internals import declared_bindings


@dataclass(frozen=True)
class KeyRow:
    """One binding: its keys as displayed, what it does, where it applies, and its id (for keymaps)."""

    keys: str
    description: str
    where: str
    id: str | None
    action: str


def _where(node: DOMNode) -> str:
    if isinstance(node, App):
        return "everywhere"
    where = getattr(node, "keys_where", None)  # widgets that share their keys' place (the answer fields)
    if isinstance(where, str):
        return where
    name = type(node).__name__
    return name.removesuffix("Screen").lower() + (" screen" if isinstance(node, Screen) else "")


def _bindings(node: DOMNode) -> Iterable[Binding]:
    """The node's bindings declared by pxp (not those it inherits from Textual)."""
    ours = {
        binding.id
        for cls in type(node).__mro__
        if cls.__module__.startswith("pxp_tui")
        for binding in cls.__dict__.get("BINDINGS", ())
        if isinstance(binding, Binding) and binding.id
    }
    yield from (b for b in declared_bindings(node) if b.id in ours)


def key_rows(app: App, screen: Screen) -> list[KeyRow]:
    """The bindings pxp declares on the app, ``screen`` and its widgets, one row per action."""
    rows: dict[tuple[str, str], KeyRow] = {}
    seen: set[type] = set()
    for node in (app, screen, *screen.walk_children()):
        if type(node) in seen or not type(node).__module__.startswith("pxp_tui"):
            continue
        seen.add(type(node))
        for binding in _bindings(node):
            if binding.system or not binding.description:
                continue
            where = _where(node)
            key = app.get_key_display(binding)
            found = rows.get((where, binding.action))
            keys = key if found is None else found.keys if key in found.keys.split(", ") else f"{found.keys}, {key}"
            rows[(where, binding.action)] = KeyRow(keys, binding.description, where, binding.id, binding.action)
    return list(rows.values())
