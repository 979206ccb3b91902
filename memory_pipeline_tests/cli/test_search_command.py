import json

from memory_pipeline.cli import main
from memory_pipeline_tests.store_helpers import sync_json


def test_json_contract_and_private_filter(capsys, synced_home):
    demo_home = synced_home
    assert main(["search", "备份", "--hermes-home", str(demo_home), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert set(result) == {"fact_id", "content", "category", "tags", "score"}
    assert "备份" in result["content"] and isinstance(result["score"], float)
    assert main(["search", "张伟", "--hermes-home", str(demo_home), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"results": []}
    assert main(["search", "张伟", "--hermes-home", str(demo_home), "--include-private"]) == 0
    assert capsys.readouterr().out.startswith("#21 [user_pref] **联系人 张伟")


def test_other_profile_and_limit(capsys, synced_home):
    demo_home = synced_home
    assert main(["search", "atlas", "--hermes-home", str(demo_home), "--profile", "work", "--limit", "1", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 1


def test_clear_errors(capsys, demo_home):
    assert main(["search", "部署", "--hermes-home", str(demo_home)]) == 2
    assert "fact store does not exist" in capsys.readouterr().err
    sync_json(capsys, demo_home, "--profile", "default")
    assert main(["search", "x", "--hermes-home", str(demo_home)]) == 2
    assert capsys.readouterr().err.strip() == "memory-pipeline: a search query needs at least 2 characters"
