"""Recall by meaning kept in step: the facts the agent may see that lack a vector of the model in
force are embedded, and the vectors no fact may have are dropped, in one transaction."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from memory_pipeline.lib.extraction.embedders import EMBED_BATCH, EmbedderChoice
from memory_pipeline.lib.in_hermes.meaning import OFF_MODEL, quantized
from memory_pipeline.lib.store.fact_store import FactStore

Progress = Callable[[int, int], None]  # (facts embedded so far, facts to embed)

# Who watches this thread's embedding (a terminal's progress bar): the sync command's in-process run
# executes its steps on the command's thread, so the asset reaches the bar without run config.
_watcher: ContextVar[Progress | None] = ContextVar("memory_pipeline_embedding_watcher", default=None)


@contextmanager
def watched(progress: Progress | None) -> Iterator[None]:
    """Embedding done on this thread meanwhile is reported to `progress`."""
    token = _watcher.set(progress)
    try:
        yield
    finally:
        _watcher.reset(token)


def watcher() -> Progress | None:
    return _watcher.get()


@dataclass(frozen=True)
class EmbeddingReport:
    model: str  # the model in force ("off" when recall by meaning is switched off)
    embedded: int
    dropped: int
    seconds: float
    shown: int  # facts the agent may see
    missing: int  # of them, still without a vector of the model in force (written or changed meanwhile)

    @property
    def facts_per_second(self) -> float:
        return round(self.embedded / self.seconds, 1) if self.embedded and self.seconds > 0 else 0.0


def embed_facts(store: FactStore, choice: EmbedderChoice, progress: Progress | None = None) -> EmbeddingReport:
    """Embed what lacks a vector (the encoder runs outside the write transaction, `progress` told
    after each batch); a fact whose text or verdict moved meanwhile keeps no vector of its old
    text. `EmbedderUnavailable` when the encoder cannot be used: nothing is written then."""
    model = choice.name or OFF_MODEL
    encoder = choice.encoder()
    todo = store.reads.facts_to_embed(model) if encoder is not None else []
    started = time.monotonic()
    blobs: list[bytes] = []
    for start in range(0, len(todo), EMBED_BATCH):
        assert encoder is not None  # nothing to embed without one
        blobs += quantized(encoder.encode([fact.text for fact in todo[start : start + EMBED_BATCH]]))
        if progress is not None:
            progress(len(blobs), len(todo))
    seconds = time.monotonic() - started
    if not blobs and store.reads.embedding_model() == model and not store.reads.vectors_not_allowed(model):
        return unembedded(store, choice, seconds)  # nothing to write: the store file stays as it was
    with store.transaction() as writes:
        current = {fact.fact_id: fact.content_sha256 for fact in store.reads.facts_to_embed(model)} if blobs else {}
        rows = [
            (f.fact_id, f.content_sha256, blob) for f, blob in zip(todo, blobs, strict=True) if current.get(f.fact_id) == f.content_sha256
        ]
        saved = writes.embeddings.save(model, rows) if rows else 0
        writes.embeddings.set_model(model)
        dropped = writes.embeddings.drop(store.reads.vectors_not_allowed(model))
    coverage = store.reads.embedding_coverage()
    return EmbeddingReport(model, saved, dropped, round(seconds, 3), coverage.shown, coverage.missing)


def unembedded(store: FactStore, choice: EmbedderChoice, seconds: float = 0.0) -> EmbeddingReport:
    """The store as it is, nothing embedded (nothing to do, or the model in force unavailable)."""
    coverage = store.reads.embedding_coverage()
    return EmbeddingReport(choice.name or OFF_MODEL, 0, 0, round(seconds, 3), coverage.shown, coverage.missing)
