"""An X-ray at its physical size: the image's pixel spacing and the screen's pixel pitch give the screen pixels an
image pixel takes, ``spacing (mm) * dpi / 25.4``, across and down.

A terminal tells its cells' size in pixels, never its screen's size in inches, so the expert states the screen's
resolution once, in pixels per inch: ``PXP_SCREEN_DPI`` in the environment, else ``screen_dpi`` in the settings file
(:func:`~pxp_tui.app.shared.look.settings_path`). A value that is not a number from :data:`LOWEST` to :data:`HIGHEST`
is refused with a message naming where it was read, the value, and what to give instead.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from pxp_tui.app.shared.look import read_settings, settings_path
from pxp_tui.common.visible import visible

DPI_ENV = "PXP_SCREEN_DPI"
#: the settings file's key for the screen's pixels per inch
DPI_SETTING = "screen_dpi"
MM_PER_INCH = 25.4
#: the resolutions accepted, in pixels per inch: an old projector's to a phone's
LOWEST, HIGHEST = 50.0, 1200.0
#: how to find the value, said where none is given or a bad one
HOW = (
    f"give the screen's pixels per inch, a number from {LOWEST:g} to {HIGHEST:g}: its width in pixels divided by its "
    f"width in inches (a 27-inch 2560x1440 screen: {DPI_ENV}=109)"
)


@dataclass(frozen=True)
class Physical:
    """Screen pixels per image pixel at the physical size, across and down (:attr:`scales`), from ``spacing`` (mm
    between rows, between columns, as DICOM gives it) on a screen of ``dpi`` pixels per inch. ``at_detector``: the
    spacing is the detector's (DICOM's ImagerPixelSpacing), larger than the patient's by the beam's magnification."""

    spacing: tuple[float, float]
    dpi: float
    at_detector: bool = False

    @property
    def scales(self) -> tuple[float, float]:
        """(across, down): a column's spacing sets the width of a pixel, a row's its height."""
        row, column = self.spacing
        return column * self.dpi / MM_PER_INCH, row * self.dpi / MM_PER_INCH

    def words(self) -> str:
        """How the status line names it: ``physical size 2.36:1 at 300 dpi`` (screen pixels per image pixel), or for
        pixels of two spacings each axis's scale: ``physical size 2.95:1 across, 2.36:1 down at 300 dpi``; ``(the
        detector's size)`` after it for a detector's spacing."""
        across, down = self.scales
        scale = f"{across:.3g}:1" if across == down else f"{across:.3g}:1 across, {down:.3g}:1 down"
        where = " (the detector's size)" if self.at_detector else ""
        return f"physical size {scale} at {self.dpi:g} dpi{where}"


def parse_dpi(given: object, where: str) -> float:
    """``given`` (text or a number) as pixels per inch; ValueError saying ``where`` it was read, and what to give, if
    it is not a number from :data:`LOWEST` to :data:`HIGHEST`."""
    try:
        dpi = float(given) if isinstance(given, (int, float, str)) and not isinstance(given, bool) else math.nan
    except ValueError:
        dpi = math.nan
    if not LOWEST <= dpi <= HIGHEST:  # (NaN and the infinities too)
        shown = visible(str(given), one_line=True)
        shown = shown if len(shown) <= 24 else shown[:23] + "…"
        raise ValueError(f"{where} is '{shown}', not a screen resolution: {HOW}.")  # shown made visible: no repr on top
    return dpi


def screen_dpi() -> float | None:
    """The screen's pixels per inch as the expert stated it: ``PXP_SCREEN_DPI``, else the settings' ``screen_dpi``;
    None if neither says. ValueError (its message for the expert) for a value :func:`parse_dpi` refuses."""
    given = os.environ.get(DPI_ENV, "").strip()
    if given:
        return parse_dpi(given, DPI_ENV)
    kept = read_settings().get(DPI_SETTING)
    if kept is None:
        return None
    return parse_dpi(kept, f"{DPI_SETTING} in {settings_path()}")


def no_dpi() -> str:
    """What the expert is told where no resolution is stated."""
    return (
        f"Physical size needs the screen's resolution, which a terminal does not tell: {HOW}; "
        f"or {DPI_SETTING} in {settings_path()}."
    )
