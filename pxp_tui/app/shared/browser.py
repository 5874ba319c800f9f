"""Keys in a browser tab (``pxp serve``): those the browser keeps, and a second key for each action bound to one.

A browser takes some keys before the page sees them (Chrome never gives a page ctrl+n, ctrl+t, ctrl+w or
ctrl+tab), and gives others to the browser's own action where the page does not stop it (ctrl+s saves the page,
ctrl+r reloads it, ctrl+o opens a file, ctrl+p prints). So each of pxp's actions bound to such a key has a second
one, an alt+letter, which reaches the page's terminal in every browser (xterm.js sends it as ESC and the letter;
on macOS the page makes Option the Meta key). Both keys work everywhere; :func:`served_keys` puts the browser's first in
a browser tab, where the footer and the help (``?``) show it, and the terminal's first in a terminal; :func:`named_key`
is the key the app's texts name. ``tests/app/test_browser_keys.py`` checks every binding against :data:`BROWSER_KEYS`.
"""

from __future__ import annotations

import os

#: keys Chrome (and most browsers) keep for themselves: a page never receives them
RESERVED = {
    "ctrl+n": "a new window",
    "ctrl+shift+n": "a new private window",
    "ctrl+t": "a new tab",
    "ctrl+shift+t": "the tab closed last",
    "ctrl+w": "closes the tab",
    "ctrl+shift+w": "closes the window",
    "ctrl+tab": "the next tab",
    "ctrl+shift+tab": "the previous tab",
    "ctrl+pagedown": "the next tab",
    "ctrl+pageup": "the previous tab",
    "alt+f4": "closes the window",
    "f11": "full screen",
}
#: keys the browser acts on where the page does not stop them first (or where the page has not the focus)
TAKEN = {
    "ctrl+s": "saves the page",
    "ctrl+r": "reloads the page",
    "f5": "reloads the page",
    "ctrl+o": "opens a file",
    "ctrl+p": "prints",
    "ctrl+f": "finds in the page",
    "f3": "finds the next",
    "ctrl+g": "finds the next",
    "ctrl+l": "the address bar",
    "alt+d": "the address bar",
    "f6": "the address bar",
    "ctrl+d": "bookmarks the page",
    "ctrl+h": "the history",
    "ctrl+j": "the downloads",
    "f1": "the browser's help",
    "f7": "caret browsing",
    "f12": "the developer tools",
    "alt+left": "back: leaves the page",
    "alt+right": "forward",
    "alt+home": "the home page",
    "alt+f": "the browser's menu",
    "alt+e": "the browser's menu",
}
BROWSER_KEYS = {**RESERVED, **TAKEN}

#: the actions bound to a key the browser keeps: (the terminal's key, the browser tab's)
SUBMIT = ("ctrl+s", "alt+s")  # send the answer, start the run, save the note
RESUME = ("ctrl+r", "alt+r")
REVIEW = ("ctrl+o", "alt+o")
NEW_RUN = ("ctrl+n", "alt+n")
FILTER = ("ctrl+f", "alt+c")  # the review's filter by class
REFRESH = ("f5", "alt+u")  # the review's lists read again (update)
PALETTE = ("ctrl+p", "alt+p")  # Textual's command palette
CANCEL_CALL = ("ctrl+g", "alt+g")  # cancel the machine's pending call (asks first)
DELETE_WORD = ("ctrl+w", "ctrl+backspace")  # in the explanation: the word before the cursor


def in_browser(env: dict[str, str] | None = None) -> bool:
    """Whether the app runs in a browser tab (``pxp serve``): textual-serve starts it with Textual's web driver."""
    return "web_driver" in (os.environ if env is None else env).get("TEXTUAL_DRIVER", "")


def served_keys(keys: tuple[str, str]) -> str:
    """A binding's keys (``SUBMIT``...): both, the browser's first in a browser tab (the footer and the help show the
    first), the terminal's first elsewhere."""
    terminal, browser = keys
    return f"{browser},{terminal}" if in_browser() else f"{terminal},{browser}"


def named_key(keys: tuple[str, str]) -> str:
    """The key the app's texts name for ``keys``: the browser's in a browser tab, else the terminal's."""
    terminal, browser = keys
    return browser if in_browser() else terminal


def reach_the_page(keys: list[str]) -> list[str]:
    """Those of ``keys`` (a binding's) a browser tab gives the app: none of :data:`BROWSER_KEYS`."""
    return [key for key in keys if key not in BROWSER_KEYS]
