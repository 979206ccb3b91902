"""The code location `memory_pipeline`: what `workspace.yaml`, the UI and the CLI load."""

import os

import dagster as dg

from memory_pipeline.defs import assets
from memory_pipeline.defs.checks import AUDIT_CHECKS
from memory_pipeline.defs.jobs import memory_sync_job
from memory_pipeline.defs.sensors import privacy_keywords_sensor
from memory_pipeline.defs.resources import ExtractorResource, FactStoreResource, HermesHomeResource, PrivacyResource


def _hermes_home_config():
    # Resolved at run time from the environment when set; empty falls back to the demo home.
    return dg.EnvVar("HERMES_HOME") if os.environ.get("HERMES_HOME") else ""


defs = dg.Definitions(
    assets=dg.load_assets_from_modules([assets]),
    asset_checks=AUDIT_CHECKS,
    jobs=[memory_sync_job],
    sensors=[privacy_keywords_sensor],
    resources={
        "hermes": HermesHomeResource(hermes_home=_hermes_home_config()),
        "store": FactStoreResource(),
        "extractor": ExtractorResource(),
        "privacy": PrivacyResource(),
    },
    # One SQLite writer per run: every step of a run executes in one process, in order.
    executor=dg.in_process_executor,
)
