"""The real Dagster webserver and daemon (`memory-pipeline ui`), driven through GraphQL, and the UI
rendered by headless Chromium: what a user sees after launching a sync from the browser."""

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest

from memory_pipeline import environment
from memory_pipeline.context.home import keyword_lists
from memory_pipeline.lib.files.digest_key import digest_key
from memory_pipeline.lib.privacy.choice import lists_digest
from memory_pipeline_tests.support.repository import REPO_ROOT
from memory_pipeline_tests.support.servers import DEADLINE_S, REPOSITORY, GraphQL, free_port, wait_for

ASSETS = [
    "parsed_entries",
    "hashed_entries",
    "ledger_diff",
    "extracted_facts",
    "fact_store",
    "privacy_tags",
    "fact_embeddings",
    "fts_index",
    "audit_report",
]
CHECKS = {
    "ledger_integrity",
    "memory_safe",
    "extraction_latency",
    "extraction_json_valid",
    "layer_counts",
    "hashes_fresh",
    "fact_links",
    "mirrors_adopted",
    "facts_match_entries",
    "pointers_resolve",
    "quarantine_empty",
    "privacy_coverage",
    "index_consistency",
    "cap_usage",
    "format_parity",
    "embedding_coverage",
    "entries_distinct",
}
GROUPS = ["ingest", "sync", "extract", "privacy", "meaning", "search", "audit"]
ARTIFACTS = REPO_ROOT / "artifacts"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1000",
]


@pytest.fixture
def dagster_ui(demo_home, tmp_path):
    """`memory-pipeline ui` on a free loopback port, in its own process group (so that whatever a
    failed test leaves is SIGKILLed at the end)."""
    shutil.rmtree(demo_home / "profiles")  # one profile: the daemon's first-look sync stays short
    port = free_port()
    log = (tmp_path / "dagster-dev.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "memory_pipeline.cli", "ui", "--hermes-home", str(demo_home), "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    graphql = GraphQL(url)

    def location_loaded():
        if process.poll() is not None:
            raise AssertionError(f"memory-pipeline ui exited: {(tmp_path / 'dagster-dev.log').read_text()[-2000:]}")
        try:
            data = graphql("{ repositoriesOrError { ... on RepositoryConnection { nodes { name } } } }")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False
        return data["repositoriesOrError"].get("nodes")

    try:
        wait_for(location_loaded, DEADLINE_S, "the webserver's GraphQL endpoint and the code location")
        yield url, graphql, demo_home, process
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # `ui` stopped everything itself
        process.wait()
        for leftover in psutil.Process().children(recursive=True):
            if "dagster" in " ".join(leftover.cmdline()):
                leftover.kill()
        log.close()


def _stops_everything_on_sigterm(process, url: str) -> None:
    """What a service manager or a closing terminal does: SIGTERM to `ui` alone. `ui`, dagster
    dev, the webserver and the daemon are all gone within seconds, and the port is closed."""
    family = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
    assert len(family) >= 3  # ui, dagster dev, and at least the webserver
    process.send_signal(signal.SIGTERM)
    _, alive = psutil.wait_procs(family, timeout=30)
    assert alive == [], [p.cmdline() for p in alive]
    assert process.wait(timeout=5) == 0
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)


LAUNCH = """mutation($params: ExecutionParams!) { launchRun(executionParams: $params) { __typename
    ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }"""
RUN_STATUS = "query($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }"
RUN_EVENTS = """query($id: ID!) { logsForRun(runId: $id, limit: 2000) { ... on EventConnection { events { __typename
    ... on MaterializationEvent { assetKey { path } partition metadataEntries { label ... on FloatMetadataEntry { floatValue } } }
    ... on AssetCheckEvaluationEvent { evaluation { checkName success severity partition assetKey { path } } } } } } }"""
SENSOR_TICKS = """query($selector: SensorSelector!) { sensorOrError(sensorSelector: $selector) { __typename
    ... on Sensor { sensorState { ticks(limit: 5) { status cursor } } } } }"""
