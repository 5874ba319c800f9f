"""Chest X-ray images with Pillow: checking them, shrinking them into data URLs, and pixel features."""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from functools import lru_cache
from io import BytesIO

from PIL import Image, ImageOps, UnidentifiedImageError

#: longest side, in pixels, of the image sent with a prompt (keeps a request small)
PROMPT_SIDE = 512
#: longest side of the thumbnails of earlier cases carried in the context
THUMBNAIL_SIDE = 128
#: side of the grey-level grid the offline baseline compares
FEATURE_SIDE = 16


@dataclass(frozen=True)
class ImageInfo:
    mime: str
    width: int
    height: int


def inspect(data: bytes) -> ImageInfo:
    """The image's type and size; ValueError saying why if Pillow cannot decode all of it."""
    try:
        with Image.open(BytesIO(data)) as image:
            image.load()
            mime = Image.MIME.get(image.format or "", "")
            width, height = image.size
    except UnidentifiedImageError:
        raise ValueError("not an image file Pillow can read") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise ValueError(str(exc) or type(exc).__name__) from None
    if not mime.startswith("image/"):
        raise ValueError(f"unsupported image format {mime or 'unknown'}")
    return ImageInfo(mime, width, height)


def _open(data: bytes) -> Image.Image:
    image = ImageOps.exif_transpose(Image.open(BytesIO(data)))
    return image.convert("L" if image.mode in ("1", "L", "I", "I;16", "F") else "RGB")


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
