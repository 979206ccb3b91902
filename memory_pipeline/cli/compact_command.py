"""`memory-pipeline compact [--profile NAME] [--target 0.8] [--apply [--yes]]`: shorten over-budget memory
files into summaries that point at the facts holding the full text."""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
from typing import TYPE_CHECKING

from memory_pipeline.cli.common import CommandError, add_home_argument, add_profile_arguments, hermes_home, selected_profiles
from memory_pipeline.lib.choices import COMPACT_MARGIN, compact_target
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, SourceReading, read_source
from memory_pipeline.lib.hermes.safe_files import UnreadableFile, read_regular_file
from memory_pipeline.lib.store.database import StoreError, opened
from memory_pipeline.lib.store.settings import holographic_settings

if TYPE_CHECKING:
    from memory_pipeline.lib.hermes.compaction import Proposal


def register(commands) -> None:
    parser = commands.add_parser("compact", help="propose (or --apply) summary + fact_store#N rewrites for over-budget files")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument(
        "--target",
        type=float,
        help=f"share of the cap to fit into (default: {COMPACT_MARGIN:.2f} below the profile's cap target, 0.80 for the default 0.85)",
    )
    parser.add_argument(
        "--apply", action="store_true", help="write the proposal (asked first, under Hermes' lock, after a backup), then sync"
    )
    parser.add_argument(
        "--yes", action="store_true", help="with --apply: write without asking (needed where there is no terminal to ask on)"
    )
    parser.add_argument(
        "--lock-timeout", type=float, default=10.0, metavar="SECONDS", help="how long to wait for Hermes' lock on the file (default 10)"
    )
    parser.set_defaults(run=run)


def _usage(chars: int, limit: int) -> str:
    return f"{chars}/{limit} chars ({100 * chars / limit:.0f}%)" if limit else f"{chars} chars"


def _read_stable(path, source: str, limit: int) -> tuple[SourceReading, bytes]:
    """The reading and the exact bytes it came from (read again if the agent wrote meanwhile)."""
    for _ in range(3):
        try:
            before = read_regular_file(path) or b""
            reading = read_source(path, source, limit)
            after = read_regular_file(path) or b""
        except UnreadableFile as exc:
            raise CommandError(str(exc)) from None
        if after == before:
            return reading, before
    raise CommandError(f"{path}: keeps changing while being read; try again when the agent is idle")


def run(args: argparse.Namespace) -> int:
    # Compaction reads the ledger (pandas): imported in `_compact`, so `--help` stays quick.
    if not (math.isfinite(args.lock_timeout) and args.lock_timeout >= 0):
        raise CommandError(f"--lock-timeout must be a finite number of seconds ≥ 0, not {args.lock_timeout}")
    if args.target is not None and not 0 < args.target <= 1:
        raise CommandError(f"--target must be a share of the cap between 0 and 1, not {args.target}")
    profiles = selected_profiles(args, hermes_home(args))
    if args.apply and len(profiles) > 1:
        raise CommandError(f"--apply rewrites a memory file: give --profile ({', '.join(p.name for p in profiles)})")
    for profile in profiles:
        if not holographic_settings(profile.home).db_path.is_file():
            print(f"{profile.name}: no fact store yet, nothing to point at (run `memory-pipeline sync` first)")
            continue
        code = _compact(args, profile)
        if code:
            return code
    return 0


