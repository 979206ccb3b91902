"""`memory-pipeline compact [--profile NAME] [--target 0.8] [--merge] [--apply [--yes]]`: shorten
over-budget memory files into summaries that point at the facts holding the full text, or merge
entries that say the same thing."""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING

from memory_pipeline.cli.common import (
    CommandError,
    add_home_argument,
    add_profile_arguments,
    command_home,
    percent_of_cap,
    selected_contexts,
)
from memory_pipeline.lib.choices import COMPACT_MARGIN, Summarizer, compact_target
from memory_pipeline.lib.hermes.agent_setup import pointer_reader
from memory_pipeline.lib.store.schema.database import StoreError

if TYPE_CHECKING:
    from memory_pipeline.context.home import ProfileContext
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
        "--merge",
        action="store_true",
        help="instead: make entries that say the same thing (the entries_distinct check names them) one entry, "
        "the longest, pointing at every copy's fact",
    )
    parser.add_argument(
        "--yes", action="store_true", help="with --apply: write without asking (needed where there is no terminal to ask on)"
    )
    parser.add_argument(
        "--summarizer",
        choices=[c.value for c in Summarizer],
        default=Summarizer.RULES.value,
        help="rules (the entry's own first words, the default) or ollama (the local model offers a shorter one; "
        "taken only when it names nothing the entry does not)",
    )
    parser.add_argument(
        "--lock-timeout", type=float, default=10.0, metavar="SECONDS", help="how long to wait for Hermes' lock on the file (default 10)"
    )
    parser.set_defaults(run=run)


def _usage(chars: int, limit: int) -> str:
    return f"{chars}/{limit} chars ({percent_of_cap(chars, limit)})" if limit else f"{chars} chars"


def run(args: argparse.Namespace) -> int:
    # Compaction reads the ledger (pandas): imported in `_compact`, so `--help` stays quick.
    if not (math.isfinite(args.lock_timeout) and args.lock_timeout >= 0):
        raise CommandError(f"--lock-timeout must be a finite number of seconds ≥ 0, not {args.lock_timeout}")
    if args.target is not None and not 0 < args.target <= 1:
        raise CommandError(f"--target must be a share of the cap between 0 and 1, not {args.target}")
    contexts = selected_contexts(args, command_home(args))
    if args.apply and len(contexts) > 1:
        raise CommandError(f"--apply rewrites a memory file: give --profile ({', '.join(c.name for c in contexts)})")
    for context in contexts:
        profile = context.profile
        if not context.store.exists:
            print(f"{profile.name}: no fact store yet, nothing to point at (run `memory-pipeline sync` first)")
            continue
        code = _compact(args, context)
        if code:
            return code
    return 0


def _compact(args: argparse.Namespace, context: ProfileContext) -> int:
    """One profile: the proposal for each file over the target, written with --apply."""
    profile = context.profile
    from memory_pipeline.lib.hermes.compaction import CompactionError
    from memory_pipeline.services.compaction import facts_gone, propose_compaction, propose_merges

    target = args.target if args.target is not None else compact_target(profile.cap_target())
    try:
        if args.merge:
            files = propose_merges(context)
        else:
            files = propose_compaction(context, target, _model(args))
        proposals = []
        for found in files:
            if found.proposal is None and args.merge:
                print(f"{profile.name}/{found.reading.path.name}: no two entries say the same thing")
                continue
            if found.proposal is None:
                reading = found.reading
                print(f"{profile.name}/{reading.path.name}: {_usage(reading.chars, reading.limit)}, within the {100 * target:.0f}% target")
                continue
            _print_proposal(profile.name, found.proposal, merge_only=args.merge)
            if found.proposal.rewrites:
                proposals.append(found.proposal)
        reader = pointer_reader(profile)
        if proposals and reader is None:
            print(
                f"\nthe agent of profile {profile.name} cannot follow fact_store#N pointers (Hermes' fact_store cannot fetch "
                f"a fact by id): set one up first, `memory-pipeline hermes-plugin install --profile {profile.name}` then "
                "`hermes plugins enable memory-pipeline` (or the MCP server it prints)"
            )
        if not args.apply:
            if proposals:
                merge = " --merge" if args.merge else ""
                print(f"\nnothing written; `memory-pipeline compact --profile {profile.name}{merge} --apply` writes it")
            return 0
        if not proposals:
            over = [found.proposal.path.name for found in files if found.proposal is not None]
            if over:  # asked to write, and a file over its target has nothing to shorten
                print(f"nothing written: {' and '.join(over)} has no entry with synced facts to shorten", file=sys.stderr)
                print(f"fix: memory-pipeline sync --profile {profile.name}", file=sys.stderr)
                return 1
            return 0
        if reader is None and not args.yes:
            print("nothing written: the pointers would be ones the agent cannot follow (add --yes to write them anyway)", file=sys.stderr)
            print(f"fix: memory-pipeline hermes-plugin install --profile {profile.name}", file=sys.stderr)
            return 1
        for proposal in proposals:
            if gone := facts_gone(context, proposal):
                raise CommandError(f"{proposal.path}: facts #{', #'.join(map(str, gone))} are gone from the store; nothing written")
    except (CompactionError, StoreError) as exc:
        raise CommandError(str(exc)) from None
    if not (args.yes or _consent(proposals)):
        print("nothing written")
        return 0
    return _apply_all(args, context, proposals)