BACKFILLS = """{ partitionBackfillsOrError { ... on PartitionBackfills { results { id status isAssetBackfill
    tags { key value } assetSelection { path }
    assetBackfillData { assetBackfillStatuses { ... on AssetPartitionsStatusCounts { assetKey { path }
        numPartitionsTargeted numPartitionsMaterialized numPartitionsFailed } } }
    runs { runId status tags { key value } } } } } }"""
ADD_PARTITION = """mutation($repo: RepositorySelector!) { addDynamicPartition(repositorySelector: $repo,
    partitionsDefName: "hermes_profiles", partitionKey: "default") { __typename } }"""


def _chromium(*args: str, user_data: Path) -> subprocess.CompletedProcess:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("headless Chromium is needed: Debian package `chromium` (`make test` and .ci/run install it)")
    return subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={user_data}", *args], capture_output=True, text=True, timeout=120)


def _edit_keyword_list_after_its_first_look(graphql, home: Path) -> None:
    """Once the daemon's keyword sensor has recorded the list (its first tick holds a cursor), the
    user adds a term: the sensor's next tick must launch one re-tag backfill."""
    selector = {**REPOSITORY, "sensorName": "privacy_keywords_sensor"}
    wait_for(
        lambda: any(t["cursor"] for t in graphql(SENSOR_TICKS, selector=selector)["sensorOrError"]["sensorState"]["ticks"]),
        60,
        "the keyword sensor's first look at the list",
    )
    own = home / "memory-pipeline" / "privacy_keywords.txt"
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text((REPO_ROOT / "data" / "privacy_keywords.txt").read_text(encoding="utf-8") + "\natlas\n", encoding="utf-8")


def _assert_one_retag_backfill_completed(graphql, cli_backfill: str, home: Path) -> None:
    """One backfill for the one edit of the list, whether the keyword sensor or `sync --retag`
    submitted it (the other waits for it, or sees it and launches none), over privacy_tags →
    fts_index → audit_report, each profile materialized, its runs tagged with the backfill: read
    back as the Backfills view does, once the sensor has looked at the edited list."""
    digest = lists_digest(keyword_lists(home), digest_key(environment.data_dir(home)))
    selector = {**REPOSITORY, "sensorName": "privacy_keywords_sensor"}
    wait_for(
        lambda: any(
            digest in (t["cursor"] or "") for t in graphql(SENSOR_TICKS, selector=selector)["sensorOrError"]["sensorState"]["ticks"]
        ),
        60,
        "the keyword sensor's look at the edited list",
    )
    # The CLI is done once each profile's run is; the daemon marks the backfill completed after.
    backfills = wait_for(
        lambda: (
            (found := graphql(BACKFILLS)["partitionBackfillsOrError"]["results"])
            and all(b["status"] not in ("REQUESTED", "CANCELING", "FAILING") for b in found)
            and found
        ),
        60,
        "the re-tag backfill to be marked completed",
    )
    assert [b["id"] for b in backfills] == [cli_backfill], "a second backfill for the same edit"
    (backfill,) = backfills
    assert next(t["value"] for t in backfill["tags"] if t["key"] == "memory_pipeline/retag_by") in ("cli", "sensor")
    assert backfill["status"] == "COMPLETED_SUCCESS" and backfill["isAssetBackfill"], backfill
    assert sorted(a["path"][0] for a in backfill["assetSelection"]) == ["audit_report", "fts_index", "privacy_tags"]
    statuses = {s["assetKey"]["path"][0]: s for s in backfill["assetBackfillData"]["assetBackfillStatuses"]}
    counts = {k: (s["numPartitionsTargeted"], s["numPartitionsMaterialized"], s["numPartitionsFailed"]) for k, s in statuses.items()}
    assert counts == {k: (1, 1, 0) for k in ("privacy_tags", "fts_index", "audit_report")}
    assert backfill["runs"] and all(r["status"] == "SUCCESS" for r in backfill["runs"])
    assert all({"key": "dagster/backfill", "value": backfill["id"]} in r["tags"] for r in backfill["runs"])


