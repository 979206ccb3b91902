"""What recall by meaning needs of a store, for the pipeline: the facts that lack a vector of the
model in force for their current, shown text, and what `embedding_coverage` counts (shown facts
without such a vector, vectors no fact may have)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memory_pipeline.lib.in_hermes.fact_search import SHOWN, VERDICTS_TABLE, content_sha256
from memory_pipeline.lib.in_hermes.meaning import OFF_MODEL, VECTORS_TABLE, store_model

# A fact shown under its verdict (the verdict's text hash is compared with the fact's in Python).
_SHOWN_FACTS = f"""SELECT f.fact_id, CAST(f.content AS BLOB), v.content_sha256, e.model, e.content_sha256
    FROM facts f JOIN {VERDICTS_TABLE} v ON v.fact_id = f.fact_id AND v.outcome = '{SHOWN}'
    LEFT JOIN {VECTORS_TABLE} e ON e.fact_id = f.fact_id"""


@dataclass(frozen=True)
class ToEmbed:
    fact_id: int
    text: str
    content_sha256: str


def _shown(conn: sqlite3.Connection) -> list[tuple[int, bytes, str, str | None, str | None]]:
    """Each fact with a "shown" verdict for its current text, with its vector's model and hash."""
    return [row for row in conn.execute(_SHOWN_FACTS).fetchall() if content_sha256(row[1]) == row[2]]


def facts_to_embed(conn: sqlite3.Connection, model: str) -> list[ToEmbed]:
    """The shown facts with no vector of `model` made from their current text."""
    return [
        ToEmbed(fact_id, raw.decode("utf-8", errors="replace"), sha)
        for fact_id, raw, sha, vector_model, vector_sha in _shown(conn)
        if (vector_model, vector_sha) != (model, sha)
    ]


def vectors_not_allowed(conn: sqlite3.Connection, model: str) -> list[int]:
    """Vectors no fact may have: of another model, of a fact gone, withheld, not judged for its
    current text, or made from other text than it has now."""
    allowed = {fact_id for fact_id, _, sha, vector_model, vector_sha in _shown(conn) if (vector_model, vector_sha) == (model, sha)}
    return [int(r[0]) for r in conn.execute(f"SELECT fact_id FROM {VECTORS_TABLE}").fetchall() if int(r[0]) not in allowed]


def vectors_of_changed_facts(conn: sqlite3.Connection, vectors: list[int]) -> int:
    """Of these vectors, how many are of a fact gone, or changed since it was judged (the agent's
    `fact_store update` or `remove`): the next sync judges the text again and drops them."""
    if not vectors:
        return 0
    wanted = set(vectors)
    judged = dict(conn.execute(f"SELECT fact_id, content_sha256 FROM {VERDICTS_TABLE}").fetchall())
    rows = conn.execute("SELECT fact_id, CAST(content AS BLOB) FROM facts").fetchall()
    now = {int(i): content_sha256(raw) for i, raw in rows if int(i) in wanted}  # only these facts' text is hashed
    return sum(1 for fact_id in vectors if fact_id not in now or judged.get(fact_id) != now[fact_id])


@dataclass(frozen=True)
class Coverage:
    model: str | None  # the model in force (None before the first embedding)
    shown: int  # facts the agent may see
    embedded: int  # of them, with a vector of the model in force for their text
    not_allowed: int  # vectors no fact may have
    changed: int = 0  # of those, vectors of facts gone or changed since (the next sync drops them)

    @property
    def missing(self) -> int:
        """Shown facts without their vector (none is owed while recall by meaning is off)."""
        return 0 if self.model == OFF_MODEL else self.shown - self.embedded


def coverage(conn: sqlite3.Connection) -> Coverage:
    model = store_model(conn)
    shown = _shown(conn)
    embedded = sum(1 for _, _, sha, vector_model, vector_sha in shown if model is not None and (vector_model, vector_sha) == (model, sha))
    if model is None:
        return Coverage(model, len(shown), embedded, _count(conn))
    refused = vectors_not_allowed(conn, model)
    return Coverage(model, len(shown), embedded, len(refused), vectors_of_changed_facts(conn, refused))


def _count(conn: sqlite3.Connection) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {VECTORS_TABLE}").fetchone()[0])


def shown_vectors(conn: sqlite3.Connection) -> dict[int, bytes]:
    """The int8 vector of each fact the agent may see, of the model in force and made from its current text."""
    model = store_model(conn)
    if model in (None, OFF_MODEL):
        return {}
    current = {fact_id: sha for fact_id, _, sha, vector_model, vector_sha in _shown(conn) if (vector_model, vector_sha) == (model, sha)}
    rows = conn.execute(f"SELECT fact_id, vector FROM {VECTORS_TABLE} WHERE model = ?", (model,)).fetchall()
    return {int(fact_id): bytes(blob) for fact_id, blob in rows if int(fact_id) in current}
