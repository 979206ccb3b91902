"""A run's stage reports (`runs.stage_reports`) cross the Dagster boundary as metadata: each report
comes back from what it writes, and a real run's assets write every report, so a renamed field fails
here instead of printing zeros."""

from dataclasses import fields

import dagster as dg
import pytest

from memory_pipeline.launch.execute import run_sync
from memory_pipeline.lib.store.sync_report import SyncReport
from memory_pipeline.runs.stage_reports import (
    AuditReport,
    DiffReport,
    EmbeddingsReport,
    ExtractReport,
    ParseReport,
    PrivacyReport,
    RunOutputs,
    WriteReport,
)
from memory_pipeline.runs.summary import summary_of_run
from memory_pipeline_tests.support.run_metadata import run_metadata

FILLED = [
    ParseReport("ab12", "MEMORY.md: not UTF-8", "USER.md"),
    DiffReport(2, 5, 1, 3, (7, 11, 13)),
    ExtractReport("ollama", "asked for", "qwen3", 4),
    WriteReport(SyncReport(added=3, updated=1, removed=2, facts_total=40), "/home/u/.hermes/memory_store.db"),
    PrivacyReport(6, 2, 1, (4, 9), (12,), "digest"),
    EmbeddingsReport("bundled:usem3", 12),
    AuditReport(True, "watermark"),
]


@pytest.mark.parametrize("report", FILLED, ids=lambda r: type(r).__name__)
def test_each_stage_report_comes_back_from_its_metadata(report):
    written = report.metadata()
    assert all(not isinstance(v, int) or isinstance(v, bool) for v in written.values())  # numbers go as floats
    assert type(report).from_metadata(written) == report
    assert type(report).from_metadata({}) == type(report)()  # a step that did not run: its zero


def test_a_privacy_report_lists_the_first_hundred_ids_and_counts_the_rest():
    report = PrivacyReport(tagged=150, newly_private_ids=tuple(range(1, 151)))
    written = report.metadata()["newly_private_ids"]
    assert written.endswith(",… (150 in all)") and written.count(",") == 100
    assert PrivacyReport.from_metadata(report.metadata()).newly_private_ids == tuple(range(1, 101))


def test_every_report_is_written_by_a_real_run_and_read_back(demo_home):
    with dg.instance_for_test() as instance:
        (run,) = run_sync(instance, demo_home, ["default"])
        metadata = run_metadata(instance, run.run_id)
    assert run.success, run.error
    for part in fields(RunOutputs):
        asset, report = RunOutputs.ASSETS[part.name], getattr(run.outputs, part.name)
        assert set(report.metadata()) <= set(metadata[asset]), part.name
    assert run.outputs.parse.files_sha256 and run.outputs.audit.store_in_step and run.outputs.privacy.keyword_list_digest
    summary = summary_of_run(run)
    assert summary.added > 0 and summary.facts_total > 0 and summary.extractor and summary.store.endswith("memory_store.db")


def test_sync_options_come_back_from_the_run_config_they_make():
    from memory_pipeline.lib.choices import ExtractorMode, PrivacyPolicy, RemovalPolicy, VectorFormat
    from memory_pipeline.runs.options import SyncOptions

    every = SyncOptions(
        extractor=ExtractorMode.OLLAMA,
        model="qwen3",
        batch_size=4,
        ollama_host="http://127.0.0.1:11434",
        removal_policy=RemovalPolicy.DELETE,
        privacy_policy=PrivacyPolicy.TAG,
        vector_format=VectorFormat.HRR1,
        cap_target=0.7,
        keywords_path="/home/u/keywords.txt",
        embedder="off",
    )
    for options in (
        SyncOptions(),
        every,
        SyncOptions(no_keywords=True),
        SyncOptions(extractor=ExtractorMode.RULES, privacy_policy=PrivacyPolicy.HIDE),
    ):
        assert SyncOptions.from_run_config(options.run_config()) == options
    assert SyncOptions.from_run_config(every.run_config(), allow_remote_ollama=True).allow_remote_ollama  # never in run config