def test_launch_a_sync_through_graphql_and_see_the_asset_graph(dagster_ui, tmp_path):
    url, graphql, home, process = dagster_ui
    # The discovery sensor adds the profile when the daemon starts; adding it here too removes the race.
    assert graphql(ADD_PARTITION, repo=REPOSITORY)["addDynamicPartition"]["__typename"] in (
        "AddDynamicPartitionSuccess",
        "DuplicateDynamicPartitionError",
    )
    # The backfills these start run while the rest of the test does: the run queue orders the runs.
    _edit_keyword_list_after_its_first_look(graphql, home)
    retag = subprocess.Popen(
        [sys.executable, "-m", "memory_pipeline.cli", "sync", "--retag", "--json", "--hermes-home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    launched = graphql(
        LAUNCH,
        params={
            "selector": {**REPOSITORY, "jobName": "memory_sync_job"},
            "executionMetadata": {"tags": [{"key": "dagster/partition", "value": "default"}]},
        },
    )["launchRun"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]
    status = wait_for(
        lambda: (
            graphql(RUN_STATUS, id=run_id)["runOrError"]["status"] in ("SUCCESS", "FAILURE", "CANCELED")
            and graphql(RUN_STATUS, id=run_id)["runOrError"]["status"]
        ),
        180,
        "the run to finish",
    )
    assert status == "SUCCESS"

    events = graphql(RUN_EVENTS, id=run_id)["logsForRun"]["events"]
    materialized = {e["assetKey"]["path"][0]: e for e in events if e["__typename"] == "MaterializationEvent"}
    assert sorted(materialized) == sorted(ASSETS)
    assert {e["partition"] for e in materialized.values()} == {"default"}
    store = {m["label"]: m.get("floatValue") for m in materialized["fact_store"]["metadataEntries"]}
    assert store["facts_total"] == 23.0  # a float: the UI plots it
    checks = {e["evaluation"]["checkName"]: e["evaluation"] for e in events if e["__typename"] == "AssetCheckEvaluationEvent"}
    assert set(checks) == CHECKS
    failing = {name: c["severity"] for name, c in checks.items() if not c["success"]}
    assert failing == {"cap_usage": "WARN"}  # the demo MEMORY.md sits at 94% of its cap on purpose
    assert checks["ledger_integrity"]["assetKey"]["path"] == ["ledger_diff"]
    assert (home / "memory_store.db").exists()

    # The global lineage page with every group expanded, as a person opens it.
    expanded = ",".join(f"global@global:{group}" for group in GROUPS)
    page = f"{url}/asset-groups?{urllib.parse.urlencode({'expanded': expanded})}"
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "asset-graph.png"
    screenshot.unlink(missing_ok=True)
    # One page load gives both the rendered DOM and the screenshot.
    shown = _chromium("--virtual-time-budget=20000", "--dump-dom", f"--screenshot={screenshot}", page, user_data=tmp_path / "chromium")
    assert shown.returncode == 0, shown.stderr[-2000:]
    missing = [name for name in ASSETS if name not in shown.stdout]
    assert missing == [], f"not rendered: {missing}"
    assert screenshot.stat().st_size > 20_000, shown.stderr[-2000:]

    out, err = retag.communicate(timeout=180)
    assert retag.returncode == 0, err[-2000:]
    result = json.loads(out)
    assert result["ok"] and result["backfill"] and [p["profile"] for p in result["profiles"]] == ["default"]
    _assert_one_retag_backfill_completed(graphql, result["backfill"], home)
    # The runs' step events are in the UI, not on the `ui` terminal (warnings and errors only).
    terminal = (tmp_path / "dagster-dev.log").read_text(encoding="utf-8", errors="replace")
    assert " - STEP_START - " not in terminal and " - DEBUG - " not in terminal, terminal[-2000:]
    _stops_everything_on_sigterm(process, url)
