"""Reading the pipeline's trigram index, `memory_pipeline_fts`: a substring in any script, facts
by id, and the facts a user's message names. Standard library only, importing nothing of the
package: the Hermes plugin runs this very file inside Hermes, where memory-pipeline is not
installed (`memory-pipeline hermes-plugin install` copies it beside the plugin).

A fact is handed out only on a verdict of the privacy stage (`memory_pipeline_verdicts`) that
says "shown" for its current text (its SHA-256) under the keyword list and detectors in force;
and only while that list on disk is still the one the verdicts were reached with. Anything else,
a fact Hermes wrote since the last sync, a changed list, a missing table, is withheld. Nothing
answered depends on what was withheld: no counts, no different error. Private facts only when
the user (the command line) asks.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from collections.abc import Callable
from typing import Any

# Relative: inside the package and in the plugin's directory alike (`hermes-plugin install` copies both).
from .search_gate import JUDGE_TABLE, Gate, gate, recorded_list, settings_digest, store_relative
from .search_query import (
    QUERY_IDS,
    TOO_LONG,
    SearchError,
    holds,
    match_expression,
    message_terms,
    phrase,
    pointed_ids,
    query_words,
    single_characters,
)
from .visible import visible

# Raised by the grammar, and the judge's gate: the surfaces and the privacy stage take them from here.
__all__ = ["SearchError", "JUDGE_TABLE", "Gate", "gate", "recorded_list", "settings_digest", "store_relative"]

INDEX_TABLE = "memory_pipeline_fts"
# The tags the privacy stage and the removal policy set.
PRIVATE_TAG = "private-person"
RETIRED_TAG = "retired"
# One verdict per fact (lib/store/reads/verdicts.py writes it), and the judge the verdicts were reached with.
VERDICTS_TABLE = "memory_pipeline_verdicts"
SHOWN = "shown"  # the one outcome that lets the agent see a fact
# What the agent's surfaces say, always the same, whatever was withheld.
NOT_SHOWN = "private, unsafe, removed and not yet judged facts are never shown"
UNREADABLE = "the fact store cannot be read now (the user can run `memory-pipeline audit`)"
# At most this many of a query's newest matches are ranked (a common word costs no more than a rare one).
RANK_WINDOW = 250


def has_tag_sql(tag: str, column: str = "tags", *, case_sensitive: bool = True) -> str:
    """SQL for "this fact's comma-separated tag list holds `tag`": GLOB is exact; LIKE also
    matches another case (what hides a private fact before its tag's spelling is folded)."""
    listed = f"(',' || coalesce({column}, '') || ',')"
    return f"({listed} GLOB '*,{tag},*')" if case_sensitive else f"({listed} LIKE '%,{tag},%')"


def indexed_text(text: str) -> str:
    """The text as indexed: FTS5's tokenizers stop at a NUL byte, so it becomes a space (what
    follows a NUL stays findable); the fact itself is never changed."""
    return text.replace("\x00", " ") if "\x00" in text else text


_RETIRED = has_tag_sql(RETIRED_TAG, "f.tags")
_INDEXED = f"FROM {INDEX_TABLE} m JOIN facts f ON f.fact_id = m.rowid"
# A fact the agent may see: a "shown" verdict under the judge in force (its text's hash is
# compared in Python: SQLite has no SHA-256), never a retired one.
_SHOWN = f"""JOIN {VERDICTS_TABLE} v ON v.fact_id = f.fact_id
    AND v.outcome = '{SHOWN}' AND v.keywords_sha256 = ? AND v.detectors = ? AND NOT {_RETIRED}"""


def fact_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """How many facts the store holds, and how many of them are private."""
    facts, private = conn.execute(
        f"SELECT count(*), coalesce(sum({has_tag_sql(PRIVATE_TAG, case_sensitive=False)}), 0) FROM facts"
    ).fetchone()
    return int(facts), int(private)


def content_sha256(raw: bytes) -> str:
    """A fact's text as its verdict knows it: the SHA-256 of its stored bytes (NUL bytes, bytes
    that are not UTF-8 and all)."""
    return hashlib.sha256(raw).hexdigest()


def _shown_rows(
    conn: sqlite3.Connection,
    sql: str,
    params: tuple[Any, ...],
    judge: Gate | None = None,
    *,
    best_first: Callable[[list[tuple[Any, ...]]], list[tuple[Any, ...]]] | None = None,
    wanted: int | None = None,
) -> list[tuple[Any, ...]]:
    """Rows of a query joined to `_SHOWN` (its first column the fact id, its second the text as
    bytes, its last the verdict's hash) whose verdict is for the text as it is now; none when the
    store was never judged or its keyword list changed since. `judge`: the store's gate, when the
    caller read it already. With `best_first` (the rows in rank order) and `wanted`, the rows are
    ranked first and only the best `wanted` that pass are hashed for: the check then costs what is shown."""
    judge = judge or gate(conn)
    if judge is None or judge.stale:
        return []
    rows = conn.execute(sql, (judge.keywords_sha256, judge.detectors, *params)).fetchall()
    if best_first is not None:
        rows = best_first(rows)
    shown = []
    for row in rows:
        if content_sha256(row[1]) == row[-1]:
            shown.append(row[:-1])
            if len(shown) == wanted:
                break
    return shown


def _text(raw: bytes) -> str:
    """A fact's content as every reader here hands it out: its visible text (`visible.py`)."""
    return visible(raw.decode("utf-8", errors="replace"))


# BM25's term saturation and length normalisation (FTS5's defaults), computed here on each match
# instead of by FTS5's `bm25()` in SQL, which reads each match's position lists again and cost
# several times the match itself on common words. Every match holds every word, so the words'
# rarities are alike for all of them and drop out of the order; the length a text is measured
# against is a typical entry's, not the matches', so no other fact (a withheld one included)
# changes a fact's score.
_K1, _B = 1.2, 0.75
_TYPICAL_CHARS = 120


def _ranked(words: list[str]) -> Callable[[list[tuple[Any, ...]]], list[tuple[Any, ...]]]:
    """The rows (fact id, text bytes, category, tags, retired, ...) in rank order, each given its
    score as a sixth column: current before retired, best score first, newest first among equals."""
    terms = [w.casefold() for w in words]

    def order(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        scored = [(*row[:5], _bm25(bytes(row[1]).decode("utf-8", errors="replace").casefold(), terms), *row[5:]) for row in rows]
        return sorted(scored, key=lambda row: (row[4], -row[5], -row[0]))

    return order


def _bm25(text: str, terms: list[str]) -> float:
    norm = _K1 * (1 - _B + _B * len(text) / _TYPICAL_CHARS)
    return sum(tf * (_K1 + 1) / (tf + norm) for tf in (text.count(t) for t in terms) if tf)


def search(
    conn: sqlite3.Connection, query: str, *, limit: int = 10, include_private: bool = False, judge: Gate | None = None
) -> list[dict[str, Any]]:
    """Facts holding every word of `query` (`search_query`'s grammar), the newest `RANK_WINDOW`
    matches ranked best first by BM25, newest first among equals: only those the agent may see, unless `include_private` (the user at the
    command line: every fact, retired ones last). Each: fact_id, content, category, tags, score,
    retired. A pointer (`fact_store#14`) gives the facts it names, as `facts_by_id` does."""
    if (pointed := pointed_ids(query)) is not None:
        facts, _ = facts_by_id(conn, pointed, include_private=include_private)
        return [{**fact, "score": 0.0} for fact in facts][:limit]
    words = query_words(query)
    expression = match_expression(words)
    # One-character words have no trigram: checked in each text the others matched (alone: all of them, unscored).
    conditions = [f"{INDEX_TABLE} MATCH ?"] if expression else []
    conditions += ["instr(m.content, ?) > 0"] * len(single_characters(words))
    params = ([expression] if expression else []) + single_characters(words)
    where = " AND ".join(conditions)
    columns = f"f.fact_id, CAST(f.content AS BLOB), f.category, f.tags, {_RETIRED}"
    rank = _ranked(words)
    if include_private:
        sql = f"SELECT {columns} {_INDEXED} WHERE {where} ORDER BY m.rowid DESC LIMIT ?"
        rows = rank(conn.execute(sql, (*params, RANK_WINDOW)).fetchall())
    else:
        sql = f"SELECT {columns}, v.content_sha256 {_INDEXED} {_SHOWN} WHERE {where} ORDER BY m.rowid DESC LIMIT ?"
        rows = _shown_rows(conn, sql, (*params, RANK_WINDOW), judge, best_first=rank, wanted=limit)
    return [
        {"fact_id": int(i), "content": _text(raw), "category": cat, "tags": t or "", "score": round(score, 4), "retired": bool(retired)}
        for i, raw, cat, t, retired, score in rows[:limit]
    ]


def facts_by_id(conn: sqlite3.Connection, fact_ids: list[int], *, include_private: bool = False) -> tuple[list[dict[str, Any]], list[int]]:
    """(the facts named that may be shown, the other ids): an id no fact has and one withheld
    are alike, so the answer tells nothing of a fact that was not shown."""
    wanted = list(dict.fromkeys(int(i) for i in fact_ids))
    if len(wanted) > QUERY_IDS:
        raise SearchError(TOO_LONG)
    if not wanted:
        return [], []
    marks = ",".join("?" * len(wanted))
    columns = f"f.fact_id, CAST(f.content AS BLOB), f.category, f.tags, {_RETIRED}"
    if include_private:
        rows = conn.execute(f"SELECT {columns} FROM facts f WHERE f.fact_id IN ({marks})", wanted).fetchall()
    else:
        rows = _shown_rows(conn, f"SELECT {columns}, v.content_sha256 FROM facts f {_SHOWN} WHERE f.fact_id IN ({marks})", tuple(wanted))
    found = {r[0]: r for r in rows}
    facts = [
        {"fact_id": i, "content": _text(found[i][1]), "category": found[i][2], "tags": found[i][3] or "", "retired": bool(found[i][4])}
        for i in wanted
        if i in found
    ]
    return facts, [i for i in wanted if i not in found]


def shown_count(conn: sqlite3.Connection) -> int:
    """How many facts the agent may be shown: a count of nothing withheld (0 while the list is stale)."""
    return len(_shown_rows(conn, f"SELECT f.fact_id, CAST(f.content AS BLOB), v.content_sha256 FROM facts f {_SHOWN}", ()))


def message_facts(
    conn: sqlite3.Connection, message: str, *, limit: int = 3, max_chars: int = 600, judge: Gate | None = None
) -> list[dict[str, Any]]:
    """The facts the agent may see that a message is about: those holding what it names (a name,
    a product, a place, a number: `message_terms`), best first, at most `limit` and `max_chars` of
    content in all; none when the message names nothing such a fact holds.

    Rarity is counted among the facts the agent may see only, so no withheld fact changes which
    terms are asked for, how they weigh or what is added. It runs on every turn, so each count stops
    at `_COUNTED_UP_TO` and only the rarest terms are asked for. A fact must hold a term at most
    `_RARE` shown facts hold, or two of the message's terms; each held term counts by its rarity, and
    facts scoring under half the best are left out."""
    judge = judge or gate(conn)
    if judge is None or judge.stale:
        return []
    held = _held_terms(conn, message_terms(message), judge)
    if not held:
        return []
    rarest = sorted(held, key=lambda term: held[term])[:_ASKED_TERMS]
    rows = _shown_rows(
        conn,
        f"""SELECT f.fact_id, CAST(f.content AS BLOB), f.category, v.content_sha256 {_INDEXED} {_SHOWN}
            WHERE {INDEX_TABLE} MATCH ? ORDER BY m.rowid DESC LIMIT 100""",
        (" OR ".join(_term_phrase(t) for t in rarest),),
        judge,
    )
    weight = {t: math.log((_COUNTED_UP_TO + 1) / (df + 0.5)) for t, df in held.items()}
    scored = []
    for fact_id, raw, category in rows:
        content = _text(raw)
        lowered = content.lower()
        matched = [t for t in held if holds(lowered, t)]
        if len(matched) >= 2 or any(held[t] <= _RARE for t in matched):
            scored.append((sum(weight[t] for t in matched), -fact_id, content, category))
    scored.sort(reverse=True)
    found, used = [], 0
    for score, negative_id, content, category in scored:
        if score < 0.5 * scored[0][0] or used + len(content) > max_chars:
            continue
        found.append({"fact_id": -negative_id, "content": content, "category": category})
        used += len(content)
        if len(found) == limit:
            break
    return found


_ASKED_TERMS = 6  # the rarest terms of a message the index is asked for
_COUNTED_UP_TO = 200  # a term more shown facts hold is common: its count stops there
_RARE = 2  # a term at most this many shown facts hold names them on its own
_COUNTED_TERMS = 24  # a message's terms counted, in its order


def _term_phrase(term: str) -> str:
    return f"{{pairs}} : {phrase('pairs', term)}" if len(term) == 2 else f"{{content}} : {phrase('content', term)}"


def _held_terms(conn: sqlite3.Connection, terms: list[str], judge: Gate) -> dict[str, int]:
    """Of a message's terms, those some fact the agent may see holds, with how many such facts
    hold each (counted up to `_COUNTED_UP_TO`)."""
    held: dict[str, int] = {}
    for term in terms[:_COUNTED_TERMS]:
        (docs,) = conn.execute(
            f"""SELECT count(*) FROM (SELECT 1 {_INDEXED} {_SHOWN} WHERE {INDEX_TABLE} MATCH ? LIMIT {_COUNTED_UP_TO})""",
            (judge.keywords_sha256, judge.detectors, _term_phrase(term)),
        ).fetchone()
        if docs:
            held[term] = int(docs)
    return held
