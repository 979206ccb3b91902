"""`memory-pipeline extract-bench`: compare Ollama models on a sample of a profile's entries."""

from __future__ import annotations

import argparse
from dataclasses import replace

from memory_pipeline.cli.common import CommandError, add_home_argument, add_single_profile_argument, single_profile
from memory_pipeline.lib.choices import ExtractorMode
from memory_pipeline.lib.hermes.profiles import read_profile


def register(commands) -> None:
    parser = commands.add_parser("extract-bench", help="compare Ollama models on a sample of your entries (prints only)")
    add_home_argument(parser)
    add_single_profile_argument(parser)
    parser.add_argument(
        "--model",
        action="append",
        required=True,
        metavar="NAME",
        help="a model to compare (give two or more); the first is the reference for agreement",
    )
    parser.add_argument("--sample", type=int, default=20, metavar="N", help="entries to extract (default: 20)")
    parser.add_argument("--batch-size", type=int, default=10, metavar="N", help="entries per call (default: 10)")
    parser.add_argument("--ollama-host", metavar="URL", help="Ollama server (default: $OLLAMA_HOST, else http://127.0.0.1:11434)")
    parser.add_argument("--allow-remote-ollama", action="store_true", help="allow an Ollama host off this machine")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS", help="per call (default: 300)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The extraction code (pandas, the Ollama client) is imported by this command only: `--help` stays quick.
    from memory_pipeline import environment
    from memory_pipeline.lib.extraction.choice import ExtractorUnavailable, choose_extractor
    from memory_pipeline.lib.extraction.comparison import compare_models, markdown_table, sample_entries
    from memory_pipeline.lib.extraction.ollama import OllamaSettings

    if args.sample < 1 or args.batch_size < 1:
        raise CommandError("--sample and --batch-size must be at least 1")
    profile = single_profile(args)
    readings = read_profile(profile)
    unreadable = [r.error for r in readings if not r.readable]
    if unreadable:
        raise CommandError(unreadable[0])
    entries = sample_entries(readings, args.sample)
    if not entries:
        raise CommandError(f"profile {profile.name} has no entries to extract")
    base = OllamaSettings(
        url=environment.ollama_host(args.ollama_host),
        model=args.model[0],
        batch_size=args.batch_size,
        timeout_s=args.timeout,
        allow_remote=args.allow_remote_ollama,
    )
    settings = [replace(base, model=model) for model in dict.fromkeys(args.model)]
    try:
        for model_settings in settings:  # every model present (and the host allowed) before any call
            choose_extractor(ExtractorMode.OLLAMA, model_settings)
    except ExtractorUnavailable as exc:
        raise CommandError(str(exc)) from None
    print(f"{len(entries)} entries of profile {profile.name}, batches of {args.batch_size}, {base.url}")
    print()
    print(markdown_table(compare_models(entries, settings)))
    return 0
