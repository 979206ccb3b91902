import json
import subprocess
import sys

import pytest

from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline_tests.support.store_helpers import said

SOURCE_KEYS = {"source", "path", "exists", "chars", "limit", "hermes_entry_count", "entries", "findings"}
FINDING_CODES = {
    "crlf",
    "bom",
    "leading_delimiter",
    "doubled_delimiter",
    "preamble",
    "trailing_newline",
    "duplicate_entry",
    "entry_over_cap",
    "over_cap",
    "unreadable",
    "drift_backup",
    "hermes_parse_differs",
}


def _entries_json(capsys, *args):
    code = main(["entries", "--json", *args])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_json_contract_on_the_demo_home(capsys, demo_home):
    code, payload, err = _entries_json(capsys, "--hermes-home", str(demo_home))
    assert code == 0 and said(err) == []
    assert [p["profile"] for p in payload["profiles"]] == ["default", "work"]
    for profile in payload["profiles"]:
        assert [s["source"] for s in profile["sources"]] == ["memory", "user"]
        for source in profile["sources"]:
            assert set(source) == SOURCE_KEYS
            assert source["exists"] and source["hermes_entry_count"] == len(source["entries"])
            assert source["limit"] == {"memory": 2200, "user": 1375}[source["source"]]
            for position, entry in enumerate(source["entries"], start=1):
                assert set(entry) == {"entry_id", "position", "sha256", "chars", "text"}
                assert entry["position"] == position
                assert entry["sha256"] == entry_sha256(entry["text"])
                assert entry["entry_id"] == f"{source['source']}:{entry['sha256'][:16]}"
                assert entry["chars"] == len(entry["text"])
    default_memory = payload["profiles"][0]["sources"][0]
    assert 0.85 * 2200 < default_memory["chars"] <= 2200, "one demo file sits near its cap"


def test_profile_selection_and_findings(capsys, tmp_path):
    memories = tmp_path / "profiles" / "lab" / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_bytes(b"\xef\xbb\xbfone\r\n\xc2\xa7\r\ntwo\r\n")
    code, payload, _ = _entries_json(capsys, "--hermes-home", str(tmp_path), "--profile", "lab")
    assert code == 0
    (profile,) = payload["profiles"]
    memory, user = profile["sources"]
    assert [e["text"] for e in memory["entries"]] == ["one", "two"]
    codes = {f["code"] for f in memory["findings"]}
    assert codes == {"bom", "crlf", "trailing_newline", "hermes_parse_differs"} and codes <= FINDING_CODES
    assert user["exists"] is False and user["entries"] == [] and user["findings"] == []


def test_hermes_home_from_environment(capsys, monkeypatch, demo_home):
    monkeypatch.setenv("HERMES_HOME", str(demo_home))
    _, payload, _ = _entries_json(capsys, "--profile", "work")
    assert payload["profiles"][0]["sources"][0]["path"] == str(demo_home / "profiles/work/memories/MEMORY.md")


def test_unreadable_file_one_line_error_and_exit_1(capsys, demo_home):
    path = demo_home / "memories" / "USER.md"
    path.write_bytes(b"ok\n\xc2\xa7\n\xff")
    code, payload, err = _entries_json(capsys, "--hermes-home", str(demo_home), "--profile", "default")
    assert code == 1
    assert said(err) == [f"memory-pipeline: {path}: invalid UTF-8 at byte 6"]
    user = payload["profiles"][0]["sources"][1]
    assert user["entries"] == [] and [f["code"] for f in user["findings"]] == ["unreadable"]


def test_unknown_profile_is_a_clear_error(capsys, demo_home):
    assert main(["entries", "--hermes-home", str(demo_home), "--profile", "nope"]) == 2
    assert said(capsys.readouterr().err) == [f"memory-pipeline: {demo_home.resolve()}: no profile named 'nope' (profiles: default, work)"]


def test_table_output_through_the_installed_command(demo_home):
    out = subprocess.run(
        [sys.executable, "-m", "memory_pipeline.cli", "entries", "--hermes-home", str(demo_home), "--profile", "work"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "work/MEMORY.md: 5 entries, 524/2200 chars (24%), Hermes reads 5" in out


@pytest.mark.parametrize(
    "command",
    [["entries"], ["sync"], ["status"], ["audit"], ["search", "部署"], ["mirrors"], ["compact"], ["ledger", "export", "-"], ["mcp"]],
)
def test_every_command_lists_the_profiles_when_the_one_named_is_not_there(capsys, demo_home, command):
    assert main([*command, "--hermes-home", str(demo_home), "--profile", "nope"]) == 2
    assert "no profile named 'nope' (profiles: default, work)" in capsys.readouterr().err
