"""The app's look, the same in the session and the review: the tags' colours as theme variables, and the
theme chosen (ctrl+p, "Change theme") kept between launches in a small settings file.

The settings file is ``settings.json`` in the user's config directory (``$XDG_CONFIG_HOME/pxp-tui`` on
Linux, platformdirs' choice elsewhere), or in ``$PXP_CONFIG_DIR`` if set (the tests use a temporary
one). A missing or unreadable file means the defaults; a file that cannot be written is said once.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.theme import Theme

from pxp_tui.app.shared.tags import tag_variables

CONFIG_ENV = "PXP_CONFIG_DIR"


def settings_path() -> Path:
    """Where the settings live."""
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured) / "settings.json"
    from platformdirs import user_config_dir

    return Path(user_config_dir("pxp-tui", appauthor=False)) / "settings.json"


def read_settings() -> dict[str, Any]:
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_settings(**changes: Any) -> None:
    """Merge ``changes`` into the settings file (written whole, then renamed: never half a file)."""
    path = settings_path()
    settings = {**read_settings(), **changes}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".json.{os.getpid()}.partial")  # apart from another pxp writing it at once
    partial.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)


if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[Any]
else:
    _AppBase = object


#: colours of a theme that read below 4.5:1 against their background once a 256-colour terminal shows them (the
#: nearest of its 256), replaced by the nearest that read at 4.5:1 or more (tests/app/test_app_contrast.py)
READABLE_256: dict[str, dict[str, str]] = {
    "textual-dark": {
        "block-cursor-background": "#0053AA",  # a highlighted option: white on #0087d7 was 3.6:1
        "text-muted": "#949494",  # 60% of the text was #6c6c6c on the surface, 3.2:1
        "text-disabled": "#8A8A8A",
        "tag-reject": "#D17E92",  # $error was #af5f5f on the surface, 3.8:1
    },
}


#: a theme's colours on a terminal of 16 colours (plain ``xterm``), chosen so that the nearest of the 16 is a calm one:
#: textual-dark's accent and error became bright red, its success bright green, on black. Here: cyan (primary), yellow
#: (accent, warning: the keys in the footers, the borders), green and red of normal intensity (a tag's colour only)
CALM_16 = {
    "primary": "#00aaaa",
    "secondary": "#00aaaa",
    "accent": "#d7af00",
    "warning": "#d7af00",
    "success": "#00aa00",
    "error": "#aa0000",
}


def _calm(theme: Theme) -> Theme:
    """``theme`` with the calm colours of :data:`CALM_16`, made once per theme: Textual asks for the current theme
    thousands of times as a screen is drawn (every ANSI colour it resolves)."""
    made = _CALMED.get(id(theme))
    if made is None or made[0] is not theme:
        calm = CALM_16
        made = _CALMED[id(theme)] = (
            theme,
            replace(
                theme,
                primary=calm["primary"],
                secondary=calm["secondary"],
                accent=calm["accent"],
                warning=calm["warning"],
                success=calm["success"],
                error=calm["error"],
            ),
        )
    return made[1]


#: id of a theme -> (the theme, its calm copy); the theme kept beside its id, so that a new theme at a reused id is not
#: mistaken for it
_CALMED: dict[int, tuple[Theme, Theme]] = {}


def sixteen_colours(app: Any) -> bool:
    """Whether the app's terminal shows 16 colours (Rich's ``standard`` colour system: ``TERM=xterm``, no COLORTERM)."""
    return getattr(getattr(app, "console", None), "color_system", None) == "standard"


class Look(_AppBase):
    """Mixed into the apps (``PXPApp``, ``ReviewApp``): tag colours from the theme, the theme remembered; on a
    terminal of 16 colours, the theme's colours made calm ones (:data:`CALM_16`)."""

    @property
    def current_theme(self) -> Theme:
        theme = super().current_theme
        if getattr(theme, "ansi", False) or not sixteen_colours(self):  # Theme.ansi: Textual 8
            return theme
        return _calm(theme)

    def get_css_variables(self) -> dict[str, str]:
        variables = {**super().get_css_variables(), **READABLE_256.get(self.current_theme.name, {})}
        self.theme_variables = variables
        return variables

    def get_theme_variable_defaults(self) -> dict[str, str]:
        theme = self.current_theme
        colours = theme.to_color_system().generate()
        return {**super().get_theme_variable_defaults(), **tag_variables({**colours, **theme.variables})}

    def on_mount(self) -> None:
        saved = read_settings().get("theme")
        if isinstance(saved, str) and saved in self.available_themes and saved != self.theme:
            self.theme = saved
        self.theme_changed_signal.subscribe(self, self._keep_theme)

    def _keep_theme(self, theme: Theme) -> None:
        if read_settings().get("theme") == theme.name:
            return
        try:
            write_settings(theme=theme.name)
        except OSError as exc:
            self.notify(f"The theme is not kept for next time: {exc}", severity="warning", markup=False)
