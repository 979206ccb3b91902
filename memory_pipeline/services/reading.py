"""Searching and fetching facts across a home's profiles, read-only or (for the CLI, which may
index facts Hermes wrote since the last sync first) with the index brought in step."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_pipeline import environment
from memory_pipeline.context.home import ProfileContext
from memory_pipeline.lib.extraction.embedders import EmbedderChoice, EmbedderUnavailable
from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.in_hermes import meaning, recall
from memory_pipeline.lib.in_hermes.search_gate import recorded_many
from memory_pipeline.lib.store.reads.reader import StoreReader
from memory_pipeline.lib.store.schema.database import StoreError

if TYPE_CHECKING:
    from memory_pipeline.lib.privacy.choice import PrivacyChoice


@dataclass
class Found:
    """What a search or a lookup over several profiles found."""

    facts: list[dict[str, Any]] = field(default_factory=list)  # each with its `profile`
    # For a lookup: ids not answered, whether no fact has them or they are not shown (alike, so
    # that nothing answered tells of a fact that was not shown).
    unavailable_ids: list[int] = field(default_factory=list)
    without_store: list[str] = field(default_factory=list)  # profiles never synced
    # Profiles whose Holographic keeps one store per user (`scope: user`): their main store is not
    # what their agent reads, nor synced, so nothing of it is served.
    not_served: list[str] = field(default_factory=list)


class QueryEncoders:
    """A query's vector for each model a store's vectors were made by, encoded once per model:
    the bundled encoder (loaded at once when `wait`, as the command line does; else in the
    background, the query going by letters until it is ready) or a local Ollama model. None where
    no vector can be had: recall is then by letters alone."""

    def __init__(self, *, wait: bool) -> None:
        self.wait = wait
        self._vectors: dict[tuple[str, str], Any] = {}
        self._warming = False  # the first query of a bundled store starts the load (a server starts without it)

    def vector(self, model: str | None, query: str) -> Any | None:
        if model is None or model == meaning.OFF_MODEL:
            return None
        if (model, query) not in self._vectors:
            vector = self._encode(model, query.replace('"', " ").strip())
            if vector is None:
                return None  # not ready yet, or away: asked again next time
            self._vectors[(model, query)] = vector
        return self._vectors[(model, query)]

    def _encode(self, model: str, text: str) -> Any | None:
        if model == meaning.BUNDLED_MODEL:
            if self.wait:
                meaning.load_bundled()
            elif not self._warming and not meaning.bundled_ready():
                self._warming = True
                meaning.warm_in_background()
            return meaning.encode_query(text)
        try:
            choice = EmbedderChoice.parse(model, environment.ollama_host(), allow_remote=environment.remote_ollama_allowed())
            encoder = choice.encoder()
            return encoder.encode([text])[0] if encoder is not None else None
        except EmbedderUnavailable:
            return None  # the model's server is away: by letters


# Given a profile and the reader its search is about to use: whether its facts may be shown now.
ShownNow = Callable[[ProfileContext, StoreReader], bool]


def search_profiles(
    contexts: list[ProfileContext],
    query: str,
    *,
    limit: int,
    include_private: bool,
    refresh_index: bool,
    encoders: QueryEncoders | None = None,
    shown_now: ShownNow | None = None,
) -> Found:
    """`query` in every served profile's facts, by letters and, with `encoders`, by meaning too
    (`recall.hybrid_search`), at most `limit` per profile: only facts with a "shown" verdict for
    their current text unless `include_private` (the user at the command line). With
    `refresh_index` (the CLI) facts Hermes wrote since the last sync are indexed first (the index
    judges nothing: they are shown once the next sync judged them); without (the agent's server)
    nothing is written. `shown_now`, given, is asked on the search's own connection whether a
    profile's facts may be shown (the agent's server: one connection per profile and call)."""
    found = Found()
    for context in contexts:
        if context.store.per_user:
            found.not_served.append(context.name)
            continue
        if not context.store.exists:
            found.without_store.append(context.name)
            continue
        allowed = (lambda reads, c=context: shown_now(c, reads)) if shown_now is not None else None
        facts = _search_one(context, query, limit, include_private, refresh_index, encoders, allowed)
        found.facts += [{"profile": context.name, **fact} for fact in facts]
    return found


def _search_one(
    context: ProfileContext,
    query: str,
    limit: int,
    include_private: bool,
    refresh_index: bool,
    encoders: QueryEncoders | None,
    allowed: Callable[[StoreReader], bool] | None,
) -> list[dict[str, Any]]:
    if refresh_index:  # the writer, only to index what Hermes wrote since the last sync
        with context.opened(create=False) as store:
            store.index.sync_search_index()
    with context.store.read_only(context.owner) as reads:
        if allowed is not None and not allowed(reads):
            return []
        model = reads.embedding_model() if encoders is not None else None
        vector = encoders.vector(model, query) if encoders is not None and recall.reads_as_words(query) else None
        near = recall.Meaning(context.store.path, model, vector) if model is not None and vector is not None else None
        return reads.hybrid_search(query, near, limit=limit, include_private=include_private)


def facts_of_profile(context: ProfileContext, fact_ids: list[int], *, include_private: bool) -> Found:
    """The facts `fact_store#N` pointers name, from one profile's store, read-only."""
    if context.store.per_user:
        return Found(not_served=[context.name], unavailable_ids=list(fact_ids))
    with context.reading() as reads:
        if reads is None:
            return Found(without_store=[context.name], unavailable_ids=list(fact_ids))
        facts, unavailable = reads.facts_by_id(fact_ids, include_private=include_private)
    return Found(facts=[{"profile": context.name, **f} for f in facts], unavailable_ids=unavailable)


