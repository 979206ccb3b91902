"""`memory-pipeline worker`: the warm worker the Hermes plugin's live sync hands its syncs to
(`sync --warm`), and the client side of that hand-over. The worker runs the same `sync` command
in its own process, so each sync is still a Dagster run the UI shows; it keeps Dagster, the
instance's code and the bundled encoder loaded between the agent's writes (`lib/in_hermes/warm_worker.py`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Callable
from pathlib import Path

from memory_pipeline import environment
from memory_pipeline.cli.common import CommandError, add_home_argument, hermes_home, shown_path
from memory_pipeline.lib.hermes.profiles import looks_like_hermes_home
from memory_pipeline.lib.in_hermes.warm_worker import WorkerUnsafe, ask, ask_or_start, serve, socket_directory


def register(commands) -> None:
    parser = commands.add_parser(
        "worker",
        help="the warm worker that runs the Hermes plugin's live syncs (started by `sync --warm`; leaves after "
        "$MEMORY_PIPELINE_WORKER_IDLE seconds idle, default 600)",
    )
    add_home_argument(parser)
    asked = parser.add_mutually_exclusive_group()
    asked.add_argument("--stop", action="store_true", help="stop the home's warm worker, if one runs")
    asked.add_argument("--address", action="store_true", help="print the socket the home's warm worker listens on (the plugin asks)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    home = hermes_home(args)
    address = environment.worker_address(home)
    if args.address:
        print(address)
        return 0
    if args.stop:
        stopped = ask(address, {"stop": True}, timeout_s=900) is not None
        print(f"{shown_path(home)}: warm worker {'stopped' if stopped else 'not running'}")
        return 0
    try:
        served = serve(
            address,
            lambda request: _handled(args.command_line, home, request),
            idle_s=environment.worker_idle_s(),
            wanted=lambda: looks_like_hermes_home(home),
            warm=_warm,
        )
    except WorkerUnsafe as exc:
        raise CommandError(str(exc)) from None
    if not served:
        print(f"{shown_path(home)}: a warm worker already runs for this home")
    return 0


def _warm() -> None:
    """What every sync needs, loaded before the first is asked for: the code location (Dagster
    and the job) and, unless another encoder is chosen, the bundled one; the home's Dagster
    instance stays open between syncs."""
    import memory_pipeline.definitions  # noqa: F401
    from memory_pipeline.launch.instance import keep_instances_open
    from memory_pipeline.lib.in_hermes.meaning import encode_texts

    keep_instances_open()
    if environment.embedder() == "bundled":
        with contextlib.suppress(Exception):  # a sync that needs it says why it cannot load
            encode_texts(["warm"])


def _handled(main: Callable[[list[str]], int], home: Path, request: dict) -> dict:
    """One request: `stop`, or a sync of the profiles named (`retag` for a re-tag), run as the
    command `memory-pipeline sync --quiet` would, its output and exit status sent back."""
    if request.get("stop"):
        return {"stopping": True}
    profiles, retag = request.get("profiles"), request.get("retag")
    if not (isinstance(profiles, list) and profiles and all(isinstance(p, str) for p in profiles) and isinstance(retag, bool)):
        return {"error": "not a sync request"}
    argv = ["sync", "--quiet", "--hermes-home", str(home), *(["--retag"] if retag else [])]
    out, err, codes = io.StringIO(), io.StringIO(), []
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        for profile in profiles:  # one at a time, as `--profile` takes one
            try:
                codes.append(main([*argv, "--profile", profile]))
            except SystemExit as exc:  # argparse's refusal of a request no command line would make
                codes.append(exc.code if isinstance(exc.code, int) else 2)
            except Exception as exc:  # noqa: BLE001 - the worker stays up for the next write
                print(f"memory-pipeline: the warm worker could not sync {profile} ({type(exc).__name__})", file=sys.stderr)
                codes.append(1)
    return {"exit": max(codes), "stdout": out.getvalue(), "stderr": err.getvalue()}


def sync_through_worker(home: Path, profiles: list[str], *, retag: bool) -> int | None:
    """The sync run by the home's warm worker (started when none runs), its output passed on;
    None when no worker could take it (the caller syncs itself)."""
    address = environment.worker_address(home)
    try:
        socket_directory(address)
    except WorkerUnsafe as exc:
        print(f"memory-pipeline: {exc}; synced without it", file=sys.stderr)
        return None
    start = [sys.executable, "-m", "memory_pipeline.cli", "worker", "--hermes-home", str(home)]
    answer = ask_or_start(address, {"profiles": profiles, "retag": retag}, start, timeout_s=900)
    if answer is None or "exit" not in answer:
        return None
    sys.stdout.write(str(answer.get("stdout", "")))
    sys.stderr.write(str(answer.get("stderr", "")))
    code = answer["exit"]
    return code if isinstance(code, int) else 1


def refuse_options(args: argparse.Namespace, chosen: dict) -> None:
    """`--warm` syncs as the plugin asks: the profiles' own settings, cron's output."""
    others = [name for name in ("json", "force", "reset_state", "keywords", "no_keywords", "init") if getattr(args, name, None)]
    if chosen or others:
        raise CommandError("--warm takes only --profile, --all-profiles, --retag, --quiet and --hermes-home")
