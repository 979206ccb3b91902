"""Hermes' cron job store (`<hermes-home>/cron/jobs.json`), read only: which jobs carry a name,
and whether each repeats. Hermes' schedule syntax reads a bare duration (`30m`) as "once in 30
minutes" and `every 30m` as a recurring interval."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from memory_pipeline.lib.files.reading import UnreadableFile, read_regular_file

_BARE_DURATION = re.compile(r"^\d+\s*(?:s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$", re.IGNORECASE)


@dataclass(frozen=True)
class CronJob:
    job_id: str
    kind: str  # "once", "interval", "cron" (Hermes' own words), or "" when the store does not say

    @property
    def repeats(self) -> bool:
        return self.kind in ("interval", "cron")


def recurring(schedule: str) -> str:
    """The schedule as a recurring one: a bare duration (`30m`) becomes `every 30m`; anything else
    (`every 2h`, a cron expression) as given."""
    schedule = " ".join(schedule.split())
    return f"every {schedule}" if _BARE_DURATION.match(schedule) else schedule


def jobs_named(home: Path, name: str) -> list[CronJob]:
    """The jobs of Hermes' cron store with this name; none when the store is absent or unreadable."""
    try:
        raw = read_regular_file(home / "cron" / "jobs.json")
        data = json.loads((raw or b"{}").decode("utf-8-sig"), strict=False)
    except (UnreadableFile, ValueError):
        return []
    jobs = data.get("jobs") if isinstance(data, dict) else None
    found = []
    for job in jobs if isinstance(jobs, list) else []:
        if isinstance(job, dict) and job.get("name") == name:
            schedule = job.get("schedule")
            schedule = schedule if isinstance(schedule, dict) else {}
            found.append(CronJob(str(job.get("id", "")), str(schedule.get("kind", ""))))
    return found
