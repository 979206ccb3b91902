"""Choosing the extractor: where an Ollama host is (local or refused), and `auto` taking Ollama
only when a real server answers and has a model that generates text."""

from dataclasses import replace

import pytest

from memory_pipeline import environment
from memory_pipeline.lib.extraction.choice import ExtractorUnavailable, choose_extractor
from memory_pipeline.lib.extraction.ollama import OllamaSettings, is_local, ollama_url
from memory_pipeline_tests.support.fake_ollama import FakeOllama
from memory_pipeline_tests.support.servers import outside_address

MODEL = "qwen3.6-nothink"


@pytest.mark.parametrize(
    "host,url,local",
    [
        ("", "http://127.0.0.1:11434", True),
        ("localhost", "http://localhost:11434", True),
        (":5000", "http://127.0.0.1:5000", True),
        ("0.0.0.0", "http://0.0.0.0:11434", True),
        ("http://[::1]:8080", "http://[::1]:8080", True),
        ("127.8.9.10:80", "http://127.8.9.10:80", True),
        ("192.168.1.20", "http://192.168.1.20:11434", False),
        ("https://ollama.example.com", "https://ollama.example.com:443", False),
        ("gpu-box:11434", "http://gpu-box:11434", False),
    ],
)
def test_hosts(monkeypatch, host, url, local):
    monkeypatch.delenv("OLLAMA_HOST")
    assert ollama_url(host) == url and is_local(url) is local
    monkeypatch.setenv("OLLAMA_HOST", host)  # the environment is read the same way
    assert environment.ollama_host("") == url


def test_a_remote_host_is_refused_unless_allowed():
    outside = outside_address()
    with FakeOllama(bind="0.0.0.0", host=outside or "192.0.2.1") as remote:
        settings = OllamaSettings(url=remote.url, model=MODEL)
        assert not is_local(remote.url)
        with pytest.raises(ExtractorUnavailable, match="not on this machine"):
            choose_extractor("ollama", settings)
        fallback = choose_extractor("auto", settings)
        assert fallback.extractor.name == "rules" and "remote hosts are refused" in fallback.reason
        assert "--allow-remote-ollama" in fallback.reason  # the way out, named
        assert remote.requests == [], "nothing may reach a refused host"
        if outside:  # allowed explicitly, the same host is used
            allowed = choose_extractor("ollama", replace(settings, allow_remote=True))
            assert allowed.extractor.name == "ollama" and remote.requests


def test_auto_uses_ollama_only_when_it_answers_and_has_the_model(server):
    server.models = (f"{MODEL}:latest", "nomic-embed-text:latest")
    chosen = choose_extractor("auto", OllamaSettings(url=server.url, model=MODEL))
    assert chosen.extractor.name == "ollama" and "has qwen3.6-nothink" in chosen.reason
    missing = choose_extractor("auto", OllamaSettings(url=server.url, model="llama3.2"))
    assert missing.extractor.name == "rules" and "has no model llama3.2" in missing.reason
    embedding = choose_extractor("auto", OllamaSettings(url=server.url, model="nomic-embed-text"))
    assert embedding.extractor.name == "rules" and "cannot generate text (capabilities: embedding)" in embedding.reason
    assert {path for path, _ in server.requests} == {"/api/version", "/api/tags", "/api/show"}
    with pytest.raises(ExtractorUnavailable, match="not reachable"):
        choose_extractor("ollama", OllamaSettings(url="http://127.0.0.1:9", model=MODEL))
    assert server.chat_requests == []
    # A server that answers, but /api/show not as Ollama does: said as such, not "not reachable".
    server.show_raw = "<html>proxy error</html>"
    odd = choose_extractor("auto", OllamaSettings(url=server.url, model=MODEL))
    assert odd.extractor.name == "rules" and "not reachable" not in odd.reason
    assert "answers, but unexpected /api/show answer for qwen3.6-nothink (JSONDecodeError)" in odd.reason
