"""DICOM files (pydicom): checked, then stored as a 16-bit grey PNG that keeps their full depth.

A file is read as DICOM when it is named ``*.dcm`` or ``*.dicom``, or holds ``DICM`` after its 128-byte preamble.
Before its pixels are decoded, its header is checked: one frame, at most :data:`~pxp_tui.tasks.rad.images.MAX_PIXELS`
pixels, greyscale (MONOCHROME1, MONOCHROME2) of up to 16 bits or 8-bit colour, and a transfer syntax pxp can decode
(uncompressed, deflated, RLE, and the JPEG and JPEG 2000 ones Pillow decodes). Anything else is refused in one line
that says what (the compressed transfer syntax named).

A grey image is stored as a 16-bit PNG (:func:`~pxp_tui.tasks.grey_levels.png`): the stored values moved to 0 and
up (signed pixels) and turned over for MONOCHROME1 (whose smallest value is white), then spread over the 16 bits
(a 12-bit value times 16), with the rescale, the default window (WindowCenter/WindowWidth, the first of several;
else the image's own darkest to brightest value), the pixel spacing and the units in its ``pxp-levels`` chunk
(:class:`~pxp_tui.tasks.grey_levels.Levels`). The file's other tags (the patient's name among them) are not stored.
A colour image is stored as an 8-bit RGB PNG.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path
from typing import Any

from pxp_tui.tasks.grey_levels import TOP_16, Levels, png
from pxp_tui.tasks.rad.images import MAX_PIXELS, ImageTooLargeError, too_large

#: file names read as DICOM whatever their first bytes
SUFFIXES = (".dcm", ".dicom")
#: the photometric interpretations read: grey, and colour (converted to RGB by pydicom)
GREY = ("MONOCHROME1", "MONOCHROME2")
COLOUR = ("RGB", "YBR_FULL", "YBR_FULL_422", "YBR_RCT", "YBR_ICT")


@dataclass(frozen=True)
class DicomImage:
    """What the header of a DICOM file says of its image, checked."""

    width: int
    height: int
    photometric: str
    #: bits a stored value (BitsStored)
    bits: int
    signed: bool
    #: the transfer syntax's name (``Explicit VR Little Endian``)
    syntax: str
    levels: Levels

    @property
    def colour(self) -> bool:
        return self.photometric not in GREY

    def meta(self) -> dict[str, Any]:
        """What an instance's metadata keeps of the file (shown with the instance)."""
        meta: dict[str, Any] = {"format": "DICOM", "bits": self.bits, "photometric": self.photometric}
        levels = self.levels
        if levels.window is not None:
            meta["window"] = [round(levels.window[0], 4), round(levels.window[1], 4)]
        if levels.spacing is not None:
            meta["spacing"] = list(levels.spacing)
            meta["spacing_tag"] = levels.spacing_tag
        if levels.unit:
            meta["unit"] = levels.unit
        return meta


def is_dicom(path: Path) -> bool:
    """Whether ``path`` is read as DICOM: its name, or ``DICM`` after a 128-byte preamble."""
    if path.suffix.lower() in SUFFIXES:
        return True
    with open(path, "rb") as file:
        return file.read(132)[128:] == b"DICM"


def check(data: bytes) -> DicomImage:
    """The image of the DICOM file ``data``, its pixels decoded once to check them; ValueError saying why it cannot be used."""
    image, dataset = _header(data)
    return _pixels(dataset, image)[1]


def to_png(data: bytes) -> bytes:
    """The PNG the blackboard stores for the DICOM file ``data`` (see the module's note); ValueError as :func:`check`."""
    image, dataset = _header(data)
    pixels, image = _pixels(dataset, image)
    if image.colour:
        from PIL import Image

        out = BytesIO()
        Image.fromarray(pixels).save(out, format="PNG")
        return out.getvalue()
    return png(pixels, image.levels)


