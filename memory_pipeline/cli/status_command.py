"""`memory-pipeline status`: per profile, entries, facts, cap usage, last sync and failing checks."""

from __future__ import annotations

import argparse

from memory_pipeline.cli.common import add_home_argument, add_profile_arguments, hermes_home, print_json, selected_profiles
from memory_pipeline.lib.audit.checks import last_report
from memory_pipeline.lib.hermes.memory_files import fact_pointers
from memory_pipeline.lib.hermes.profiles import Profile, pipeline_data_dir, read_profile
from memory_pipeline.lib.store.database import (
    IS_PIPELINE_FACT_SQL,
    LEDGER_TABLE,
    RETIRED_TAG,
    StoreError,
    has_tag_sql,
    opened,
    table_exists,
)
from memory_pipeline.lib.store.quarantine import quarantined_entries
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.lib.store.vector_codec import store_format, vector_counts


def register(commands) -> None:
    parser = commands.add_parser("status", help="entries, facts, cap usage, last sync and failing checks per profile")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _store_status(profile: Profile, pointers: set[int]) -> dict:
    """The store's facts: all, synced, and of those current, retired (a removed entry's) and
    compacted (full text a `fact_store#N` pointer in the files names)."""
    settings = holographic_settings(profile.home)
    db = settings.db_path
    status = {
        "store": str(db),
        "facts": None,
        "pipeline_facts": None,
        "current_facts": None,
        "retired_facts": None,
        "compacted_facts": None,
        "quarantined": None,
        "last_write": None,
        "vector_dialect": None,
        "vectors": None,
        "store_error": None,
    }
    if not db.exists():
        return status
    try:
        with opened(db, create=False) as conn:
            status["facts"], status["pipeline_facts"], status["retired_facts"] = conn.execute(
                f"SELECT count(*), coalesce(sum({IS_PIPELINE_FACT_SQL}), 0), coalesce(sum({has_tag_sql(RETIRED_TAG)}), 0) FROM facts"
            ).fetchone()
            status["compacted_facts"] = sum(
                1 for fact_id in pointers if conn.execute("SELECT 1 FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
            )
            status["current_facts"] = status["pipeline_facts"] - status["retired_facts"] - status["compacted_facts"]
            status["quarantined"] = len(quarantined_entries(conn))
            status["vectors"] = vector_counts(conn, settings.hrr_dim)
            status["vector_dialect"] = store_format(conn, settings.hrr_dim).value
            if table_exists(conn, LEDGER_TABLE):
                status["last_write"] = conn.execute(f"SELECT max(synced_at) FROM {LEDGER_TABLE}").fetchone()[0]
    except StoreError as exc:
        status["store_error"] = str(exc)
    return status


def _last_audit(home, profile: Profile) -> dict:
    """The report the last full sync run wrote (every run ends with `audit_report`)."""
    report = last_report(pipeline_data_dir(home), profile.name)
    failing = [f"{c['name']} ({c['severity']})" for c in report.get("checks", []) if not c.get("passed")]
    return {"last_sync": report.get("checked_at"), "failing_checks": failing}


def profile_status(home, profile: Profile) -> dict:
    readings = read_profile(profile)
    return {
        "profile": profile.name,
        "entries": {r.source: len(r.entries) for r in readings},
        "cap_usage_pct": {r.source: round(100.0 * r.cap_usage, 1) for r in readings},
        "unreadable": [str(r.path) for r in readings if not r.readable],
        **_store_status(profile, {n for r in readings for entry in r.entries for n in fact_pointers(entry)}),
        **_last_audit(home, profile),
    }


def _vector_line(counts: dict, dialect: str) -> str:
    shown = ", ".join(
        f"{n} {kind}"
        for kind, n in [
            ("legacy float64", counts["legacy"]),
            ("HRR1 float32", counts["hrr1"]),
            ("malformed", counts["malformed"]),
            ("missing", counts["missing"]),
        ]
        if n
    )
    return f"HRR vectors: {shown or 'none'}; new vectors are written {'HRR1' if dialect == 'hrr1' else 'legacy'}"


def run(args: argparse.Namespace) -> int:
    home = hermes_home(args)
    statuses = [profile_status(home, p) for p in selected_profiles(args, home)]
    if args.json:
        print_json({"profiles": statuses})
        return 0
    for s in statuses:
        entries = ", ".join(f"{source} {n} ({s['cap_usage_pct'][source]:.0f}% of cap)" for source, n in s["entries"].items())
        if s["store_error"]:
            facts = "store unusable (below)"
        elif s["facts"] is None:
            facts = "no store yet"
        else:
            facts = (
                f"{s['facts']} facts ({s['current_facts']} current, {s['retired_facts']} retired, "
                f"{s['compacted_facts']} compacted, {s['facts'] - s['pipeline_facts']} Hermes' own; "
                f"{s['quarantined']} quarantined)"
            )
        print(f"{s['profile']}: entries {entries}; {facts}")
        print(
            f"  last sync {s['last_sync'] or 'never'}; last write {s['last_write'] or 'never'}; "
            f"checks not passing: {', '.join(s['failing_checks']) or 'none'}"
        )
        if s["vectors"] is not None:
            print(f"  {_vector_line(s['vectors'], s['vector_dialect'])}")
        for problem in [*(f"unreadable: {p}" for p in s["unreadable"]), *([s["store_error"]] if s["store_error"] else [])]:
            print(f"  {problem}")
    return 0
