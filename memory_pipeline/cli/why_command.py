"""`memory-pipeline why FACT_ID | TEXT`: a fact's story, from its entry to the agent (the why
service), as a few lines or as JSON. Given text, the story of each fact a search finds."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from memory_pipeline.cli.common import CommandError, add_home_argument, add_profile_arguments, command_home, print_json, selected_contexts
from memory_pipeline.lib.in_hermes.fact_search import SearchError
from memory_pipeline.lib.store.schema.database import StoreError

if TYPE_CHECKING:
    from memory_pipeline.services.why import FactStory

_STORIES_FOR_TEXT = 3


def register(commands) -> None:
    parser = commands.add_parser("why", help="tell a fact's story: its entry, its changes, the sync that wrote it, who may see it")
    parser.add_argument("fact", metavar="FACT_ID|TEXT", help="a fact id (as in fact_store#N), or text: the facts a search finds")
    add_home_argument(parser)
    add_profile_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from memory_pipeline.services.reading import search_profiles
    from memory_pipeline.services.why import fact_story

    contexts = selected_contexts(args, command_home(args))
    try:
        if args.fact.strip().isdigit():
            stories = [fact_story(c, int(args.fact), owner=True) for c in contexts]
            stories = [s for s in stories if s.found] or stories[:1]
        else:
            found = search_profiles(contexts, args.fact, limit=_STORIES_FOR_TEXT, include_private=True, refresh_index=False).facts
            by_name = {c.name: c for c in contexts}
            stories = [fact_story(by_name[f["profile"]], f["fact_id"], owner=True) for f in found]
    except (StoreError, SearchError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print_json({"stories": [s.as_json() for s in stories]})
        return 0 if any(s.found for s in stories) else 1
    if not any(s.found for s in stories):
        print(f"no fact {args.fact} in {', '.join(c.name for c in contexts)}" if args.fact.strip().isdigit() else "no facts found")
        return 1
    for story in stories:
        print("\n".join(story_lines(story)))
    return 0


def story_lines(s: FactStory) -> list[str]:
    lines = [f"{s.profile} #{s.fact_id} [{s.category}] {s.content}", f"  state: {s.state}; trust {s.trust}"]
    if s.invisible:
        lines.append(f"  the agent is shown it without {len(s.invisible)} invisible characters: {', '.join(dict.fromkeys(s.invisible))}")
    for e in s.entries:
        where = f'now entry {e["position_now"]} of {e["file"]} "{e["label"]}"' if e["position_now"] else f"no longer in {e['file']}"
        # A retired row's time is its retirement's; its run is the one that wrote it.
        when = f"retired {e['synced_at']}; written" if e["status"] == "retired" else f"synced {e['synced_at']}"
        lines.append(
            f"  entry {e['entry_id']} ({e['status']}): {where}; {when} by {e['extractor'] or '?'}"
            + (f" ({e['model']})" if e["model"] else "")
            + (f" in run {e['run_id']}" if e["run_id"] else "")
        )
    if not s.entries:
        lines.append("  entry: none (a fact Hermes or the agent wrote itself)")
    for w in s.history:
        lines.append(f"  {w['at']}: {w['action']} by the agent (Hermes session {w['session']}, turn {w['turn']})")
    if s.entries and not s.history:
        lines.append("  changes: none journaled (written before the live sync, or edited outside Hermes)")
    lines.append(f"  privacy: {s.privacy}")
    shown = [name for name, may in s.surfaces.items() if may]
    lines.append(f"  the agent may get it through: {', '.join(shown) or 'nothing'}")
    for turn in s.injected:
        lines.append(f"  added to Hermes session {turn['session']}, turn {turn['turn']} ({turn['at']}) by the plugin's hook")
    return lines