def _header(data: bytes) -> tuple[DicomImage, Any]:
    """The file parsed and its header checked, nothing decoded; ValueError (ImageTooLargeError) saying why not."""
    import pydicom
    from pydicom.errors import InvalidDicomError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pydicom warns of values off the standard; what matters is checked below
            dataset = pydicom.dcmread(BytesIO(data), force=True)
            dataset.ensure_file_meta()
    except InvalidDicomError as exc:
        raise ValueError(f"not a DICOM file pydicom can read ({_first_line(exc)})") from None
    except Exception as exc:  # noqa: BLE001 - a file of any making: whatever pydicom trips on, one line saying so
        raise ValueError(f"not a DICOM file pydicom can read ({_first_line(exc)})") from None
    if "PixelData" not in dataset and data[128:132] != b"DICM" and "Rows" not in dataset:
        raise ValueError("not a DICOM file pydicom can read (no DICM marker, no image tags)")
    if "PixelData" not in dataset:
        floats = any(tag in dataset for tag in ("FloatPixelData", "DoubleFloatPixelData"))
        raise ValueError(
            "DICOM pixels stored as floating point: pxp reads integer pixels" if floats else "a DICOM file without an image"
        )
    try:
        width, height = int(dataset.Columns), int(dataset.Rows)
        frames = int(dataset.get("NumberOfFrames") or 1)
        samples = int(dataset.get("SamplesPerPixel") or 1)
        allocated, bits = int(dataset.BitsAllocated), int(dataset.get("BitsStored") or dataset.BitsAllocated)
        signed = int(dataset.get("PixelRepresentation") or 0) == 1
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"a DICOM image without its size or depth ({_first_line(exc)})") from None
    if width * height > MAX_PIXELS:
        raise ImageTooLargeError(too_large(f"{width} x {height} pixels ({width * height / 1e6:.0f} megapixels)"))
    if frames != 1:
        raise ValueError(f"a DICOM file of {frames} frames: pxp reads single images (save the frame wanted as a file of its own)")
    photometric = str(dataset.get("PhotometricInterpretation") or "").strip().upper()
    if samples == 1 and photometric not in GREY:
        said = photometric or "none"
        raise ValueError(f"photometric interpretation {said}: pxp reads greyscale (MONOCHROME1, MONOCHROME2) and RGB DICOM")
    if samples != 1 and (samples != 3 or photometric not in COLOUR or allocated != 8):
        raise ValueError(
            f"a DICOM colour image of {samples} samples, {photometric or 'no photometric'}, {allocated} bits: pxp reads 8-bit RGB"
        )
    if not 1 < bits <= 16 or allocated not in (8, 16) or bits > allocated:
        raise ValueError(f"DICOM pixels of {bits} bits in {allocated}: pxp reads 2 to 16 bits a pixel")
    syntax = _syntax(dataset)
    levels = Levels() if photometric not in GREY else _levels(dataset, bits, signed, photometric)
    return DicomImage(width, height, photometric, bits, signed, syntax, levels), dataset


def _syntax(dataset: Any) -> str:
    """The name of the file's transfer syntax; ValueError if pxp cannot decode its pixels."""
    from pydicom.pixels import get_decoder
    from pydicom.uid import ExplicitVRLittleEndian, ImplicitVRLittleEndian

    uid = dataset.file_meta.get("TransferSyntaxUID")
    if uid is None:  # a bare data set without its file header: the encoding pydicom read it in
        implicit, little = getattr(dataset, "original_encoding", (True, True))
        if not little:
            raise ValueError("a big-endian DICOM data set without its transfer syntax: pxp cannot tell how to decode it")
        uid = dataset.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian if implicit else ExplicitVRLittleEndian
    named = f"{uid.name} ({uid})" if uid.name != str(uid) else str(uid)
    if not uid.is_transfer_syntax:
        raise ValueError(f"transfer syntax {_safe(named)} is not one pydicom knows: pxp cannot decode its pixels")
    if not uid.is_compressed:
        return str(uid.name)
    try:
        available = get_decoder(uid).is_available
    except NotImplementedError:
        available = False
    if not available:
        raise ValueError(f"compressed with {named}, which pxp cannot decode: save it uncompressed first (e.g. gdcmconv --raw)")
    return str(uid.name)


