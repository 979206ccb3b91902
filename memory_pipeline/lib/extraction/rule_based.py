"""The offline, deterministic extractor: one verbatim fact per entry."""

from __future__ import annotations

import re
import time

from memory_pipeline.lib.extraction.base import EntryToExtract, ExtractedFact, ExtractionOutcome
from memory_pipeline.lib.hermes.memory_files import title_entity
from memory_pipeline.lib.store.schema.database import SOURCE_CATEGORY

# Simple keyword heuristics for MEMORY.md entries; USER.md entries are always `user_pref`.
_TOOL = re.compile(
    r"(~/|/usr/|/opt/|\.py\b|\.sh\b|`[^`]*\s[^`]*`|\b(?:CLI|command|script|path|install|ollama|sqlite|pytest|uv|"
    r"docker|restic|make)\b|命令|脚本|路径|工具|安装)",
    re.IGNORECASE,
)
_PROJECT = re.compile(
    r"(\b(?:PR|pull request|repo|branch|release|deploy|ticket|sprint|roadmap|milestone|review|on-call|incident)s?\b|"
    r"项目|需求|发布|上线|分支|评审|值班)",
    re.IGNORECASE,
)


def rules_category(source: str, text: str) -> str:
    if source == "user":
        return SOURCE_CATEGORY["user"]
    if _PROJECT.search(text):
        return "project"
    if _TOOL.search(text):
        return "tool"
    return SOURCE_CATEGORY["memory"]


class RulesExtractor:
    name = "rules"
    model = ""
    prompt_version = "rules-1"

    def extract(self, entries: list[EntryToExtract]) -> ExtractionOutcome:
        outcome = ExtractionOutcome()
        for entry in entries:
            started = time.perf_counter()
            update_id = entry.candidates[0][0] if entry.candidates else 0
            outcome.facts.append(
                ExtractedFact(
                    entry_id=entry.entry_id,
                    content=entry.text,
                    category=rules_category(entry.source, entry.text),
                    entity=title_entity(entry.text),
                    action="update" if update_id else "add",
                    existing_fact_id=update_id,
                    latency_s=time.perf_counter() - started,
                )
            )
        return outcome
