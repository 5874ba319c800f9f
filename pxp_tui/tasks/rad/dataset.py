"""RAD dataset files: the papers' CSVs and this project's own format, images read and checked.

- the papers' format: ``case,label,label_short,img_path,report,link`` (``label_short`` and ``link``
  optional). Their files repeat a case (``case_20`` under two labels), so the key of a repeated
  case's later rows is ``case_20#2``, ``case_20#3``...
- the project's format: ``key,label,image,report`` and an optional ``split`` (train, val or test);
  keys must be unique.

An image path is looked up under ``images`` (default: the CSV's folder), then with its leading
folders dropped one by one (the papers' ``data/xrays/Case 1.png`` is found in ``xrays/`` or beside
the CSV). Labels are read by :func:`pxp_tui.tasks.rad.labels.label_of` and stored in canonical form.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from pxp_tui.tasks.base import DatasetRow
from pxp_tui.tasks.csvdata import Table, choose_format, read_table, split_of, unique_key
from pxp_tui.tasks.rad import images
from pxp_tui.tasks.rad.labels import LABELS, label_of

FORMATS = {
    "pxp RAD": ("key", "label", "image", "report"),
    "papers' RAD": ("case", "label", "img_path", "report"),
}


def read(path: Path, images_dir: Path | None = None) -> list[DatasetRow]:
    """The rows of a RAD CSV; :class:`~pxp_tui.tasks.csvdata.DatasetProblems` listing every problem."""
    table = read_table(path)
    papers = choose_format(table, FORMATS) == "papers' RAD"
    base = images_dir if images_dir is not None else path.parent
    rows: list[DatasetRow] = []
    seen: dict[str, int] = {}
    repeats: dict[str, int] = {}
    for line, cells in table.rows:
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
        data, info = image
        meta = {**meta, "image": image_path, "width": info.width, "height": info.height}
        rows.append(DatasetRow(key, split, "", label or "", cells["report"], data, info.mime, meta))
    table.fail()
    return rows


def _image(table: Table, line: int, base: Path, name: str) -> tuple[bytes, images.ImageInfo] | None:
    if not name:
        table.problems.append((line, "no image path"))
        return None
    found = locate(base, name)
    if found is None:
        table.problems.append((line, f"image not found: {name!r} (looked under {base})"))
        return None
    data = found.read_bytes()
    try:
        return data, images.inspect(data)
    except ValueError as exc:
        table.problems.append((line, f"image {name!r} cannot be read: {exc}"))
        return None


def locate(base: Path, name: str) -> Path | None:
    """``base / name``, else ``base /`` the path with its leading folders dropped one by one."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if Path(name).is_absolute():
        return Path(name) if Path(name).is_file() else None
    for start in range(len(parts)):
        candidate = base.joinpath(*parts[start:])
        if candidate.is_file():
            return candidate
    return None
