"""Small DICOM files written with pydicom for the tests: no real patient, no download."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.encaps import encapsulate
from pydicom.uid import JPEGLSLossless, RLELossless, SecondaryCaptureImageStorage, generate_uid


def ramp(width: int = 64, height: int = 48, bits: int = 16) -> numpy.ndarray:
    """A left-to-right ramp over the whole range of ``bits`` unsigned bits (column 0: 0, the last: the top)."""
    top = (1 << bits) - 1
    row = numpy.rint(numpy.linspace(0, top, width)).astype(numpy.uint16)
    return numpy.tile(row, (height, 1))


def write_dicom(
    path: Path,
    pixels: numpy.ndarray,
    *,
    bits: int = 16,
    photometric: str = "MONOCHROME2",
    window: tuple[float, float] | None = None,
    rescale: tuple[float, float] | None = None,
    spacing: tuple[float, float] | None = None,
    compress: str = "",
    **tags: Any,
) -> Path:
    """A single-frame DICOM file of ``pixels`` (grey, ``bits`` stored in 16), with the tags asked for.

    ``compress``: "rle" (RLE Lossless, which pydicom decodes) or "jpeg-ls" (a JPEG-LS header over bytes
    that are no image: its transfer syntax is what matters)."""
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = SecondaryCaptureImageStorage
    meta.MediaStorageSOPInstanceUID = generate_uid()
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = meta.MediaStorageSOPClassUID
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = "DX"
    ds.PatientName = "Phantom^Test"
    ds.set_pixel_data(pixels.astype(numpy.uint16), photometric, bits)
    if window is not None:
        ds.WindowCenter, ds.WindowWidth = window
    if rescale is not None:
        ds.RescaleSlope, ds.RescaleIntercept = rescale
    if spacing is not None:
        ds.PixelSpacing = list(spacing)
    for name, value in tags.items():
        setattr(ds, name, value)
    if compress == "rle":
        ds.compress(RLELossless)
    elif compress == "jpeg-ls":
        ds.file_meta.TransferSyntaxUID = JPEGLSLossless
        ds.PixelData = encapsulate([b"\xff\xd8\xff\xf7 not an image"])
    ds.save_as(path, enforce_file_format=True)
    return path
