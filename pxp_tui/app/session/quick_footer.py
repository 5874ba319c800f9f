"""A footer whose keys are those of the frame it is painted in: shown, hidden, enabled and disabled in place.

Textual's ``Footer`` removes and mounts every key after the frame in which the screen's bindings changed
(a state's change, a focus change): for a frame, and longer while the new keys mount, it offers the keys
of the state before (at a session's outcome, the answer's keys over the outcome). This footer keeps the
keys it has mounted (every key it has shown, those not active now hidden, each in its place from turn to
turn) and updates them when told (``refresh_bindings()``), at once: the frame that shows a new state
shows its keys. It mounts, hidden, every key the screen, its widgets and the app declare for the footer
from the start (a key first shown at a session's outcome would otherwise be mounted then, a frame or
two late), and composes them again only when a key it does not hold appears (or the keys are grouped,
where it does as ``Footer`` does).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from pxp_tui.app.shared.fitting_footer import FittingFooter
from pxp_tui.app.shared.textual_internals import (
    FooterKey,
    declared_bindings,
    footer_bindings_ready,
    mark_footer_bindings_ready,
    set_footer_key_disabled,
)


class QuickFooter(FittingFooter):
    """``FittingFooter``, updated in place when the same keys are shown, hidden, enabled or disabled."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._known: dict[tuple[str, str], tuple[Binding, str]] = {}  # every key shown so far, in order

    def _active(self) -> dict[tuple[str, str], tuple[Binding, bool, str]] | None:
        """(key, action) -> (binding, enabled, tooltip) of the keys to show now; None if any is grouped."""
        shown: dict[tuple[str, str], tuple[Binding, bool, str]] = {}
        actions: set[str] = set()
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in actions:
                continue
            if binding.group is not None:
                return None
            actions.add(binding.action)
            shown[(binding.key, binding.action)] = (binding, enabled, tooltip)
        return shown

    def _declared(self) -> dict[tuple[str, str], tuple[Binding, str]]:
        """Every key the screen's widgets, the screen and the app declare for the footer (the first of each action),
        in the order Textual's active bindings give them (a widget's before the screen's, the app's last)."""
        declared: dict[tuple[str, str], tuple[Binding, str]] = {}
        actions: set[str] = set()
        for node in (*self.screen.walk_children(), self.screen, self.app):
            for binding in declared_bindings(node):
                if binding.show and binding.group is None and binding.action not in actions:
                    actions.add(binding.action)
                    declared[(binding.key, binding.action)] = (binding, binding.tooltip)
        return declared

    def compose(self) -> ComposeResult:
        self._shown = None  # composed anew: the next update looks at every key
        active = self._active() if footer_bindings_ready(self) else None
        if active is None:
            yield from super().compose()  # FittingFooter's: Footer's keys, fitted
            return
        if not self._known:
            self._known = self._declared()
        items: list[Widget] = []
        # every key shown so far (those not active now hidden), each keeping its place from turn to turn: a new
        # key goes in after the active key before it (an outcome's enter: next instance, after the turn's keys)
        entries = self._known | {place: (b, t) for place, (b, _, t) in active.items()}
        self._known = {place: entries[place] for place in _merged(list(self._known), list(active))}
        for place, (binding, tooltip) in self._known.items():
            key = FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not (place in active and active[place][1]),
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
            key.display = place in active
            items.append(key)
        palette: list[Widget] = [k for k in Footer.compose(self) if isinstance(k, FooterKey) and k.has_class("-command-palette")]
        self.styles.grid_size_columns = len(active) + len(palette)
        yield from self.fit(items + palette)

    def bindings_changed(self, screen: Screen) -> None:
        mark_footer_bindings_ready(self)  # as Footer's own does
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._update_keys()  # now: in the frame that shows what changed them

    _shown: tuple[int, tuple[tuple[tuple[str, str], bool], ...]] | None = None  # what the keys show now

    def _update_keys(self) -> None:
        if not self.is_attached:
            return
        active = self._active()
        shown = (
            None if active is None else (self.size.width, tuple((place, enabled) for place, (_, enabled, _) in active.items()))
        )
        if shown is not None and shown == self._shown:
            return  # the same keys, enabled alike, at the same width: nothing to do (most turns)
        self._shown = shown
        keys = {(k.key, k.action): k for k in self.query(FooterKey) if not k.has_class("-command-palette")}
        if active is None or not set(active) <= set(keys):
            self.refresh(recompose=True)  # grouped keys, or a key never shown
            return
        before = {key: key.description for key in self.query(FooterKey)}
        full: dict[FooterKey, str] = {}
        for place, key in keys.items():
            key.display = place in active  # a change of display lays out by itself; the same value does nothing
            if place in self._known:
                full[key] = self._known[place][0].description  # fitted again below
            if place in active:
                set_footer_key_disabled(key, not active[place][1])
        self.fit(list(self.query(FooterKey)), full)
        for key, description in before.items():
            if key.description != description:  # a plain attribute: its new width needs a layout
                key.refresh(layout=True)
        palette = len(self.query(FooterKey)) - len(keys)
        if self.styles.grid_size_columns != len(active) + palette:
            self.styles.grid_size_columns = len(active) + palette


def _merged(known: list[Any], active: list[Any]) -> list[Any]:
    """``known``'s order, with each key of ``active`` not in it placed just after the active key before it."""
    order = list(known)
    after = -1
    for place in active:
        if place in order:
            after = order.index(place)
        else:
            after += 1
            order.insert(after, place)
    return order