def shown_facts(context: ProfileContext) -> int:
    """How many of the profile's facts the agent may be shown; 0 without a store or one it does not read."""
    if context.store.per_user:
        return 0
    with context.reading() as reads:
        return reads.shown_count() if reads is not None else 0


def judgement_stale(context: ProfileContext, reads: StoreReader | None = None) -> bool:
    """Whether the profile's facts were judged with something other than what its choice names now
    (with the choices of the profiles sharing its store): other keyword lists, or the lists as they
    were then (edited, moved, renamed, gone), or other detector switches in a config.yaml. Its
    agent's surfaces then show nothing of it until a re-tag. `reads`: the store, already open."""
    choices = [c.privacy_choice() for c in [context, *context.sharers]]
    try:
        if reads is not None:
            return _judged_otherwise(reads, choices)
        with context.reading() as opened:
            return opened is not None and _judged_otherwise(opened, choices)
    except StoreError:
        return True


def _judged_otherwise(reads: StoreReader, choices: list[PrivacyChoice]) -> bool:
    judge, recorded = reads.gate(), reads.judge_in_force()  # the switches: compared below, every profile's
    if judge is None or recorded is None:
        return False  # never judged: nothing is shown anyway, and the first sync judges it
    recorded_paths = {reads.recorded_list(p) for p in recorded_many(recorded[0])}
    named = {os.path.normpath(c.keywords_path) if c.keywords_path else None for c in choices}
    switches = {c.settings_sha256 for c in choices}
    return judge.stale or named != recorded_paths or switches != set(recorded_many(recorded[3]))


_RETAG_AGAIN_S = 60.0  # one re-tag started per profile per minute at most


def start_retag(home: Path) -> Callable[[Profile], None]:
    """What starts a profile's re-tag in the background (`memory-pipeline sync --retag --quiet`,
    detached, its output dropped: the sync itself records what it did); at most once a minute
    per profile."""
    started: dict[str, float] = {}

    def retag(profile: Profile) -> None:
        now = time.monotonic()
        if now - started.get(profile.name, -_RETAG_AGAIN_S) < _RETAG_AGAIN_S:
            return
        started[profile.name] = now
        command = [
            sys.executable,
            "-m",
            "memory_pipeline.cli",
            "sync",
            "--retag",
            "--quiet",
            "--hermes-home",
            str(home),
            "--profile",
            profile.name,
        ]
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    return retag