def _model(args: argparse.Namespace):
    """The local model's summarizer with `--summarizer ollama` (refused off this machine unless
    allowed where the command starts); None for the rules."""
    if args.summarizer != Summarizer.OLLAMA.value:
        return None
    from memory_pipeline import environment
    from memory_pipeline.lib.extraction.choice import ExtractorUnavailable
    from memory_pipeline.lib.extraction.ollama import OllamaSettings
    from memory_pipeline.lib.extraction.summarizer import OllamaSummarizer

    settings = OllamaSettings(url=environment.ollama_host(), model=environment.model(), allow_remote=environment.remote_ollama_allowed())
    try:
        return OllamaSummarizer.checked(settings)
    except ExtractorUnavailable as exc:
        raise CommandError(f"--summarizer ollama: {exc}; `--summarizer rules` needs no model") from None


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


def _print_proposal(profile: str, proposal: Proposal, *, merge_only: bool) -> None:
    name = f"{profile}/{proposal.path.name}"
    if not proposal.rewrites:
        print(
            f"{name}: {_usage(proposal.chars_before, proposal.limit)}; no entry with synced facts to shorten "
            "(run `memory-pipeline sync` first?)"
        )
        return
    print(proposal.diff(), end="")
    merges = [r for r in proposal.rewrites if r.merged]
    for rewrite in proposal.rewrites:
        pointer = "/".join(map(str, rewrite.fact_ids))
        if rewrite.merged:
            copies = ", ".join(str(p + 1) for p in rewrite.merged)
            print(
                f"entry {rewrite.position + 1} kept whole, entr{'ies' if len(rewrite.merged) > 1 else 'y'} {copies} merged into it: "
                f"every copy's full text stays in fact_store#{pointer}"
            )
            continue
        if rewrite.kept_in_store:
            print(f"entry {rewrite.position + 1}: kept in fact_store#{pointer}: {', '.join(rewrite.kept_in_store)}")
        if rewrite.left_out:
            lines = ", ".join(map(str, rewrite.left_out))
            print(f"entry {rewrite.position + 1}: line{'s' if len(rewrite.left_out) > 1 else ''} {lines} kept only in fact_store#{pointer}")
    usage = f"{_usage(proposal.chars_before, proposal.limit)} → {_usage(proposal.chars_after, proposal.limit)}"
    merged = f"{len(merges)} merge{'s' if len(merges) != 1 else ''}"
    if merge_only:  # whatever the cap
        print(f"\n{name}: {merged}, {usage}")
        return
    shortened = len(proposal.rewrites) - len(merges)
    reached = (
        "reached"
        if proposal.fits
        else f"NOT reached: {_usage(proposal.chars_after, proposal.limit)} is as far as it gets "
        "(every entry with synced facts down to its first clause, a rule to its first sentence; remove or merge entries for the rest)"
    )
    done = ([f"{merged} of entries saying the same thing"] if merges else []) + ([f"{shortened} entries shortened"] if shortened else [])
    print(f"\n{name}: {', '.join(done)}, {usage}; target {100 * proposal.target:.0f}% {reached}")


def _apply_all(args: argparse.Namespace, context: ProfileContext, proposals: list[Proposal]) -> int:
    profile = context.profile
    from memory_pipeline.lib.hermes.compaction import CompactionError
    from memory_pipeline.services.compaction import apply_compaction

    def written(proposal: Proposal, backup) -> None:
        print(f"{proposal.path}: written ({_usage(proposal.chars_after, proposal.limit)}), backup {backup.name}")

    try:
        applied = apply_compaction(context, proposals, lock_timeout_s=args.lock_timeout, on_written=written)
    except CompactionError as exc:
        raise CommandError(str(exc)) from None
    if applied.sync_error:
        raise CommandError(f"the sync after compaction of profile {profile.name} failed: {applied.sync_error}")
    rewrites = sum(len(p.rewrites) for p in proposals)
    if applied.compacted < rewrites:  # a summary taken for a new entry: its pointer would name the wrong facts
        raise CommandError(
            f"the sync after compaction of profile {profile.name} re-pointed {applied.compacted} of {rewrites} shortened entries; "
            f"the backup beside each file holds what was there (`memory-pipeline audit --profile {profile.name}` names the rest)"
        )
    pending = f", and synced {applied.added} facts of entries not synced before" if applied.added else ""
    done = "groups of entries merged into one entry each" if args.merge else "entries re-pointed at their facts"
    print(f"synced profile {profile.name}: {applied.compacted} {done}{pending}")
    return 0
