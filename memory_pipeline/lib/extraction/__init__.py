"""Turning new and changed entries into facts: the interface every extractor fills."""

from memory_pipeline.lib.extraction.base import (
    EntryToExtract,
    ExtractedFact,
    ExtractionOutcome,
    Extractor,
    entries_to_extract,
    facts_frame,
)

__all__ = ["EntryToExtract", "ExtractedFact", "ExtractionOutcome", "Extractor", "entries_to_extract", "facts_frame"]
