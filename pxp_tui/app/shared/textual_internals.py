"""The app's one door to Textual's private parts: every use of them is here, each saying what it relies on.

Textual's public API has no way to do these things; each is small and checked by a canary test
(``tests/app/test_internals.py``) that names Textual's release when one moves. ``pyproject.toml`` admits
every release the canaries pass on (``textual>=7,<9``; ``.ci/oldest.txt`` pins the oldest).

Importing this module imports nothing Textual has not already imported for the first frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Footer

# Relies on: ``textual.widgets._footer.FooterKey``, the widget of one key in ``Footer``, built as
# ``FooterKey(key, key_display, description, action, disabled=, tooltip=)``, with the attributes ``key``,
# ``key_display``, ``description`` and ``action``, the class ``-command-palette`` on the palette's key and
# ``-compact`` in a compact footer. The footers fit and update these widgets in place (``fitting_footer.py``,
# ``session/quick_footer.py``); Textual exports only ``Footer``.
from textual.widgets._footer import FooterKey

__all__ = [
    "FooterKey",
    "declared_bindings",
    "footer_bindings_ready",
    "has_unhandled_messages",
    "mark_footer_bindings_ready",
    "running_app",
    "set_footer_key_disabled",
    "terminal_events",
    "web_writes_whole",
]


def set_footer_key_disabled(key: FooterKey, disabled: bool) -> None:
    """Enable or disable a footer key in place (the quick footer; Textual's ``Footer`` mounts new keys instead).

    Relies on: ``FooterKey._disabled``, set from ``disabled=`` when the key is built and read when it is
    clicked (a disabled key rings the bell instead of pressing its key), with the class ``-disabled`` (dim)
    beside it.
    """
    key._disabled = disabled
    key.set_class(disabled, "-disabled")


def footer_bindings_ready(footer: Footer) -> bool:
    """Whether ``footer`` (a ``Footer``) has been told its screen's bindings at least once.

    Relies on: ``Footer._bindings_ready``, a reactive set by ``Footer.bindings_changed``; ``Footer.compose``
    yields no key before it is set.
    """
    return footer._bindings_ready


def mark_footer_bindings_ready(footer: Footer) -> None:
    """Say that ``footer`` has been told its screen's bindings (a footer that overrides ``bindings_changed``).

    Relies on: ``Footer._bindings_ready`` (see :func:`footer_bindings_ready`).
    """
    footer._bindings_ready = True


def running_app() -> Any | None:
    """The Textual app running in this context (a widget's, a worker's), or None outside any app.

    Relies on: ``textual._context.active_app``, the context variable Textual sets for its app (what
    ``Widget.app`` reads); a function with no widget at hand (the tags' colours for a Rich table) has no other way.
    """
    from textual._context import active_app

    try:
        return active_app.get()
    except LookupError:
        return None


def declared_bindings(node: DOMNode) -> Iterator[Binding]:
    """Every binding of ``node`` (the help screen and the palette list them): those its class and the classes it
    derives from declare in ``BINDINGS``, and those bound to it since (``bind``).

    Relies on: ``DOMNode._bindings``, the ``BindingsMap`` Textual merges for each node, whose
    ``key_to_bindings`` maps each key to its bindings.
    """
    for bindings in node._bindings.key_to_bindings.values():
        yield from bindings


def has_unhandled_messages(widget: Widget) -> bool:
    """Whether ``widget`` has messages queued and not yet handled (a new size, content or style to report).

    Relies on: ``MessagePump._message_queue``, the ``asyncio.Queue`` each widget's messages wait in. The session
    screen's frame waits until its widgets have handled theirs (``session/same_frame.py``).
    """
    return not widget._message_queue.empty()


def terminal_events(text: str) -> list[Any]:
    """The events Textual's terminal driver makes of ``text`` read from the keyboard (keys, pastes, mouse), in order.

    Relies on: ``textual._xterm_parser.XTermParser()``, the parser each terminal driver reads its input with, whose
    ``feed(text)`` yields the events of ``text`` and ``feed("")`` (the end of input) those of a sequence left
    unfinished (a lone escape: the escape key).
    """
    if not text:
        return []
    from textual._xterm_parser import XTermParser

    parser = XTermParser()
    return [*parser.feed(text), *parser.feed("")]


def web_writes_whole(app: Any) -> None:
    """Make the web driver's writes whole, one at a time (once; nothing under another driver).

    Under the web driver (``pxp serve``) the app's frames are written from its main thread while a file's pieces,
    asked for by the server, are written from the input thread, each a packet on the same pipe. A write larger than
    the pipe's buffer is made in parts as the server reads, and another thread's packet could land between them:
    the server then reads no packet whole again, and the file (the picture ``v`` opens) never arrives.

    Relies on: ``App._driver``, and the web driver's ``_write(data)``, through which ``write``, ``write_meta`` and
    ``write_binary_encoded`` each write one packet (``os.write`` on its stdout, unlocked).
    """
    driver = getattr(app, "_driver", None)
    write = getattr(driver, "_write", None)
    if driver is None or write is None or not getattr(driver, "is_web", False) or getattr(write, "whole", False):
        return
    import threading

    lock = threading.Lock()

    def whole(data: bytes) -> int:
        with lock:
            view = memoryview(data)
            while view:
                view = view[write(view) :]
        return len(data)

    whole.whole = True  # type: ignore[attr-defined]
    driver._write = whole
