"""Letters and meaning together: what `search` (command line, MCP server, plugin) and the hook
hand the agent. Standard library only at import, like `meaning.py` and `fact_search.py`, which it
ranks together; the Hermes plugin carries all three.

Every fact found by meaning passes `fact_search.facts_by_id`, the verdict check every read makes.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Relative: inside the package and in the plugin's directory alike (`hermes-plugin install` copies them).
from .fact_search import Gate, facts_by_id, message_facts, search
from .meaning import BUNDLED_MODEL, NEAREST, bundled_ready, encode_query, nearest, store_model
from .search_query import QUERY_CHARS


@dataclass(frozen=True)
class Meaning:
    """A query's vector and where to look for its neighbours: the store file (its vectors are
    cached while it is unchanged) and the model they must have been made by."""

    path: Path | None
    model: str
    vector: Any


def bundled_meaning(conn: sqlite3.Connection, path: Path, text: str) -> Meaning | None:
    """Where to look by meaning for `text` in this store: when its vectors are the bundled
    encoder's and that encoder is loaded in this process; else None (by letters)."""
    if not bundled_ready() or store_model(conn) != BUNDLED_MODEL:
        return None
    vector = encode_query(text.replace('"', " "))
    return Meaning(path, BUNDLED_MODEL, vector) if vector is not None else None


FUSION_K = 10  # reciprocal rank fusion's constant: small, so the first places count most


def fused(by_letters: Sequence[int], by_meaning: Sequence[int]) -> list[int]:
    """Fact ids ranked by reciprocal rank fusion of the two rankings; a fact found by letters
    comes first among equals (an exact id, port or name keeps its place)."""
    score: dict[int, float] = {}
    for ranking in (by_letters, by_meaning):
        for rank, fact_id in enumerate(ranking):
            score[fact_id] = score.get(fact_id, 0.0) + 1.0 / (FUSION_K + rank + 1)
    lettered = set(by_letters)
    return sorted(score, key=lambda fact_id: (-score[fact_id], fact_id not in lettered))


# How near in meaning a fact must be. A search ranks what is above `SEARCH_FLOOR` with what its
# letters find. The hook, which must stay quiet on a message that names nothing, takes a fact at
# `HOOK_SURE` or above: the lowest cosine at which at most one question naming nothing, of the real
# memory files' set and the repository's, is answered by meaning (docs/search.md says how).
SEARCH_FLOOR = 0.20
HOOK_SURE = 0.33


def hybrid_search(
    conn: sqlite3.Connection,
    query: str,
    meaning: Meaning | None,
    *,
    limit: int = 10,
    include_private: bool = False,
    judge: Gate | None = None,
) -> list[dict[str, Any]]:
    """`fact_search.search` and, with a query vector, the facts nearest it in meaning, ranked
    together by `fused`; each result says how it was found (`matched`: letters, meaning or both).
    Only a query that `reads_as_words` is looked for by meaning."""
    lettered = search(conn, query, limit=max(limit, NEAREST), include_private=include_private, judge=judge)
    near = _near(conn, meaning, SEARCH_FLOOR) if meaning is not None and reads_as_words(query) else []
    if not near:
        return [{**fact, "matched": ["letters"]} for fact in lettered[:limit]]
    facts = {fact["fact_id"]: fact for fact in lettered}
    order = fused([fact["fact_id"] for fact in lettered], [fact_id for fact_id, _ in near])[:limit]
    missing = [fact_id for fact_id in order if fact_id not in facts]
    shown, _ = facts_by_id(conn, missing, include_private=include_private) if missing else ([], [])
    facts.update({fact["fact_id"]: {**fact, "score": 0.0} for fact in shown})
    similar = dict(near)
    return [
        {
            **facts[i],
            "matched": [how for how, found in (("letters", i in {f["fact_id"] for f in lettered}), ("meaning", i in similar)) if found],
        }
        for i in order
        if i in facts
    ]


_LATIN_WORD = re.compile(r"[^\W\d_]{2,}")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def reads_as_words(query: str) -> bool:
    """Whether a search reads as a phrase or a question (three words of letters or more, two Chinese,
    Japanese or Korean characters counting as one), which has a meaning to look for; a name, an
    id, a port or a `fact_store#N` pointer is looked for by its letters alone."""
    if query.strip().startswith("fact_store#") or len(query) > QUERY_CHARS:
        return False
    words = [token for token in _CJK.sub(" ", query).split() if _LATIN_WORD.fullmatch(token.strip("?!.,;:'\"()"))]
    return len(words) + len(_CJK.findall(query)) // 2 >= 3


def recalled_facts(
    conn: sqlite3.Connection, message: str, meaning: Meaning | None, *, limit: int = 3, max_chars: int = 600, judge: Gate | None = None
) -> list[dict[str, Any]]:
    """What the hook adds: `fact_search.message_facts` (what the message names by letters), then,
    while there is room, the facts nearest its meaning at `HOOK_SURE` or above (a message that
    names nothing stays quiet)."""
    found = message_facts(conn, message, limit=limit, max_chars=max_chars, judge=judge)
    if meaning is None or len(found) >= limit:
        return found
    sure = [fact_id for fact_id, _ in _near(conn, meaning, HOOK_SURE)]
    named = {fact["fact_id"] for fact in found}
    shown, _ = facts_by_id(conn, [fact_id for fact_id in sure if fact_id not in named][: limit - len(found)])
    used = sum(len(fact["content"]) for fact in found)
    for fact in shown:
        if used + len(fact["content"]) <= max_chars:
            found.append({"fact_id": fact["fact_id"], "content": fact["content"], "category": fact["category"]})
            used += len(fact["content"])
    return found


def _near(conn: sqlite3.Connection, meaning: Meaning, floor: float) -> list[tuple[int, float]]:
    """The nearest facts at `floor` or above, nearest first."""
    return [(fact_id, score) for fact_id, score in nearest(conn, meaning.path, meaning.model, meaning.vector) if score >= floor]
