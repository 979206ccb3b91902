import json

from memory_pipeline.cli import main
from memory_pipeline_tests.support.store_helpers import said
from memory_pipeline_tests.support.syncing import sync_outcome


def test_json_contract_and_private_filter(capsys, synced_home):
    demo_home = synced_home
    assert main(["search", "备份", "--hermes-home", str(demo_home), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert set(result) == {"profile", "fact_id", "content", "category", "tags", "score", "retired", "matched"}
    assert "备份" in result["content"] and isinstance(result["score"], float) and result["profile"] == "default"
    assert main(["search", "张伟", "--hermes-home", str(demo_home), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"results": [], "private_shown": False, "profiles_without_store": []}
    assert main(["search", "张伟", "--hermes-home", str(demo_home), "--include-private"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("default #21 [user_pref] **联系人 张伟") and "    tags: " in out and "private-person" in out


def test_a_search_whose_only_matches_are_private_says_what_is_never_shown(capsys, synced_home):
    assert main(["search", "张伟", "--hermes-home", str(synced_home)]) == 0
    out, err = capsys.readouterr()
    assert out == "no facts found\n" and "--include-private shows every fact" in err  # a fixed note, never a count


def test_every_profile_by_default_each_result_naming_its_own(capsys, synced_home):
    assert main(["search", "atlas", "--hermes-home", str(synced_home), "--json"]) == 0
    profiles = {r["profile"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert profiles == {"default", "work"}
    assert main(["search", "atlas", "--hermes-home", str(synced_home)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("work #") for line in lines) and any(line.startswith("default #") for line in lines)


def test_other_profile_and_limit(capsys, synced_home):
    demo_home = synced_home
    assert main(["search", "atlas", "--hermes-home", str(demo_home), "--profile", "work", "--limit", "1", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 1


def test_clear_errors(capsys, demo_home):
    assert main(["search", "部署", "--hermes-home", str(demo_home)]) == 2
    assert "no fact store yet for profile default, work" in capsys.readouterr().err
    sync_outcome(demo_home, "default")
    assert main(["search", "x", "--hermes-home", str(demo_home)]) == 2
    assert said(capsys.readouterr().err) == [
        "memory-pipeline: a search needs a word of at least 2 characters, or one Chinese, Japanese or Korean character"
    ]
    assert main(["search", "署", "--hermes-home", str(demo_home), "--json"]) == 0  # one character is a word there
    results = json.loads(capsys.readouterr().out)["results"]
    assert results and all("署" in r["content"] for r in results)
