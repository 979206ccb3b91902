"""A Hermes installed without NumPy (`pip install hermes-agent==0.19.0` brings none): its
Holographic provider stores the agent's facts without an HRR vector and builds no bank. That is
Hermes' state, not damage: the sync adds the vector Holographic would have computed, bit for bit,
exits 0 and says so; the next sync with nothing new is skipped; every check passes."""

import json
import shutil
import subprocess
import sys
import textwrap

from memory_pipeline.cli import main
from memory_pipeline_tests.support.hermes_oracle import holographic_store
from memory_pipeline_tests.support.store_helpers import query

# Hermes' own provider and its `fact_store` tool, in a process where NumPy cannot be imported.
WITHOUT_NUMPY = textwrap.dedent(
    """
    import json, sys
    sys.modules["numpy"] = None  # what an environment without NumPy looks like to an import
    from plugins.memory.holographic import HolographicMemoryProvider, holographic
    assert not holographic._HAS_NUMPY
    provider = HolographicMemoryProvider(config={})
    provider.initialize("session-without-numpy")
    ids = []
    for content in json.loads(sys.argv[1]):
        answer = json.loads(provider.handle_tool_call("fact_store", {"action": "add", "content": content, "category": "general"}))
        ids.append(answer["fact_id"])
    provider.shutdown()
    print(json.dumps(ids))
    """
)
FACTS = ["Alice from the data team prefers async reviews", "Project Zephyr 的发布窗口是周四晚上"]


def _hermes_adds(home, facts: list[str]) -> list[int]:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_NUMPY, json.dumps(facts, ensure_ascii=False)],
        capture_output=True,
        text=True,
        env={"HERMES_HOME": str(home), "HOME": str(home.parent), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_facts_hermes_stored_without_numpy_get_holographics_own_vector(synced_home, tmp_path, capsys, monkeypatch):
    db = synced_home / "memory_store.db"
    ids = _hermes_adds(synced_home, FACTS)
    assert query(db, f"SELECT count(*) FROM facts WHERE hrr_vector IS NULL AND fact_id IN ({ids[0]}, {ids[1]})") == [(2,)]
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default"]) == 1
    assert "2 missing (stored so by Hermes without NumPy in its environment: the next sync adds them)" in capsys.readouterr().out

    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    out = capsys.readouterr()
    assert "HRR vectors: 2 added to facts Hermes stored without one" in out.out and "NumPy is missing from Hermes' environment" in out.out
    assert "changed during the run" not in out.out + out.err and "failed" not in out.err
    ours = dict(query(db, f"SELECT fact_id, hrr_vector FROM facts WHERE fact_id IN ({ids[0]}, {ids[1]})"))
    assert query(db, "SELECT content FROM facts WHERE fact_id = ?", (ids[1],)) == [(FACTS[1],)]  # only the vector was filled

    # What Holographic itself computes for these facts, with NumPy, on a copy of the store.
    copy = tmp_path / "copy.db"
    shutil.copyfile(db, copy)
    store = holographic_store(copy)
    try:
        for fact_id, content in zip(ids, FACTS, strict=True):
            store._compute_hrr_vector(fact_id, content)
    finally:
        store.close()
    assert dict(query(copy, f"SELECT fact_id, hrr_vector FROM facts WHERE fact_id IN ({ids[0]}, {ids[1]})")) == ours

    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "default: unchanged (skipped" in capsys.readouterr().out
    # Hermes' own cron, run again after more facts without vectors: a run that succeeded, one line at most.
    from cron.scheduler import _run_job_script

    from memory_pipeline.cli.cron_command import SCRIPT_NAME

    assert main(["cron", "install", "--hermes-home", str(synced_home)]) == 0
    _hermes_adds(synced_home, ["Carol runs the on-call rota"])
    monkeypatch.setenv("HERMES_HOME", str(synced_home))
    ok, output = _run_job_script(SCRIPT_NAME)
    assert ok and output.count("\n") == 0 and "index_consistency" not in output, output
    capsys.readouterr()
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--json"]) == 0
    checks = {c["name"]: c["passed"] for c in json.loads(capsys.readouterr().out)["profiles"][0]["checks"]}
    assert checks["index_consistency"] and checks["mirrors_adopted"]
