"""A data instance: what a session is about, with the reference (human) prediction and explanation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Instance:
    """A data instance of a dataset, as stored in the blackboard (``instances``), its image loaded.

    The engine needs only its ``id``; tasks read the rest (the target SMILES in ``input``, the X-ray in
    ``image``), the human proxy answers with the references.
    """

    id: int
    dataset: str
    key: str
    split: str = "train"
    input: str = ""  # e.g. the target SMILES
    image: bytes | None = field(default=None, repr=False)
    image_mime: str = "image/png"
    reference_prediction: str = ""
    reference_explanation: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.key)
