"""Turning new and changed entries into facts: the interface every extractor fills (`base`), the
offline rules extractor (`rule_based`), and Ollama (prompt, replies, the choice of extractor, the
model comparison), and the history of the calls made (`history`). Reads the Hermes files'
helpers and the store's quarantine; knows nothing of the sync above it."""

from memory_pipeline.lib.extraction.base import (
    EntryToExtract,
    ExtractedFact,
    ExtractionOutcome,
    Extractor,
    entries_to_extract,
    facts_frame,
)

__all__ = ["EntryToExtract", "ExtractedFact", "ExtractionOutcome", "Extractor", "entries_to_extract", "facts_frame"]
