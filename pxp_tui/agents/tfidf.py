"""The offline AGREE: TF-IDF cosine similarity of two explanations.

Words are lower-cased runs of letters and digits (three or more characters, English stop words
removed); term frequency is ``1 + ln(count)``; inverse document frequency is the smoothed
``1 + ln((1 + N) / (1 + df))`` over the two explanations (N = 2), so words only one of them uses
weigh more than shared ones. Two explanations AGREE when the cosine is at least :data:`THRESHOLD`.
"""

from __future__ import annotations

import math
import re
from collections import Counter

#: cosine at or above which two explanations agree; calibrated on the demo set and the papers
#: (see docs/models-and-keys.md; tests/app/test_offline_baseline.py checks the checker)
THRESHOLD = 0.2

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "this",
        "that",
        "from",
        "are",
        "was",
        "were",
        "which",
        "has",
        "have",
        "had",
        "not",
        "but",
        "its",
        "into",
        "onto",
        "than",
        "then",
        "there",
        "their",
        "these",
        "those",
        "them",
        "they",
        "can",
        "could",
        "would",
        "should",
        "will",
        "may",
        "might",
        "also",
        "such",
        "via",
        "per",
        "each",
        "both",
        "only",
        "other",
        "more",
        "most",
        "some",
        "any",
        "all",
        "one",
        "two",
        "three",
        "over",
        "under",
        "between",
        "within",
        "without",
        "after",
        "before",
        "where",
        "when",
        "while",
        "what",
        "who",
        "whom",
        "whose",
        "been",
        "being",
        "does",
        "did",
        "done",
        "very",
        "same",
        "then",
        "thus",
        "hence",
        "here",
        "because",
        "about",
        "above",
        "below",
        "upon",
        "our",
        "your",
        "you",
        "his",
        "her",
        "it's",
        "is",
        "be",
        "as",
        "at",
        "by",
        "of",
        "on",
        "or",
        "an",
        "in",
        "to",
        "we",
        "a",
    ]
)


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOP]


def similarity(a: str, b: str) -> float:
    """TF-IDF cosine of ``a`` and ``b`` in [0, 1]; 1.0 for identical texts, 0.0 if either has no words."""
    if a.strip() == b.strip():
        return 1.0 if a.strip() else 0.0
    ca, cb = Counter(words(a)), Counter(words(b))
    if not ca or not cb:
        return 0.0

    def idf(word: str) -> float:
        df = (word in ca) + (word in cb)
        return 1.0 + math.log(3 / (1 + df))

    va = {w: (1 + math.log(c)) * idf(w) for w, c in ca.items()}
    vb = {w: (1 + math.log(c)) * idf(w) for w, c in cb.items()}
    dot = sum(v * vb[w] for w, v in va.items() if w in vb)
    norm = math.sqrt(sum(v * v for v in va.values())) * math.sqrt(sum(v * v for v in vb.values()))
    return dot / norm if norm else 0.0


def agree(a: str, b: str, threshold: float = THRESHOLD) -> bool:
    return similarity(a, b) >= threshold
