"""Large input files made on the fly (tests of bad input, and benchmarks/import_memory.py)."""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

DRUG_HEADER = "key,name,input,output,explanation,split"
EXPLANATION = (
    "Acid chloride acylation: the carboxylic acid is made from its acid chloride and water; "
    "the chain is carried through unchanged, and the reaction is run cold to keep the chain's heteroatoms intact."
)


def drug_target(i: int) -> str:
    """A distinct molecule for every ``i`` < 65,536: a carboxylic acid on a chain of eight C, N, O or S atoms."""
    return "OC(=O)" + "".join("CNOS"[(i >> (2 * d)) & 3] for d in range(8))


def drug_csv(path: Path, rows: int, *, newline: str = "\n", encoding: str = "utf-8") -> Path:
    """pxp's DRUG format with ``rows`` valid, distinct rows, written a line at a time."""
    with path.open("w", encoding=encoding, newline="") as out:
        out.write(DRUG_HEADER + newline)
        for i in range(rows):
            target = drug_target(i)
            out.write(f'm{i},,{target},ClC(=O){target[6:]}.O,"{EXPLANATION}",train{newline}')
    return path


def png(path: Path, width: int, height: int, shade: int = 0, *, noise: bool = False) -> Path:
    """A valid grey PNG of ``width`` x ``height`` pixels, streamed: never more than a row in memory.

    Flat grey compresses to almost nothing; ``noise`` (seeded by ``shade``) makes a file of about a
    byte a pixel, like a real radiograph's.
    """
    rng = random.Random(shade)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    packer = zlib.compressobj(6)
    row = b"\x00" + bytes([shade % 256]) * width
    with path.open("wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        body = bytearray()
        for _ in range(height):
            body += packer.compress(b"\x00" + rng.randbytes(width) if noise else row)
        body += packer.flush()
        out.write(chunk(b"IDAT", bytes(body)) + chunk(b"IEND", b""))
    return path


def rad_csv(folder: Path, images: int, side: int = 1024, *, noise: bool = False) -> Path:
    """pxp's RAD format with ``images`` distinct images of about ``side`` x ``side`` pixels in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["key,label,image,report,split"]
    for i in range(images):
        png(folder / f"case{i}.png", side, side + i % 7, shade=i, noise=noise)
        lines.append(f"case{i},Pneumonia,case{i}.png,Patchy opacity in the right lower lobe.,train")
    csv = folder / "cases.csv"
    csv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return csv
