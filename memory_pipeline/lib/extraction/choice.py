"""Which extractor a run uses, and why: `rules`, `ollama`, or `auto` (Ollama when the
server answers and has the model, else rules)."""

from __future__ import annotations

from dataclasses import dataclass

from memory_pipeline.lib.choices import ExtractorMode
from memory_pipeline.lib.extraction.base import Extractor
from memory_pipeline.lib.extraction.ollama import OllamaExtractor, OllamaSettings, is_local, server_status
from memory_pipeline.lib.extraction.rule_based import RulesExtractor


class ExtractorUnavailable(Exception):
    """`ollama` was asked for and cannot be used; the message is one line saying why."""


@dataclass
class ExtractorChoice:
    extractor: Extractor
    reason: str


def choose_extractor(mode: ExtractorMode, settings: OllamaSettings) -> ExtractorChoice:
    mode = ExtractorMode(mode)  # a spelling that is no mode fails here, naming the mode
    if mode is ExtractorMode.RULES:
        return ExtractorChoice(RulesExtractor(), "rules asked for")
    problem = None
    if not is_local(settings.url) and not settings.allow_remote:
        # No request at all goes to a host off this machine: memory holds personal data.
        problem = (
            f"Ollama host {settings.url} is not on this machine and remote hosts are refused "
            "(memory holds personal data; --allow-remote-ollama, or MEMORY_PIPELINE_ALLOW_REMOTE_OLLAMA=1 "
            "where the UI or server is started, allows one)"
        )
    else:
        status = server_status(settings.url, settings.model)
        if not status.reachable:
            problem = f"Ollama at {settings.url} is not reachable ({status.problem})"
        elif status.problem:
            problem = f"Ollama {status.version} at {settings.url} answers, but {status.problem}"
        elif not status.has(settings.model):
            problem = f"Ollama {status.version} at {settings.url} has no model {settings.model} (`ollama pull {settings.model}`)"
        elif not status.can_generate():
            problem = (
                f"model {settings.model} cannot generate text (capabilities: "
                f"{', '.join(status.capabilities or ()) or 'none'}); choose a chat model"
            )
        else:
            return ExtractorChoice(OllamaExtractor(settings), f"Ollama {status.version} at {settings.url} has {settings.model}")
    if mode is ExtractorMode.OLLAMA:
        raise ExtractorUnavailable(problem)
    return ExtractorChoice(RulesExtractor(), f"auto fell back to rules: {problem}")
