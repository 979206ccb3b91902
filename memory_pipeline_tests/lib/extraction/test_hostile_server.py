"""A hostile or broken local Ollama cannot hold a sync or write to the terminal: every request has
a total deadline (connect and every read together), the `auto` probe included, and whatever the
server says is stripped of control characters before it is printed."""

from memory_pipeline.cli import main
from memory_pipeline.lib.extraction.ollama import OllamaExtractor, OllamaSettings, server_status
from memory_pipeline_tests.support.fake_ollama import FakeOllama, Reply, good

MODEL = "qwen3.6-nothink"


def test_a_version_sent_one_byte_a_second_is_given_up_at_the_probes_deadline():
    with FakeOllama(trickle_version_s=1.0) as server:
        status = server_status(server.url, MODEL, timeout_s=1.0)
    # The client's own timeout is per read: a byte a second never trips it; the probe's deadline does.
    assert not status.reachable and "within 1 s" in status.problem


def test_a_chat_reply_trickled_past_the_timeout_is_a_timeout():
    with FakeOllama() as server:
        server.queue(lambda request: Reply(**{**vars(good(request)), "trickle_s": 0.2}))
        extractor = OllamaExtractor(OllamaSettings(url=server.url, model=MODEL, timeout_s=1.0, retries=0))
        from memory_pipeline.lib.extraction.base import EntryToExtract

        outcome = extractor.extract([EntryToExtract("memory:0123456789abcdef", "memory", "Build server is ci-7", "new", ())])
    assert [c.outcome for c in outcome.calls] == ["timeout"] and len(outcome.quarantine) == 1


def test_terminal_controls_in_the_servers_words_are_never_printed(capsys, demo_home):
    hostile = "0.12\x1b[2J\x1b]0;pwned\x07\rall checks pass\n\u202eevil"
    with FakeOllama(version=hostile, models=(f"{MODEL}:latest\x1b[31m",)) as server:
        assert main(["sync", "--hermes-home", str(demo_home), "--profile", "work", "--ollama-host", server.url]) == 0
    out = capsys.readouterr().out
    assert not any(ord(c) < 32 and c != "\n" for c in out) and "\u202e" not in out
    assert "extractor: " in out and "0.12 [2J ]0;pwned all checks pass evil" in out
