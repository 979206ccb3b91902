"""An optional one-sentence summary from the local model, for `compact --summarizer ollama`.

The model is asked for a summary in the entry's own language; its answer is only an offer:
compaction takes it when it is shorter than the rules' summary and names nothing the entry does
not (`compaction.accepted`), and otherwise keeps the rules' summary. A model that fails, stalls
or answers garbage costs one line in the output, never the compaction."""

from __future__ import annotations

import json

from memory_pipeline.lib.choices import ExtractorMode
from memory_pipeline.lib.extraction.choice import choose_extractor
from memory_pipeline.lib.extraction.deadline import DeadlineExceeded, within
from memory_pipeline.lib.extraction.ollama import OllamaSettings, _transport_options

SUMMARY_PROMPT = (
    "Summarise the memory entry the user gives you in one short sentence, in the entry's own language. "
    "Use only words, numbers and names that appear in the entry; never add a fact. "
    'Answer as JSON: {"summary": "..."}.'
)
_SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
_SUMMARY_TIMEOUT_S = 30.0


class OllamaSummarizer:
    """Callable as compaction's `model`: (entry, rules' summary) -> the model's summary, or None."""

    def __init__(self, settings: OllamaSettings):
        self.settings = settings
        self.failures = 0  # calls that gave no usable answer (said once by the caller)

    @classmethod
    def checked(cls, settings: OllamaSettings) -> OllamaSummarizer:
        """The summarizer once the server and model are known to answer (the host refused off this
        machine unless allowed); `ExtractorUnavailable` with one line otherwise."""
        choose_extractor(ExtractorMode.OLLAMA, settings)
        return cls(settings)

    def __call__(self, entry: str, rules: str) -> str | None:
        import ollama

        client = ollama.Client(host=self.settings.url, timeout=_SUMMARY_TIMEOUT_S, **_transport_options(self.settings.url))
        messages = [{"role": "system", "content": SUMMARY_PROMPT}, {"role": "user", "content": entry}]
        request = lambda: client.chat(  # noqa: E731
            model=self.settings.model, messages=messages, format=_SCHEMA, think=False, stream=False, options={"temperature": 0}
        )
        try:
            reply = json.loads(within(_SUMMARY_TIMEOUT_S, request, abandon=client.close).message.content or "")
            summary = reply.get("summary") if isinstance(reply, dict) else None
        except (DeadlineExceeded, ollama.ResponseError, ValueError, AttributeError):
            summary = None  # a stall, an HTTP error, a body that is no chat reply or no JSON
        except Exception:  # noqa: BLE001 - httpx's transport errors and the like: the rules' summary stands
            summary = None
        finally:
            client.close()
        if not isinstance(summary, str) or not summary.strip():
            self.failures += 1
            return None
        return summary