def _compact(args: argparse.Namespace, profile) -> int:
    """One profile: the proposal for each file over the target, written with --apply."""
    from memory_pipeline.lib.hermes.compaction import CompactionError, propose
    from memory_pipeline.lib.sync.ledger import active_ledger, synced_facts

    settings = holographic_settings(profile.home)
    target = args.target if args.target is not None else compact_target(profile.cap_target())
    try:
        with opened(settings.db_path, create=False) as conn:
            ledger = active_ledger(conn)
            proposals = []
            limits = profile.char_limits()
            for source in SOURCE_FILES:
                reading, raw = _read_stable(profile.memory_file(source), source, limits[source])
                if not reading.exists or reading.cap_usage <= target:
                    print(
                        f"{profile.name}/{reading.path.name}: {_usage(reading.chars, reading.limit)}, within the {100 * target:.0f}% target"
                    )
                    continue
                try:
                    proposal = propose(reading, raw, synced_facts(ledger), target=target)
                except CompactionError as exc:
                    raise CommandError(str(exc)) from None
                _print_proposal(profile.name, proposal)
                if proposal.rewrites:
                    proposals.append(proposal)
            if not args.apply or not proposals:
                if proposals:
                    print(f"\nnothing written; `memory-pipeline compact --profile {profile.name} --apply` writes it")
                return 0
            for proposal in proposals:
                _confirm_facts(conn, proposal)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    if not (args.yes or _consent(proposals)):
        print("nothing written")
        return 0
    return _apply_all(args, profile, proposals)


def _consent(proposals: list[Proposal]) -> bool:
    """Asked on a terminal after the diff; without one, only `--yes` writes."""
    names = " and ".join(p.path.name for p in proposals)
    if not sys.stdin.isatty():
        raise CommandError(f"--apply rewrites {names} and there is no terminal to ask on: add --yes to write the proposal above")
    try:
        answer = input(f"\nwrite this to {names} (a backup is kept)? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _print_proposal(profile: str, proposal: Proposal) -> None:
    name = f"{profile}/{proposal.path.name}"
    if not proposal.rewrites:
        print(
            f"{name}: {_usage(proposal.chars_before, proposal.limit)}; no entry with synced facts to shorten "
            "(run `memory-pipeline sync` first?)"
        )
        return
    print(proposal.diff(), end="")
    for rewrite in proposal.rewrites:
        if rewrite.left_out:
            lines = ", ".join(map(str, rewrite.left_out))
            pointer = "/".join(map(str, rewrite.fact_ids))
            print(f"entry {rewrite.position + 1}: line{'s' if len(rewrite.left_out) > 1 else ''} {lines} kept only in fact_store#{pointer}")
    print(
        f"\n{name}: {len(proposal.rewrites)} entries shortened, {_usage(proposal.chars_before, proposal.limit)} → "
        f"{_usage(proposal.chars_after, proposal.limit)}; target {100 * proposal.target:.0f}% "
        + ("reached" if proposal.fits else "NOT reached: no more entries with synced facts to shorten")
    )


def _confirm_facts(conn: sqlite3.Connection, proposal: Proposal) -> None:
    wanted = sorted({i for r in proposal.rewrites for i in r.fact_ids})
    marks = ",".join("?" * len(wanted))
    present = {row[0] for row in conn.execute(f"SELECT fact_id FROM facts WHERE fact_id IN ({marks})", wanted)}
    missing = [i for i in wanted if i not in present]
    if missing:
        raise CommandError(f"{proposal.path}: facts #{', #'.join(map(str, missing))} are gone from the store; nothing written")


def _apply_all(args: argparse.Namespace, profile, proposals: list[Proposal]) -> int:
    from memory_pipeline.lib.hermes.compaction import CompactionError, apply

    for proposal in proposals:
        try:
            backup = apply(proposal, lock_timeout_s=args.lock_timeout)
        except CompactionError as exc:
            raise CommandError(str(exc)) from None
        print(f"{proposal.path}: written ({_usage(proposal.chars_after, proposal.limit)}), backup {backup.name}")
    from memory_pipeline.instance import local_instance
    from memory_pipeline.runs import run_sync

    home = hermes_home(args)
    (result,) = run_sync(local_instance(home), home, [profile.name])
    stored = result.metadata.get("fact_store", {})
    added, compacted = int(stored.get("added", 0)), int(stored.get("compacted", 0))
    if result.error or added:
        raise CommandError(
            f"the sync after compaction of profile {profile.name} "
            + (f"failed: {result.error}" if result.error else f"added {added} facts; expected none")
        )
    print(f"synced profile {profile.name}: added 0, {compacted} entries re-pointed at their facts")
    return 0
