"""`memory-pipeline ledger export|import PATH`: the seed's 5-column TSV ledger, for users coming
from `memory-sync.sh` (their fact ids are kept) or going elsewhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from memory_pipeline.cli.common import CommandError, add_home_argument, add_single_profile_argument, single_profile
from memory_pipeline.lib.entries import hashed_frame, parsed_frame, read_profile
from memory_pipeline.lib.ledger_tsv import export_tsv, import_tsv
from memory_pipeline.lib.safe_files import UnreadableFile
from memory_pipeline.lib.store import StoreError, connect, holographic_settings


def register(commands) -> None:
    parser = commands.add_parser("ledger", help="export or import the ledger as the seed's 5-column TSV")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, helptext in (("export", "write the active ledger rows to PATH"), ("import", "read a memory-sync.sh ledger from PATH")):
        sub = actions.add_parser(action, help=helptext)
        sub.add_argument("path", metavar="PATH")
        add_home_argument(sub)
        add_single_profile_argument(sub)
        sub.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    profile = single_profile(args)
    path = Path(args.path)
    store_path = holographic_settings(profile.home).db_path
    try:
        if args.action == "export":
            conn = connect(store_path, create=False)
            try:
                count = export_tsv(conn, path)
            finally:
                conn.close()
            print(f"exported {count} active ledger rows of profile {profile.name} to {path}")
            return 0
        if not path.is_file():
            raise CommandError(f"{path}: no such ledger file")
        if not store_path.is_file():
            raise CommandError(f"{store_path}: fact store does not exist; the ledger's fact ids must point into it")
        hashed = hashed_frame(parsed_frame(profile.name, read_profile(profile)))
        current = {(r.source, r.short_hash): (r.entry_id, r.entry_sha256) for r in hashed.itertuples()}
        conn = connect(store_path)  # adds the pipeline's tables to a store Holographic made
        try:
            report = import_tsv(conn, path, current)
        finally:
            conn.close()
    except (StoreError, UnreadableFile, OSError) as exc:
        raise CommandError(str(exc)) from None
    print(f"imported {report.imported} ledger rows into profile {profile.name} "
          f"({report.matched_current} matched entries in the files now, {report.superseded} older history rows dropped)")
    rejected = report.bad_fact_id + report.missing_fact + report.malformed
    if rejected:
        lines = ", ".join(str(n) for n in report.bad_lines[:20])
        print(f"rejected {rejected} rows: {report.bad_fact_id} non-numeric fact_id, {report.missing_fact} fact not in the store, "
              f"{report.malformed} malformed (lines {lines})")
    return 0
