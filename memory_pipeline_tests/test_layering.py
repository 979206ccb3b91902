"""The package's layering, read from the source (every import, top-level or inside a function):
`lib/` never imports dagster, each `lib/` package imports only from the packages below it (files,
then the Hermes files, then the store, then extraction and privacy side by side, then the sync, then the
audit), and no module's imports cycle back to it. Each rule is also shown catching a synthetic
module that breaks it."""

import ast
import re
from pathlib import Path

from memory_pipeline_tests.support.repository import REPO_ROOT

PACKAGE = REPO_ROOT / "memory_pipeline"
# Lowest first; a package may import its own modules and those of lower ranks only.
LAYERS = {"files": 0, "hermes": 1, "store": 2, "extraction": 3, "privacy": 3, "sync": 4, "audit": 5}


def _module(path: Path, root: Path) -> str:
    name = ".".join(path.relative_to(root.parent).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    """Every module the file imports: at the top, inside a function or under `TYPE_CHECKING`."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def layering_problems(root: Path) -> list[str]:
    problems = []
    for path in sorted((root / "lib").rglob("*.py")):
        module, imports = _module(path, root), _imports(path)
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


def import_cycles(root: Path) -> list[list[str]]:
    """Cycles among the package's modules through any of their imports: one inside a function or
    under `TYPE_CHECKING` cannot deadlock an import, but it still ties the two modules together."""
    modules = {_module(p, root): p for p in root.rglob("*.py")}
    graph = {m: {i for i in _imports(p) if i in modules and i != m} for m, p in modules.items()}
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


def test_no_import_cycles():
    assert import_cycles(PACKAGE) == []


def test_the_rules_catch_a_module_that_breaks_them(tmp_path):
    root = tmp_path / "memory_pipeline"
    (root / "lib" / "store").mkdir(parents=True)
    (root / "lib" / "sync").mkdir(parents=True)
    (root / "lib" / "privacy").mkdir(parents=True)
    (root / "lib" / "privacy" / "tagging.py").write_text(
        "from memory_pipeline.lib.extraction.rule_based import title_entity\nfrom memory_pipeline.lib.store.database import connect\n",
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


def test_benchmarks_take_only_the_support_package_from_the_tests():
    taken = {i for path in (REPO_ROOT / "benchmarks").glob("*.py") for i in _imports(path) if i.startswith("memory_pipeline_tests")}
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
        (str(p), i) for p in lib for i in _imports(p) if i.startswith("memory_pipeline.") and not i.startswith("memory_pipeline.lib")
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


# The store's tables: Hermes' own, and the pipeline's (prefixed, or named by a `*_TABLE` constant).
_STORE_TABLE = r"(facts|facts_fts\w*|fact_entities|entities|memory_banks|memory_pipeline_\w+|\{\w*TABLE\w*\})"
STORE_SQL = re.compile(rf"\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+(IF NOT EXISTS\s+)?{_STORE_TABLE}(?![\w.])")
WRITE_SQL = re.compile(r"\b(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+(OR\s+\w+\s+)?\S+\s+SET|DELETE\s+FROM|REPLACE\s+INTO)\b")
# Creating and upgrading the schema is the opening's, before any `FactStore` exists.
SCHEMA_MODULES = {"database", "ledger_schema", "schema_upgrades"}


def _strings(path: Path) -> list[str]:
    """Every string literal of the file, f-strings with `{name}` where they interpolate a name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            found.append(
                "".join(part.value if isinstance(part, ast.Constant) else "{" + (ast.unparse(part.value)) + "}" for part in node.values)
            )
    return found


def store_sql_problems(root: Path, store_parts: set[str]) -> list[str]:
    """No module outside `lib/store` holds SQL on the store's tables, and inside it only the
    modules of `FactStore`'s parts (`store_parts`, module names) and the schema's write to them."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = _module(path, root)
        strings = _strings(path)
        in_store = path.parent == root / "lib" / "store"
        if not in_store and any(STORE_SQL.search(s) for s in strings):
            problems.append(f"{module} holds SQL on the store's tables")
        elif in_store and path.stem not in SCHEMA_MODULES and module not in store_parts:
            if any(WRITE_SQL.search(s) and STORE_SQL.search(s) for s in strings):
                problems.append(f"{module} writes the store outside FactStore")
    return problems


def test_every_write_to_the_store_is_a_method_of_fact_store_and_no_sql_on_it_lives_outside_lib_store():
    from memory_pipeline.lib.store.fact_store import FactStore

    parts = {cls.__module__ for cls in FactStore.__mro__}
    assert store_sql_problems(PACKAGE, parts) == []


def test_the_store_rule_catches_sql_outside_its_owner(tmp_path):
    root = tmp_path / "memory_pipeline"
    for package in ("store", "sync", "audit"):
        (root / "lib" / package).mkdir(parents=True)
    (root / "services").mkdir()
    (root / "lib" / "store" / "fact_writes.py").write_text('SQL = "DELETE FROM facts WHERE fact_id = ?"\n', encoding="utf-8")
    (root / "lib" / "store" / "database.py").write_text('SCHEMA = "CREATE TABLE IF NOT EXISTS facts (x)"\n', encoding="utf-8")
    (root / "lib" / "store" / "reads.py").write_text(
        'def n(conn):\n    return conn.execute("SELECT count(*) FROM facts")\n', encoding="utf-8"
    )
    (root / "lib" / "store" / "sneaky.py").write_text(
        'def retire(conn, table):\n    conn.execute(f"UPDATE {LEDGER_TABLE} SET status = 1")\n', encoding="utf-8"
    )
    (root / "lib" / "sync" / "writer.py").write_text(
        'def n(conn):\n    return conn.execute("SELECT count(*) FROM facts")\n', encoding="utf-8"
    )
    (root / "services" / "status.py").write_text('Q = f"SELECT max(synced_at) FROM {LEDGER_TABLE}"\n', encoding="utf-8")
    # The audit's own DuckDB copy of the facts, and prose, are not the store's tables.
    (root / "lib" / "audit" / "rules.py").write_text(
        '"""Counts facts from entities of the files."""\nQ = "SELECT count(*) FROM loaded_facts"\n', encoding="utf-8"
    )
    assert store_sql_problems(root, {"memory_pipeline.lib.store.fact_writes"}) == [
        "memory_pipeline.lib.store.sneaky writes the store outside FactStore",
        "memory_pipeline.lib.sync.writer holds SQL on the store's tables",
        "memory_pipeline.services.status holds SQL on the store's tables",
    ]
