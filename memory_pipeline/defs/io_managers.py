"""Where `audit_report` keeps its value between steps: each profile's last `AuditRun`, as JSON."""

from pathlib import Path

import dagster as dg

from memory_pipeline.lib.audit.checks import AuditRun
from memory_pipeline.lib.files.reading import UnreadableFile, read_text_file
from memory_pipeline.lib.files.writing import replace_file


class _AuditRuns(dg.IOManager):
    def __init__(self, directory: Path):
        self.directory = directory

    def _path(self, partition: str) -> Path:
        return self.directory / f"{partition}.json"  # partition keys are checked profile names

    def handle_output(self, context: dg.OutputContext, obj: AuditRun) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        replace_file(self._path(context.asset_partition_key), obj.to_json())

    def load_input(self, context: dg.InputContext) -> AuditRun | None:
        try:
            text = read_text_file(self._path(context.asset_partition_key))
            return AuditRun.from_json(text) if text is not None else None
        except (UnreadableFile, ValueError, KeyError, TypeError):
            return None  # a report this version cannot read: the checks audit afresh


# A plain IO manager definition: it has no configuration (a configurable one adds a pydantic
# deprecation warning per run in Dagster 1.13).
@dg.io_manager
def audit_run_io_manager(init_context: dg.InitResourceContext) -> dg.IOManager:
    """Each profile's last `audit_report` value (every check's result and the run that produced it)
    as JSON under the instance's storage directory, written whole or not at all. A profile whose
    report was never stored, or cannot be read, loads as None: its checks then audit afresh
    rather than fail."""
    if init_context.instance is None:  # Dagster gives every run's IO manager its instance
        raise dg.DagsterInvariantViolationError("the audit runs' IO manager needs the run's instance")
    return _AuditRuns(Path(init_context.instance.storage_directory()) / "audit_runs")
