"""One owner writes the store: every write to Hermes' tables and the pipeline's own is a method of
one of `FactStore`'s parts, and no SQL on the store's tables lives outside `lib/store`. The rule
is also shown catching a synthetic module that breaks it."""

import ast
import re
from pathlib import Path

from memory_pipeline_tests.support.repository import REPO_ROOT
from memory_pipeline_tests.support.source_imports import module_name

PACKAGE = REPO_ROOT / "memory_pipeline"

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
        module = module_name(path, root)
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

    parts = {cls.__module__ for cls in (FactStore, *FactStore.PARTS)}
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
