import dagster as dg
import pytest

from memory_pipeline.definitions import defs
from memory_pipeline.defs.ingest import hashed_entries, parsed_entries
from memory_pipeline.defs.partitions import hermes_profiles
from memory_pipeline.defs.resources import HermesHomeResource, PrivacyResource
from memory_pipeline.lib.privacy.choice import Told
from memory_pipeline.lib.privacy.matching import KeywordListError


def test_definitions_load():
    dg.Definitions.validate_loadable(defs)
    assert defs.resolve_job_def("memory_sync_job").partitions_def == hermes_profiles
    for spec in defs.resolve_all_asset_specs():
        assert spec.description and spec.group_name and spec.kinds, spec.key


@pytest.fixture
def instance(demo_home):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(hermes_profiles.name, ["default", "work"])
        yield instance


def test_materialize_both_assets_for_a_demo_partition(demo_home, instance):
    result = dg.materialize(
        [parsed_entries, hashed_entries],
        partition_key="work",
        instance=instance,
        resources={"hermes": HermesHomeResource(hermes_home=str(demo_home))},
    )
    assert result.success
    hashed = result.output_for_node("hashed_entries").frame
    assert len(hashed) == 8 and set(hashed["source"]) == {"memory", "user"}
    assert hashed["entry_id"].is_unique
    metadata = result.asset_materializations_for_node("parsed_entries")[0].metadata
    assert metadata["memory_entries"].value == 5.0
    # Numbers are floats so the UI plots them.
    assert [k for k, v in metadata.items() if isinstance(v.value, int)] == []
    assert isinstance(metadata["memory_cap_usage_pct"].value, float)


def test_findings_and_unreadable_file_surface_in_metadata(demo_home, instance):
    (demo_home / "memories" / "USER.md").write_bytes(b"\xc3\x28 bad")
    (demo_home / "memories" / "MEMORY.md").write_text("§\nonly entry\n", encoding="utf-8")
    result = dg.materialize(
        [parsed_entries, hashed_entries],
        partition_key="default",
        instance=instance,
        resources={"hermes": HermesHomeResource(hermes_home=str(demo_home))},
    )
    assert result.success
    metadata = result.asset_materializations_for_node("parsed_entries")[0].metadata
    assert metadata["unreadable_files"].value == 1.0
    assert metadata["memory_findings"].value == 3.0  # leading §, trailing newline, parse differs
    table = metadata["findings"].value
    assert "`unreadable`" in table and "`leading_delimiter`" in table and "only entry" not in table
    assert result.output_for_node("hashed_entries").held == frozenset({"user"})


def test_a_bad_choice_is_rejected_before_any_step_runs(demo_home):
    from memory_pipeline.launch.execute import run_sync

    with dg.instance_for_test() as instance:
        with pytest.raises(dg.DagsterInvalidConfigError) as info:
            run_sync(instance, demo_home, ["default"], resource_config={"store": {"removal_policy": "bogus"}})
        assert "removal_policy" in str(info.value)
        assert instance.get_runs() == [] and not (demo_home / "memory_store.db").exists()


def test_dg_check_defs_loads_the_project():
    """Dagster's `dg` tooling reads the project from `[tool.dg]` and loads its definitions."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from memory_pipeline_tests.support.repository import REPO_ROOT

    done = subprocess.run(
        [str(Path(sys.executable).with_name("dg")), "check", "defs", "--use-active-venv"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "VIRTUAL_ENV": sys.prefix},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "All definitions loaded successfully." in done.stdout + done.stderr


def test_a_context_and_a_runs_steps_make_each_judge_once_and_retry_a_list_that_failed(tmp_path):
    """A run's steps (the write, the privacy stage, the audit) share the partition's context, so
    a list is compiled once per run and choice; one that cannot be used is tried again when asked again."""
    hermes = HermesHomeResource(hermes_home=str(tmp_path))
    (tmp_path / "memories").mkdir()
    context = hermes.context("default")
    assert hermes.context("default") is context  # one home, one context per profile, for the run
    own = PrivacyResource().judge_for_step(context)
    assert PrivacyResource().judge_for_step(context) is own and context.judge is own
    named = tmp_path / "named.txt"
    told = Told(keywords=str(named))
    with pytest.raises(KeywordListError, match="not found"):
        context.judge_with(told)
    named.write_text("Zhang Wei\n", encoding="utf-8")
    judge = context.judge_with(told)
    assert judge is not own and judge.keywords.matches("Zhang Wei") and context.judge_with(told) is judge
    assert HermesHomeResource(hermes_home=str(tmp_path)).context("default") is not context  # another run, another
