"""Chest X-ray images with Pillow: checking them, shrinking them into data URLs, and pixel features.

A DICOM file is checked by :mod:`pxp_tui.tasks.rad.dicom` and stored as the 16-bit PNG it makes; an image of more
than 8 bits a pixel is sent to the machine, and compared by the offline baseline, as its default window shows it
(:func:`pxp_tui.tasks.grey_levels.rendered`), in 8 bits.
"""

from __future__ import annotations

import base64
import hashlib
import math
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any

from PIL import Image, ImageOps, UnidentifiedImageError

from pxp_tui.tasks.grey_levels import DEEP_MODES, rendered

#: longest side, in pixels, of the image sent with a prompt (keeps a request small)
PROMPT_SIDE = 512
#: longest side of the thumbnails of earlier cases carried in the context
THUMBNAIL_SIDE = 128
#: side of the grey-level grid the offline baseline compares
FEATURE_SIDE = 16
#: the largest image imported, in pixels: a 20-megapixel radiograph goes in, a 100-megapixel one is
#: refused before it is decoded (decoding it would take gigabytes; prompts send PROMPT_SIDE a side)
MAX_PIXELS = 50_000_000
#: the largest image file imported, in bytes
MAX_FILE_BYTES = 256 * 2**20


class ImageTooLargeError(ValueError):
    """An image larger than pxp takes (pixels, or bytes)."""


@dataclass(frozen=True)
class ImageInfo:
    """An image file checked: the type and size of the picture stored for it."""

    mime: str
    width: int
    height: int
    #: what the instance's metadata keeps of a file converted when stored (a DICOM file's depth, window, spacing)
    details: Mapping[str, Any] = field(default_factory=dict)
    #: how the file's bytes become the picture stored (a DICOM file's PNG); None: stored as it is
    convert: Callable[[bytes], bytes] | None = None


def inspect(data: bytes) -> ImageInfo:
    """The image's type and size; ValueError saying why if Pillow cannot decode all of it.

    An image of more than :data:`MAX_PIXELS` is refused from its header, before it is decoded.
    """
    with _reading(), Image.open(BytesIO(data)) as image:
        _check_pixels(image)
        image.load()
        mime = Image.MIME.get(image.format or "", "")
        width, height = image.size
    if not mime.startswith("image/"):
        raise ValueError(f"unsupported image format {mime or 'unknown'}")
    return ImageInfo(mime, width, height)


def check_file(path: Path) -> tuple[ImageInfo, str]:
    """The image file's type and size, and its sha256; ValueError saying why it cannot be used.

    Its header is read first, so a file too large is refused without being read; then one image's
    bytes are held (and decoded) at a time. OSError if the file cannot be read at all. A DICOM file
    (:func:`~pxp_tui.tasks.rad.dicom.is_dicom`) is checked by :func:`~pxp_tui.tasks.rad.dicom.check`.
    """
    from pxp_tui.tasks.rad import dicom

    if dicom.is_dicom(path):
        data = _small_enough(path).read_bytes()
        image = dicom.check(data)
        return ImageInfo("image/png", image.width, image.height, image.meta(), dicom.to_png), hashlib.sha256(data).hexdigest()
    with _reading(), Image.open(path) as image:
        _check_pixels(image)
    data = _small_enough(path).read_bytes()
    return inspect(data), hashlib.sha256(data).hexdigest()


def _small_enough(path: Path) -> Path:
    """``path``; ImageTooLargeError if the file is larger than pxp takes."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ImageTooLargeError(f"{size / 2**20:,.0f} MB: pxp takes image files up to {MAX_FILE_BYTES // 2**20} MB")
    return path


def _check_pixels(image: Image.Image) -> None:
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise ImageTooLargeError(too_large(f"{width} x {height} pixels ({width * height / 1e6:.0f} megapixels)"))


def too_large(size: str) -> str:
    return f"{size}: pxp takes images up to {MAX_PIXELS / 1e6:.0f} megapixels; shrink it first (prompts send {PROMPT_SIDE} pixels a side)"


@contextmanager
def _reading() -> Iterator[None]:
    """Pillow's errors as ValueError saying why.

    Its decompression-bomb warning (past 89 megapixels) is not printed: :func:`_check_pixels`, with a
    lower limit, refuses such an image before it is decoded.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            yield
        except UnidentifiedImageError:
            raise ValueError("not an image file Pillow can read") from None
        except Image.DecompressionBombError:
            raise ImageTooLargeError(too_large(f"more than {2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6:.0f} megapixels")) from None
        except ImageTooLargeError:
            raise
        except (SyntaxError, ValueError) as exc:
            raise ValueError(str(exc) or type(exc).__name__) from None
        except OSError as exc:
            if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError)):
                raise
            raise ValueError(str(exc) or type(exc).__name__) from None


def _open(data: bytes) -> Image.Image:
    image: Image.Image = rendered(ImageOps.exif_transpose(Image.open(BytesIO(data))))  # more than 8 bits: its default window
    return image.convert("L" if image.mode in ("1", "L", "I", "I;16", "F") else "RGB")


def shown(data: bytes | None) -> bytes | Image.Image | None:
    """The picture of an image file as pxp shows it by default: the file, or for one of more than 8 bits a grey
    level (a DICOM instance's PNG) its default window in 8 bits (Pillow)."""
    if data is None:
        return None
    with _reading():
        image = Image.open(BytesIO(data))
    return rendered(image) if image.mode in DEEP_MODES else data


@lru_cache(maxsize=512)
def data_url(data: bytes, max_side: int = PROMPT_SIDE) -> str:
    """The image as a base64 JPEG data URL, shrunk to at most ``max_side`` pixels a side."""
    image = _open(data)
    image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = BytesIO()
    image.save(out, format="JPEG", quality=85, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def decode_data_url(url: str) -> bytes:
    """The bytes of a base64 data URL; ValueError if it is not one."""
    head, sep, payload = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        raise ValueError("not a base64 data URL")
    return base64.b64decode(payload)


@lru_cache(maxsize=1024)
def features(url: str, side: int = FEATURE_SIDE) -> tuple[float, ...]:
    """Grey levels of the image squeezed to ``side`` x ``side``, standardised (mean 0, spread 1)."""
    image = _open(decode_data_url(url)).convert("L").resize((side, side), Image.Resampling.BOX)
    values = [float(v) for v in image.tobytes()]
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) or 1.0
    return tuple((v - mean) / spread for v in values)


def distance(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Root-mean-square difference of two feature vectors."""
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / len(a))
