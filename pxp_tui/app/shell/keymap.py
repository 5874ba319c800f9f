"""One key map: a key means one thing on every screen, and a letter is text wherever text is typed.

A binding's meaning is the last part of its id (``session.note`` and ``review.sessions.note`` both
mean ``note``), or the meaning :data:`SAME` gives it. A key bound to two meanings is a conflict,
unless it is :data:`CONTEXTUAL`: keys whose meaning is what has the focus or what the footer says at
that moment (escape, enter, the arrows), none of them a letter. A dialog's own keys (``y``/``n`` of
a yes-or-no question, written on its buttons) apply while it is open, when no screen behind it gets
a key: they may mean something else on a screen, never something else than an app-wide key.
docs/keys.md lists the map as one table.

A widget in which the expert types (a text field, an editor, a list that filters by what is typed:
``takes_typing = True``) takes every printable key: no single-key shortcut fires while it has the
focus (:func:`takes_typing`).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Input, TextArea

#: keys whose meaning is the focused widget's or the footer's at that moment
CONTEXTUAL: dict[str, str] = {
    "escape": "back or close (never cancels the machine): the footer says which",
    "enter": "open, choose or go on: the footer says which",
    "tab": "the next field (in the picture viewer: target / proposal)",
    "shift+tab": "the previous field",
    "up": "up in what has the focus",
    "down": "down in what has the focus",
    "left": "left, or the previous message",
    "right": "right, or the next message",
    "home": "the start: of a line, of a replay, of the picture",
    "end": "the end: of a line, of a replay",
    "space": "the next message (replay)",
}

#: ids (or their last parts) that differ but mean one thing
SAME: dict[str, str] = {
    "send": "submit",  # ctrl+s: send the answer, save the note, start the run
    "save": "submit",
    "start": "submit",
    "help.close": "help",  # ? opens the help and closes it
}

APP, SCREEN, DIALOG = "app", "screen", "dialog"


def meaning(binding: Binding) -> str:
    name = binding.id or binding.action
    last = name.rsplit(".", 1)[-1]
    return SAME.get(name, SAME.get(last, last))


def keys(binding: Binding) -> list[str]:
    return [k.strip() for k in binding.key.split(",") if k.strip()]


def scope(owner: type[DOMNode]) -> str:
    """Where a class's bindings apply: the whole app, a dialog (a modal screen), or a screen and its widgets."""
    from textual.app import App
    from textual.screen import ModalScreen

    return APP if issubclass(owner, App) else DIALOG if issubclass(owner, ModalScreen) else SCREEN


def conflicts(bindings: list[tuple[type[DOMNode], Binding]]) -> dict[str, dict[str, list[str]]]:
    """The keys with two meanings at once: key -> meaning -> the classes that bind it so.

    Screens and the app share one map; a dialog may reuse a screen's key, not an app-wide one.
    """
    found: dict[str, dict[str, dict[str, list[str]]]] = {}
    for owner, binding in bindings:
        for key in keys(binding):
            if key not in CONTEXTUAL:
                where = found.setdefault(key, {}).setdefault(scope(owner), {})
                where.setdefault(meaning(binding), []).append(owner.__name__)
    bad: dict[str, dict[str, list[str]]] = {}
    for key, scopes in found.items():
        app, screens, dialogs = (scopes.get(name, {}) for name in (APP, SCREEN, DIALOG))
        shared = {name: app.get(name, []) + screens.get(name, []) for name in {*app, *screens}}
        if len(shared) > 1:
            bad[key] = shared
        for name, owners in dialogs.items():
            if app and name not in app:
                bad[key] = {**app, name: owners}
    return bad


def takes_typing(node: DOMNode | None) -> bool:
    """Whether ``node`` is where the expert types: a printable key there is text, never a shortcut."""
    return isinstance(node, (Input, TextArea)) or bool(getattr(node, "takes_typing", False))