def _levels(dataset: Any, bits: int, signed: bool, photometric: str) -> Levels:
    """How the stored PNG's values read (see the module's note), the window left for :func:`_pixels` where the file has none."""
    slope = _number(dataset.get("RescaleSlope"), 1.0)
    intercept = _number(dataset.get("RescaleIntercept"), 0.0)
    if slope == 0:
        raise ValueError("a DICOM RescaleSlope of 0: every pixel would read the same")
    lowest = -(1 << (bits - 1)) if signed else 0
    step = 1 << (16 - bits)
    if photometric == "MONOCHROME1":
        slope_png, intercept_png = -slope / step, slope * ((1 << bits) - 1 + lowest) + intercept
    else:
        slope_png, intercept_png = slope / step, slope * lowest + intercept
    centre, width = _number(_first(dataset.get("WindowCenter")), math.nan), _number(_first(dataset.get("WindowWidth")), math.nan)
    window = (centre, width) if math.isfinite(centre) and math.isfinite(width) and width > 0 else None
    return Levels(
        top=TOP_16,
        slope=slope_png,
        intercept=intercept_png,
        unit=_unit(dataset),
        window=window,
        bits=bits,
        **_spacing(dataset),
    )


def _pixels(dataset: Any, image: DicomImage) -> tuple[Any, DicomImage]:
    """The decoded pixels (16-bit grey as stored in the PNG, see the module's note, or 8-bit RGB) and the image, a grey
    one without a window of its own given its darkest to brightest; ValueError naming the transfer syntax if they
    cannot be decoded."""
    import numpy

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pixels = dataset.pixel_array
    except Exception as exc:  # noqa: BLE001 - a decoder's failure, of whatever kind, is one line naming the syntax
        raise ValueError(f"its pixels ({image.syntax}) cannot be decoded: {_first_line(exc)}") from None
    if pixels.shape[:2] != (image.height, image.width):
        raise ValueError(
            f"its pixels decode to {pixels.shape[1]} x {pixels.shape[0]}, not the {image.width} x {image.height} it says"
        )
    if image.colour:
        return numpy.ascontiguousarray(pixels, dtype=numpy.uint8), image
    lowest = -(1 << (image.bits - 1)) if image.signed else 0
    stored = numpy.clip(pixels.astype(numpy.int32) - lowest, 0, (1 << image.bits) - 1)
    if image.photometric == "MONOCHROME1":
        numpy.subtract((1 << image.bits) - 1, stored, out=stored)
    stored <<= 16 - image.bits
    levels = image.levels
    if levels.window is None:
        ends = levels.value(float(stored.min())), levels.value(float(stored.max()))
        if ends[0] != ends[1]:
            window = ((ends[0] + ends[1]) / 2, abs(ends[1] - ends[0]))
            image = replace(image, levels=replace(levels, window=window))
    return stored.astype(numpy.uint16), image


def _spacing(dataset: Any) -> dict[str, Any]:
    for tag in ("PixelSpacing", "ImagerPixelSpacing"):
        value = dataset.get(tag)
        try:
            row, column = (float(v) for v in value)
        except (TypeError, ValueError):
            continue
        if all(math.isfinite(v) and v > 0 for v in (row, column)):
            return {"spacing": (row, column), "spacing_tag": tag}
    return {}


def _unit(dataset: Any) -> str:
    """The values' unit: RescaleType where it names one, Hounsfield units for CT."""
    said = str(dataset.get("RescaleType") or "").strip()
    if re.fullmatch(r"[A-Za-z%/]{1,8}", said) and said.upper() != "US":  # US: unspecified
        return said
    return "HU" if str(dataset.get("Modality") or "").strip().upper() == "CT" else ""


def _first(value: Any) -> Any:
    """The first of a multi-valued tag's values (the value itself if it has one)."""
    if value is None or isinstance(value, (str, bytes)):
        return value
    try:
        return next(iter(value), None)
    except TypeError:
        return value


def _number(value: Any, default: float) -> float:
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def _safe(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z .()-]", "?", text)[:80]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return _safe(text[0]) if text else type(exc).__name__
