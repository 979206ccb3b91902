import json

from memory_pipeline.cli import main
from memory_pipeline_tests.support.fake_ollama import FakeOllama, Reply, facts_for, good
from memory_pipeline_tests.support.store_helpers import said


def _two_models():
    """`fast` answers well; `careless` breaks its JSON once, is slower, and words facts its own way."""
    broke = []

    def behaviour(request):
        if request.body["model"] == "fast":
            return good(request)
        if not broke:
            broke.append(True)
            return Reply("{not json")
        facts = facts_for(request, content=lambda e: "In short: " + e["text"][: len(e["text"]) // 2])
        return Reply(json.dumps({"facts": facts}, ensure_ascii=False), delay_s=0.2)

    return FakeOllama(models=("fast:latest", "careless:latest"), default=behaviour)


def _files(home):
    return sorted((str(p.relative_to(home)), p.stat().st_mtime_ns) for p in home.rglob("*"))


def test_table_of_two_models_on_a_sample_and_nothing_written(capsys, demo_home):
    before = _files(demo_home)
    with _two_models() as server:
        code = main(
            [
                "extract-bench",
                "--hermes-home",
                str(demo_home),
                "--model",
                "fast",
                "--model",
                "careless",
                "--sample",
                "4",
                "--batch-size",
                "4",
                "--ollama-host",
                server.url,
            ]
        )
        out = capsys.readouterr().out
        assert code == 0, out
        assert len(server.chat_requests) == 1 + 2  # fast: one batch; careless: a rejected reply and its retry
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
        for line in out.splitlines()
        if line.startswith("| fast") or line.startswith("| careless")
    }
    entries, calls, s_per_fact, valid, per_entry, quarantined, agreement = rows["fast"]
    assert (entries, calls, valid, per_entry, quarantined, agreement) == ("4", "1", "100%", "1.00", "0", "1.00")
    entries, calls, s_per_fact, valid, per_entry, quarantined, agreement = rows["careless"]
    assert (calls, valid, quarantined) == ("2", "50%", "0") and float(s_per_fact) >= 0.05
    assert 0.2 < float(agreement) < 1.0
    assert "| model | entries | calls | s/fact | JSON valid | facts/entry | quarantined | agreement with fast |" in out
    assert _files(demo_home) == before  # written nowhere but stdout


def test_a_missing_model_is_one_line_before_any_call(capsys, demo_home):
    with _two_models() as server:
        code = main(["extract-bench", "--hermes-home", str(demo_home), "--model", "fast", "--model", "qwen9", "--ollama-host", server.url])
        assert server.chat_requests == []
    err = capsys.readouterr().err
    assert code == 2 and err.strip().endswith("has no model qwen9 (`ollama pull qwen9`)") and len(said(err)) == 1
