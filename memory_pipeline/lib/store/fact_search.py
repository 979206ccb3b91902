"""Reading the pipeline's trigram index, `memory_pipeline_fts`: a substring in any script, facts
by id, and the facts a user's message names. Standard library only, importing nothing of the
package: the Hermes plugin runs this very file inside Hermes, where memory-pipeline is not
installed (`memory-pipeline hermes-plugin install` copies it beside the plugin).

A fact is handed out only as the privacy stage judged it: its tags say it is not private, and its
text is still the text the pipeline indexed (a fact Hermes wrote or edited since the last sync
waits for the next one). Private facts only when the caller says so.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

INDEX_TABLE = "memory_pipeline_fts"
# The tags the privacy stage and the removal policy set.
PRIVATE_TAG = "private-person"
RETIRED_TAG = "retired"
# Joins the characters of the `pairs` column: every character pair is then a trigram of its own.
PAIR_SEPARATOR = "\x1f"
# BM25 ranks at most this many of a query's newest matches (a common word costs no more than a rare one).
RANK_WINDOW = 250
# Runs of Chinese, Japanese or Korean characters in a message: what Holographic's own index cannot split.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]{{2,}}")
_CJK_CHAR = re.compile(f"[{_CJK}]")


class SearchError(ValueError):
    """A query the index cannot answer (too short)."""


def has_tag_sql(tag: str, column: str = "tags", *, case_sensitive: bool = True) -> str:
    """SQL for "this fact's comma-separated tag list holds `tag`": GLOB is exact; LIKE also
    matches another case (what hides a private fact before its tag's spelling is folded)."""
    listed = f"(',' || coalesce({column}, '') || ',')"
    return f"({listed} GLOB '*,{tag},*')" if case_sensitive else f"({listed} LIKE '%,{tag},%')"


def indexed_text(text: str) -> str:
    """The text as indexed: FTS5's tokenizers stop at a NUL byte, so it becomes a space (what
    follows a NUL stays findable); the fact itself is never changed."""
    return text.replace("\x00", " ") if "\x00" in text else text


def pair_text(text: str) -> str:
    return PAIR_SEPARATOR.join(text.lower()) + PAIR_SEPARATOR


def _phrase(column: str, text: str) -> str:
    if column == "pairs":
        text = (text[0] + PAIR_SEPARATOR + text[1]).lower()
    return '"' + text.replace('"', '""') + '"'


def match_expression(query: str) -> str:
    """The FTS5 query answering `query` as a case-insensitive substring."""
    text = query.strip()
    if len(text) < 2:
        raise SearchError("a search query needs at least 2 characters, or one Chinese, Japanese or Korean character")
    column = "pairs" if len(text) == 2 else "content"
    return f"{{{column}}} : {_phrase(column, text)}"


def _one_character(query: str) -> str | None:
    """A query of one Chinese, Japanese or Korean character (`船`, `飞`: a word of its own there)."""
    text = query.strip()
    return text if len(text) == 1 and _CJK_CHAR.match(text) else None


_PRIVATE = has_tag_sql(PRIVATE_TAG, "f.tags", case_sensitive=False)
_RETIRED = has_tag_sql(RETIRED_TAG, "f.tags")
_AS_INDEXED = "m.content = replace(f.content, char(0), ' ')"


@dataclass(frozen=True)
class SearchResults:
    facts: list[dict]  # fact_id, content, category, tags, score, retired
    hidden_private: int  # matches left out because they are private (none with include_private)
    unjudged: int = 0  # matches left out because the fact changed since the last sync (judged_only)


def fact_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """How many facts the store holds, and how many of them are private."""
    facts, private = conn.execute(
        f"SELECT count(*), coalesce(sum({has_tag_sql(PRIVATE_TAG, case_sensitive=False)}), 0) FROM facts"
    ).fetchone()
    return int(facts), int(private)


def search(
    conn: sqlite3.Connection, query: str, *, limit: int = 10, include_private: bool = False, judged_only: bool = False
) -> SearchResults:
    """Facts containing `query`: current facts first, then retired ones (a removed entry's, kept
    below the agent's prefetch threshold), each best BM25 first, newest first among equals.
    Private facts only on request; how many were left out is said. `judged_only` leaves out a
    fact whose text changed since the pipeline indexed it (and so judged it private or not)."""
    columns = f"f.fact_id, f.content, f.category, f.tags, {{score}}, {_PRIVATE}, {_RETIRED}, {_AS_INDEXED}"
    joined = f"FROM {INDEX_TABLE} m JOIN facts f ON f.fact_id = m.rowid"
    single = _one_character(query)
    if single is not None:  # no trigram holds one character: the indexed texts scanned, newest first, unscored
        sql = f"SELECT {columns.format(score='0.0')} {joined} WHERE instr(m.content, ?) > 0 ORDER BY m.rowid DESC LIMIT ?"
        rows = conn.execute(sql, (single, RANK_WINDOW)).fetchall()
    else:
        sql = f"SELECT {columns.format(score=f'bm25({INDEX_TABLE})')} {joined} WHERE {INDEX_TABLE} MATCH ? ORDER BY m.rowid DESC LIMIT ?"
        rows = conn.execute(sql, (match_expression(query), RANK_WINDOW)).fetchall()
    judged = [r for r in rows if r[7] or not judged_only]
    shown = [r for r in judged if include_private or not r[5]]
    shown.sort(key=lambda r: (r[6], r[4], -r[0]))  # current before retired; bm25 lower-is-better; newest first
    facts = [
        {"fact_id": int(i), "content": c, "category": cat, "tags": t or "", "score": float(-b), "retired": bool(retired)}
        for i, c, cat, t, b, _, retired, _ in shown[:limit]
    ]
    return SearchResults(facts, len(judged) - len(shown), len(rows) - len(judged))


def facts_by_id(conn: sqlite3.Connection, fact_ids: list[int], *, include_private: bool = False) -> tuple[list[dict], list[int], list[int]]:
    """(the facts named, the ids withheld as private or not yet judged, the ids no fact has)."""
    wanted = list(dict.fromkeys(int(i) for i in fact_ids))
    if not wanted:
        return [], [], []
    marks = ",".join("?" * len(wanted))
    rows = {
        r[0]: r
        for r in conn.execute(
            f"""SELECT f.fact_id, f.content, f.category, f.tags, {_PRIVATE}, {_RETIRED}, coalesce({_AS_INDEXED}, 0)
                FROM facts f LEFT JOIN {INDEX_TABLE} m ON m.rowid = f.fact_id WHERE f.fact_id IN ({marks})""",
            wanted,
        )
    }
    facts, withheld = [], []
    for fact_id in wanted:
        row = rows.get(fact_id)
        if row is None:
            continue
        if not include_private and (row[4] or not row[6]):
            withheld.append(fact_id)
            continue
        facts.append({"fact_id": fact_id, "content": row[1], "category": row[2], "tags": row[3] or "", "retired": bool(row[5])})
    return facts, withheld, [i for i in wanted if i not in rows]


def message_facts(conn: sqlite3.Connection, message: str, *, limit: int = 3, max_chars: int = 600) -> list[dict]:
    """The current, non-private, judged facts sharing at least two character pairs of the
    Chinese, Japanese or Korean runs of a message (a one-pair run: that pair), best first, at most
    `limit` and `max_chars` of content in all; none when the message has no such text.

    It runs on every turn, so it asks the index only for its rarest pairs (the index's own
    vocabulary says how many facts hold each): the newest 50 facts holding two of the three
    rarest are ranked by how many of the message's pairs they share, never the thousands that
    hold a common pair like 怎么."""
    grams = list(dict.fromkeys(run[i : i + 2].lower() for run in _CJK_RUN.findall(message) for i in range(len(run) - 1)))
    if not grams:
        return []
    rarest = _rarest_pairs(conn, grams, 3)
    needed = min(2, len(grams))
    if len(rarest) < needed:
        return []
    phrases = [_phrase("pairs", g) for g in rarest]
    either = [f"({a} AND {b})" for i, a in enumerate(phrases) for b in phrases[i + 1 :]] if needed == 2 else phrases
    # Newest matches first, as the index yields them (no score computed for every match), then
    # those sharing the most of the message's pairs.
    rows = conn.execute(
        f"""SELECT f.fact_id, f.content, f.category FROM {INDEX_TABLE} m JOIN facts f ON f.fact_id = m.rowid
            WHERE {INDEX_TABLE} MATCH ? AND NOT {_PRIVATE} AND NOT {_RETIRED} AND {_AS_INDEXED}
            ORDER BY m.rowid DESC LIMIT 50""",
        ("{pairs} : (" + " OR ".join(either) + ")",),
    ).fetchall()
    shared = {fact_id: sum(g in content.lower() for g in grams) for fact_id, content, _ in rows}
    found, used = [], 0
    for fact_id, content, category in sorted(rows, key=lambda r: -shared[r[0]]):
        if shared[fact_id] < needed or used + len(content) > max_chars:
            continue
        found.append({"fact_id": int(fact_id), "content": content, "category": category})
        used += len(content)
        if len(found) == limit:
            break
    return found


def _rarest_pairs(conn: sqlite3.Connection, grams: list[str], count: int) -> list[str]:
    """Of the message's character pairs, the `count` that the fewest facts hold (and some do)."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.memory_pipeline_vocab USING fts5vocab(main, {INDEX_TABLE}, row)")
    terms = {g[0] + PAIR_SEPARATOR + g[1]: g for g in grams[:64]}
    marks = ",".join("?" * len(terms))
    held = conn.execute(f"SELECT term, doc FROM temp.memory_pipeline_vocab WHERE term IN ({marks})", list(terms)).fetchall()
    return [terms[term] for term, _ in sorted(held, key=lambda row: row[1])[:count]]
