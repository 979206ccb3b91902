import json

from memory_pipeline.cli import main


def test_status_before_any_sync(capsys, demo_home):
    assert main(["status", "--hermes-home", str(demo_home), "--profile", "work"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "work: entries memory 5 (24% of cap), user 3 (16% of cap); no store yet",
        "  last sync never; last write never; checks not passing: none",
    ]
    assert not (demo_home / "profiles" / "work" / "memory_store.db").exists()  # status creates nothing


def test_status_after_a_sync(capsys, synced_home):
    assert main(["status", "--hermes-home", str(synced_home), "--json"]) == 0
    profiles = {p["profile"]: p for p in json.loads(capsys.readouterr().out)["profiles"]}
    default = profiles["default"]
    assert default["entries"] == {"memory": 18, "user": 5} and default["cap_usage_pct"]["memory"] == 94.5
    assert (default["facts"], default["pipeline_facts"], default["quarantined"]) == (23, 23, 0)
    assert default["last_sync"] and default["last_write"] and default["failing_checks"] == ["cap_usage (WARN)"]
    assert profiles["work"]["failing_checks"] == [] and profiles["work"]["store_error"] is None
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "default: entries memory 18 (94% of cap), user 5 (24% of cap); 23 facts (23 current, 0 compacted, 0 Hermes' own, "
        "0 retired in place); 0 retired to the archive; 0 entries quarantined"
    )


def test_status_rounds_cap_use_as_every_other_command(capsys, synced_home):
    """2078 of 2132 characters is 97.47%: 97% in status as in the audit (never 98% by rounding twice)."""
    (synced_home / "config.yaml").write_text("memory:\n  memory_char_limit: 2132\n", encoding="utf-8")
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "memory 18 (97% of cap)" in capsys.readouterr().out
    main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--verbose"])
    assert "MEMORY.md 2078/2132 chars (97%)" in capsys.readouterr().out


def test_a_plugin_copy_of_another_version_is_said_with_the_command_that_replaces_it(capsys, synced_home):
    """An older plugin (another version of the detectors) withholds every fact the newer pipeline
    judged, silently: status names it, and its fix, run as printed, replaces the copy."""
    import shlex

    from memory_pipeline.lib.hermes.agent_setup import plugin_dir
    from memory_pipeline.lib.in_hermes.search_gate import DETECTORS_VERSION

    home = ["--hermes-home", str(synced_home), "--profile", "default"]
    assert main(["status", *home, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["profiles"][0]["hermes_plugin"] == "not installed"
    assert main(["hermes-plugin", "install", *home]) == 0
    capsys.readouterr()
    assert main(["status", *home, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["profiles"][0]["hermes_plugin"] == "this install's"

    gate = plugin_dir(synced_home) / "in_hermes" / "search_gate.py"
    current = f'DETECTORS_VERSION = "{DETECTORS_VERSION}"'
    assert current in gate.read_text(encoding="utf-8")
    gate.write_text(gate.read_text(encoding="utf-8").replace(current, 'DETECTORS_VERSION = "1"'), encoding="utf-8")  # an older copy
    assert main(["status", *home]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "Hermes plugin" in line]
    assert "another version's" in line
    fix = line.split("fix: ")[1]
    assert fix == "memory-pipeline hermes-plugin install --profile default"
    assert main([*shlex.split(fix)[1:], "--hermes-home", str(synced_home)]) == 0
    capsys.readouterr()
    assert main(["status", *home]) == 0
    assert "Hermes plugin" not in capsys.readouterr().out and current in gate.read_text(encoding="utf-8")
