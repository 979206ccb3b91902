"""How alike two entry texts are: character-bigram Dice similarity, safe for CJK (no word split)."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def bigrams(text: str) -> frozenset[str]:
    normal = _SPACE.sub(" ", text.lower()).strip()
    if len(normal) < 2:
        return frozenset([normal]) if normal else frozenset()
    return frozenset(normal[i : i + 2] for i in range(len(normal) - 1))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def similarity(a: str, b: str) -> float:
    return dice(bigrams(a), bigrams(b))
