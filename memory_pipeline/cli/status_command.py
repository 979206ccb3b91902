"""`memory-pipeline status`: per profile, entries, facts, cap usage, last sync and failing checks."""

from __future__ import annotations

import argparse

from memory_pipeline.cli.common import add_home_argument, add_profile_arguments, command_home, percent_of_cap, print_json, selected_contexts
from memory_pipeline.lib.hermes.plugin_files import PluginCopy


def register(commands) -> None:
    parser = commands.add_parser("status", help="entries, facts, cap usage, last sync and failing checks per profile")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


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
    from memory_pipeline.services.status import profile_status  # numpy: imported when a status is asked for

    statuses = [profile_status(context) for context in selected_contexts(args, command_home(args))]
    if args.json:
        print_json({"profiles": statuses})
        return 0
    for s in statuses:
        entries = ", ".join(
            f"{source} off ({s['switched_off'][source]}: false)"
            if source in s["switched_off"]
            else f"{source} {n} ({percent_of_cap(*s['chars'][source])} of cap)"
            for source, n in s["entries"].items()
        )
        if s["store_error"]:
            facts = "store unusable (below)"
        elif s["facts"] is None:
            facts = "no store yet"
        else:
            facts = (
                f"{s['facts']} facts ({s['current_facts']} current, {s['compacted_facts']} compacted, "
                f"{s['hermes_own_facts']} Hermes' own, {s['retired_in_place']} retired in place); "
                f"{s['archived_facts']} retired to the archive; {s['quarantined']} entries quarantined"
            )
        print(f"{s['profile']}: entries {entries}; {facts}")
        print(
            f"  last sync {s['last_sync'] or 'never'}; last write {s['last_write'] or 'never'}; "
            f"checks not passing: {', '.join(s['failing_checks']) or 'none'}"
        )
        if s["store_shared_with"]:
            print(
                f"  store {s['store']} (shared with profile {', '.join(s['store_shared_with'])}: each profile's entries stay its own; "
                "its facts are judged with the union of their keyword lists and detectors, the strictest verdict wins)"
            )
        if s["vectors"] is not None:
            print(f"  {_vector_line(s['vectors'], s['vector_dialect'])}")
        meaning = s["recall_by_meaning"]
        if s["facts"] is None:
            pass  # no store yet: nothing to recall, by letters or by meaning
        elif meaning["model"] in (None, "off"):
            print(f"  recall by meaning: {meaning['hook']}")
        else:
            surfaces = f"command line {meaning['command_line']}; MCP {meaning['mcp']}; hook {meaning['hook']}"
            print(f"  recall by meaning ({meaning['model']}): {surfaces}")
        said = [*(f"unreadable: {p}" for p in s["unreadable"]), *([s["store_error"]] if s["store_error"] else []), *s["journal_problems"]]
        if s["hermes_plugin"] == PluginCopy.OTHER:
            said.append(
                f"the Hermes plugin in this profile is {PluginCopy.OTHER.value}, not this install's: it may judge facts by "
                f"other rules (another version of the detectors shows the agent none); fix: memory-pipeline hermes-plugin install "
                f"--profile {s['profile']}"
            )
        for problem in said:
            print(f"  {problem}")
    return 0
