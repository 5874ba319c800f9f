"""Keys handled one after the other, each by the widget that has the focus when its turn comes.

Textual hands a key to the focused widget's message queue and checks most bindings (``tab``, a screen's
``ctrl+s``) only once the key has bubbled back up to the app, through the queue of every container on the way.
Keys typed in one burst reach the app together, so the app hands each of them to the widget focused when it
arrives, before the keys ahead of it have been handled: the characters typed after ``tab`` went into the field
``tab`` was leaving, and those typed after a click or a choice in a list went where the focus had been.

:class:`KeysInOrder`, mixed into the apps, lets one key (or paste) at a time go down to the focused widget, and
sends a :class:`KeyHandled` after it along the same way up: when it reaches the app, everything the key started
on its way has been handled (the focus moved, the field filled, the binding run), and the next key goes to the
widget focused now. A character typed into a text field, which the field takes and stops, needs no such wait:
the keys after it follow at once, as before. Mouse events keep their place among the keys. A screen that is not ready
for keys (the start form before its fields are mounted) says so with ``takes_keys()``; the keys typed
meanwhile wait, in order, for its :class:`KeysWelcome`. Keys typed before the app read the keyboard come first
(``typed_ahead.py``).
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from textual import events
from textual.message import Message

from pxp_tui.app.shared import typed_ahead
from pxp_tui.app.shared.textual_internals import has_unhandled_messages

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

    _AppBase = App[Any]
else:
    _AppBase = object

#: seconds after which a key whose follower has not come back no longer holds the next ones (a widget removed
#: with the follower in its queue, a handler that never returns): a bound against a keyboard that stops, not a wait
GIVE_UP = 10.0
#: how many times a key's follower goes up after it, while the widgets on its way still have messages to handle
ROUNDS = 3
#: seconds between two looks at a key out while others wait behind it
LOOK_AGAIN = 0.25


#: Textual's text fields, which take a character typed and stop it there
TEXT_FIELDS = frozenset({"Input", "TextArea"})


def _typed_into(event: events.Event, target: Any) -> bool:
    """Whether ``event`` is a character ``target``, a text field, takes as typed (and stops there): the keys after it
    can go at once, to the same field (a burst of typing costs no more than before). By the classes' names: importing
    ``TextArea`` to compare with would cost the first key a tenth of a second."""
    if not (isinstance(event, events.Key) and event.is_printable):
        return False
    return any(cls.__name__ in TEXT_FIELDS and cls.__module__.startswith("textual.widgets") for cls in type(target).__mro__)


def _still_busy(*widgets: Any) -> bool:
    """Whether a widget on the way from one of ``widgets`` up to its screen has messages waiting to be handled."""
    return any(
        has_unhandled_messages(node)
        for widget in widgets
        if widget is not None
        for node in widget.ancestors_with_self
        if node is not widget.app
    )


class KeyHandled(Message, bubble=True):
    """Sent after a key along its way up to the app: when it arrives, the key before it has been handled."""

    def __init__(self, key: int, rounds: int = 1) -> None:
        super().__init__()
        self.key = key
        self.rounds = rounds


class KeysWelcome(Message):
    """Posted to the app by a screen that now takes keys (see :meth:`KeysInOrder.takes_keys`)."""


def takes_keys(screen: Any) -> bool:
    """Whether ``screen`` handles keys now: its ``takes_keys()`` if it has one, else yes."""
    ready = getattr(screen, "takes_keys", None)
    return True if ready is None else bool(ready())


class KeysInOrder(_AppBase):
    """Mixed into the apps: keys, pastes and clicks handled in the order typed (see the module)."""

    def get_driver_class(self) -> Any:
        """Textual's driver, handing the app the keys typed before it read the keyboard (``typed_ahead.py``)."""
        return typed_ahead.driver_class(super().get_driver_class())

    _waiting: deque[events.Event] | None = None
    _in_flight: tuple[int, DOMNode, float] | None = None  # the key out: its number, where it went, when
    _sent = 0

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseEvent, events.Paste)) and not event.is_forwarded:
            if self._waiting is None:
                self._waiting = deque()
            if isinstance(event, events.MouseEvent) and not self._waiting and self._in_flight is None:
                await super().on_event(event)  # nothing ahead of it: at once (most mouse moves)
                return
            self._waiting.append(event)
            await self._next()
            return
        await super().on_event(event)

    def on_key_handled(self, message: KeyHandled) -> None:
        message.stop()
        if self._in_flight is None or self._in_flight[0] != message.key:
            return  # the follower of a key given up on
        key, target, since = self._in_flight
        if message.rounds < ROUNDS and _still_busy(target, self.focused):
            # what the key made its widgets post each other (a list's choice, then its field's change) is still on
            # its way: once more, behind it
            self._in_flight = (key, self.focused or self.screen, since)
            self._in_flight[1].post_message(KeyHandled(key, message.rounds + 1))
            return
        self._in_flight = None
        self.call_next(self._next)

    def on_keys_welcome(self, message: KeysWelcome) -> None:
        self.call_next(self._next)

    def watch_app_focus(self, focus: bool) -> None:
        """When the app gets the focus with nothing focused, its screen's first field takes it, as when the screen is
        composed in a focused app: in a browser tab the app starts blurred (the page not focused yet), so Textual focused
        nothing as the start screen was composed, and gave back on focus (or on the first key) only what had the focus
        before, nothing: the first keys went to no field (a tab to the last)."""
        if not focus or not self.screen_stack:
            return
        screen = self.screen
        auto = screen.AUTO_FOCUS if screen.AUTO_FOCUS is not None else self.AUTO_FOCUS
        if screen.focused is None and auto:
            found = next((widget for widget in screen.query(auto) if widget.focusable), None)
            if found is not None:
                screen.set_focus(found, scroll_visible=False)

    async def _next(self) -> None:
        """Hand the waiting events on, in order, until one is a key (or paste) being handled."""
        waiting = self._waiting
        while waiting:
            if self._holding():
                self._look_again()
                return
            event = waiting[0]
            if not isinstance(event, events.MouseEvent) and not takes_keys(self.screen):
                return  # the screen's KeysWelcome calls again
            waiting.popleft()
            if isinstance(event, events.MouseEvent):
                await super().on_event(event)
                continue
            target = self.focused or self.screen  # where Textual hands it (unless a priority binding takes it)
            await super().on_event(event)
            if event.is_forwarded and not _typed_into(event, target):  # on its way through the widgets' queues
                self._sent += 1
                self._in_flight = (self._sent, target, time.monotonic())
                target.post_message(KeyHandled(self._sent))

    _looking = False

    def _look_again(self) -> None:
        """Look again in a moment whether the key out is still being handled: its follower may never come back
        (its widget removed meanwhile), and the keys behind it would wait for the next one typed."""
        if not self._looking:
            self._looking = True
            self.set_timer(LOOK_AGAIN, self._looked)

    def _looked(self) -> None:
        self._looking = False
        self.call_later(self._next)  # in the app's own turn, not the timer's task

    def _holding(self) -> bool:
        """Whether a key is still being handled (not given up on: see :data:`GIVE_UP`)."""
        if self._in_flight is None:
            return False
        _, target, since = self._in_flight
        if target.is_attached and time.monotonic() - since < GIVE_UP:
            return True
        self._in_flight = None
        return False
