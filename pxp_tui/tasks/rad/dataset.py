"""RAD dataset files: the papers' CSVs and this project's own format, images read and checked.

- the papers' format: ``case,label,label_short,img_path,report,link`` (``label_short`` and ``link``
  optional). Their files repeat a case (``case_20`` under two labels), so the key of a repeated
  case's later rows is ``case_20#2``, ``case_20#3``...
- the project's format: ``key,label,image,report`` and an optional ``split`` (train, val or test);
  keys must be unique.

An image path is looked up under ``images`` (default: the CSV's folder), then with its leading
folders dropped one by one (the papers' ``data/xrays/Case 1.png`` is found in ``xrays/`` or beside
the CSV). Only files inside that folder are read: a path leading out of it (``../../etc/passwd``, an
absolute path elsewhere, a link pointing out) is refused. Labels are read by :func:`pxp_tui.tasks.rad.labels.label_of` and stored in canonical form.

An image is a PNG, a JPEG (any image Pillow reads) or a DICOM file (:mod:`pxp_tui.tasks.rad.dicom`), stored as the
16-bit PNG it makes; a DICOM instance's metadata adds its format, bits, photometric interpretation, window, spacing.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import ImportProgress, Table, choose_format, open_table, split_of, unique_key
from pxp_tui.tasks.rad import images
from pxp_tui.tasks.rad.labels import LABELS, label_of

FORMATS = {
    "pxp RAD": ("key", "label", "image", "report"),
    "papers' RAD": ("case", "label", "img_path", "report"),
}


def read(
    path: Path, images_dir: Path | None = None, *, encoding: str = "utf-8", progress: ImportProgress | None = None
) -> list[DatasetRow]:
    """The rows of a RAD CSV; :class:`~pxp_tui.tasks.csvdata.DatasetProblemsError` listing every problem.

    Every image is read and decoded to check it, one at a time; the rows refer to the files, read
    again (and checked unchanged) when they are stored.
    """
    base = images_dir if images_dir is not None else path.parent
    with open_table(path, encoding=encoding, progress=progress) as table:
        return _rows(table, base)


def _rows(table: Table, base: Path) -> list[DatasetRow]:
    papers = choose_format(table, FORMATS) == "papers' RAD"
    rows: list[DatasetRow] = []
    seen: dict[str, int] = {}
    repeats: dict[str, int] = {}
    for line, cells in table.rows():
        meta: dict[str, Any]
        if papers:
            case = cells["case"]
            repeats[case] = repeats.get(case, 0) + 1
            key = case if repeats[case] == 1 or not case else f"{case}#{repeats[case]}"
            image_path, split = cells["img_path"], "train"
            meta = {k: cells[k] for k in ("label_short", "link") if cells.get(k)}
        else:
            key, image_path = cells["key"], cells["image"]
            split = split_of(table, line, cells.get("split", ""))
            meta = {}
        unique_key(table, seen, line, key, "key" if not papers else "case")
        label = label_of(cells["label"])
        if label is None:
            table.problems.append((line, f"label {cells['label']!r} is not one of {', '.join(LABELS)}"))
        if not cells["report"]:
            table.problems.append((line, "empty report"))
        image = _image(table, line, base, image_path)
        if image is None:
            continue
        found, info, sha = image
        meta = {**meta, "image": image_path, "width": info.width, "height": info.height, **info.details}
        rows.append(
            DatasetRow(
                key,
                split,
                "",
                label or "",
                cells["report"],
                None,
                info.mime,
                meta,
                image_file=found,
                image_sha256=sha,
                image_convert=info.convert,
            )
        )
    table.fail()
    return rows


def _image(table: Table, line: int, base: Path, name: str) -> tuple[Path, images.ImageInfo, str] | None:
    if not name:
        table.problems.append((line, "no image path"))
        return None
    try:
        found = locate(base, name)
    except ValueError as exc:
        table.problems.append((line, str(exc)))
        return None
    if found is None:
        table.problems.append((line, f"image not found: {name!r} (looked under {base})"))
        return None
    try:
        info, sha = images.check_file(found)
    except OSError as exc:
        table.problems.append((line, f"image {name!r} cannot be read ({exc.strerror or exc})"))
        return None
    except images.ImageTooLargeError as exc:
        table.problems.append((line, f"image {name!r} is too large: {exc}"))
        return None
    except ValueError as exc:
        table.problems.append((line, f"image {name!r} cannot be read: {exc}"))
        return None
    return found, info, sha


def locate(base: Path, name: str) -> Path | None:
    """The file ``name`` names under ``base``: ``base / name``, else with its leading folders dropped one by one.

    Only a file inside ``base`` (links followed) is returned, and nothing outside it is looked at;
    ValueError if no file inside it is found and the path, or a link, leads outside it
    (``../../etc/passwd``, an absolute path elsewhere, a link pointing out of the folder).
    """
    root = base.resolve()
    parts = PurePosixPath(name.replace("\\", "/")).parts
    outside: Path | None = None
    for start in range(len(parts)):
        real = base.joinpath(*parts[start:]).resolve()
        if not real.is_relative_to(root):
            outside = outside or real
        elif real.is_file():
            return real
    if outside is not None:
        raise ValueError(f"image {name!r} leads outside the images folder {base} (to {outside}): refused")
    return None
