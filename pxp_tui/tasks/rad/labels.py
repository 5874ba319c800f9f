"""The five RAD conditions, and reading one out of what people and models write.

Case, spacing, underscores and CamelCase are ignored; synonyms and the papers' short codes
(``ATCS``, ``PNUM``, ``PLEF``, ``CRDM``, ``PNTX``) are accepted; in a longer text the first condition
named, and not negated ("no pneumothorax"), is the one read.
"""

from __future__ import annotations

import re

LABELS = ("Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax")

#: the papers' short codes (column ``label_short`` of their CSVs)
SHORT = {"ATCS": "Atelectasis", "PNUM": "Pneumonia", "PLEF": "Pleural Effusion", "CRDM": "Cardiomegaly", "PNTX": "Pneumothorax"}

SYNONYMS: dict[str, tuple[str, ...]] = {
    "Atelectasis": ("atelectasis", "atelectases", "atelectatic", "lobar collapse", "segmental collapse", "lung atelectasis"),
    "Pneumonia": ("pneumonia", "pneumonias", "bronchopneumonia", "lobar pneumonia", "consolidation", "pneumonic consolidation"),
    "Pleural Effusion": ("pleural effusion", "pleural effusions", "effusion", "effusions", "hydrothorax", "pleural fluid"),
    "Cardiomegaly": ("cardiomegaly", "enlarged heart", "cardiac enlargement", "enlarged cardiac silhouette", "heart enlargement"),
    "Pneumothorax": ("pneumothorax", "pneumothoraces", "ptx"),
}

_LOOKUP = {
    **{name.lower(): label for name, label in SHORT.items()},
    **{synonym: label for label, names in SYNONYMS.items() for synonym in names},
    **{label.lower(): label for label in LABELS},
}
_NAMES = sorted(_LOOKUP, key=len, reverse=True)
_MENTION = re.compile(r"\b(" + "|".join(re.escape(n) for n in _NAMES) + r")\b")
_CLAUSE = re.compile(r"[;,.:!?\n()]|\bbut\b|\bhowever\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(no|not|without|negative for|absent|free of)\s+(?:\w+\s+){0,2}$")


def clean(text: str) -> str:
    """Lower case, CamelCase split, punctuation and underscores as single spaces."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def label_of(text: str) -> str | None:
    """The condition ``text`` names (exactly, or first among several), or None."""
    cleaned = clean(text)
    if cleaned in _LOOKUP:
        return _LOOKUP[cleaned]
    for clause in _CLAUSE.split(text):
        cleaned = clean(clause)
        for found in _MENTION.finditer(cleaned):
            if not _NEGATION.search(cleaned[: found.start()]):
                return _LOOKUP[found.group(1)]
    return None
