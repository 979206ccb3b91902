"""One owner writes the store: every write to Hermes' tables and the pipeline's own is a method of
one of `FactStore`'s parts, no SQL on the store's tables lives outside `lib/store` (but the reads
`lib/in_hermes` ships into Hermes, which never write), and no code
outside it holds a store's connection (it reads through `StoreReader`). Each rule is also shown
catching a synthetic module that breaks it."""

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
    modules of `FactStore`'s parts (`store_parts`, module names) and the schema's write to them.
    The package shipped into Hermes (`lib/in_hermes`: search, gate, recall) reads the store and
    never writes it."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        strings = _strings(path)
        in_store = path.parent == root / "lib" / "store"
        if path.parent == root / "lib" / "in_hermes":
            if any(WRITE_SQL.search(s) and STORE_SQL.search(s) for s in strings):
                problems.append(f"{module} writes the store from inside Hermes")
        elif not in_store and any(STORE_SQL.search(s) for s in strings):
            problems.append(f"{module} holds SQL on the store's tables")
        elif in_store and path.stem not in SCHEMA_MODULES and module not in store_parts:
            if any(WRITE_SQL.search(s) and STORE_SQL.search(s) for s in strings):
                problems.append(f"{module} writes the store outside FactStore")
    return problems


def _takes_a_connection(node: ast.FunctionDef) -> bool:
    arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    annotations = [a.annotation for a in arguments if a.annotation is not None] + ([node.returns] if node.returns else [])
    return any("sqlite3.Connection" in ast.unparse(a) for a in annotations)


def _connection_functions(store: Path) -> dict[str, set[str]]:
    """Per `lib/store` module, its functions that take or give a SQLite connection (the audit's DuckDB copy is not the store)."""
    return {
        path.stem: {
            n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef) and _takes_a_connection(n)
        }
        for path in store.glob("*.py")
    }


def connection_problems(root: Path) -> list[str]:
    """No module outside `lib/store` reads a store's `.conn`, nor calls a `lib/store` function
    that takes or gives a connection: it reads through a `StoreReader` (`FactStore.reads`,
    `ProfileStore.read_only`)."""
    store = root / "lib" / "store"
    functions = _connection_functions(store)
    problems = []
    for path in sorted(root.rglob("*.py")):
        if path.parent == store:
            continue
        module, modules, named = module_name(path, root), {}, []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "memory_pipeline.lib.store":
                modules.update({a.asname or a.name: a.name for a in node.names})
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("memory_pipeline.lib.store."):
                named += [
                    f"{node.module.rsplit('.', 1)[1]}.{a.name}"
                    for a in node.names
                    if a.name in functions.get(node.module.rsplit(".", 1)[1], ())
                ]
            elif isinstance(node, ast.Attribute) and node.attr == "conn":
                problems.append(f"{module} reads a store's connection")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
                if node.attr in functions.get(modules[node.value.id], ()):
                    named.append(f"{modules[node.value.id]}.{node.attr}")
        problems += [f"{module} calls {name}, which takes a connection" for name in sorted(set(named))]
    return sorted(set(problems))


def test_no_code_outside_lib_store_holds_a_store_connection():
    assert connection_problems(PACKAGE) == []


def test_the_connection_rule_catches_a_connection_outside_lib_store(tmp_path):
    root = tmp_path / "memory_pipeline"
    (root / "lib" / "store").mkdir(parents=True)
    (root / "services").mkdir()
    (root / "lib" / "store" / "ledger.py").write_text(
        "import sqlite3\ndef fingerprint(conn: sqlite3.Connection) -> str: ...\ndef rows_sql(profile: str) -> str: ...\n", encoding="utf-8"
    )
    (root / "lib" / "store" / "database.py").write_text(
        "def read_only(path) -> Iterator[sqlite3.Connection]: ...\ndef problems(db: duckdb.DuckDBPyConnection): ...\n", encoding="utf-8"
    )
    (root / "services" / "drift.py").write_text("def n(store):\n    return store.conn\n", encoding="utf-8")
    (root / "services" / "ledger.py").write_text(
        "from memory_pipeline.lib.store.ledger import fingerprint, rows_sql\nfrom memory_pipeline.lib.store import database as db\n"
        "def n(path):\n    with db.read_only(path) as c:\n        return fingerprint(c), rows_sql('x'), db.problems(duck)\n",
        encoding="utf-8",
    )
    (root / "services" / "reading.py").write_text("def n(store):\n    return store.reads.search('x')\n", encoding="utf-8")
    assert connection_problems(root) == [
        "memory_pipeline.services.drift reads a store's connection",
        "memory_pipeline.services.ledger calls database.read_only, which takes a connection",
        "memory_pipeline.services.ledger calls ledger.fingerprint, which takes a connection",
    ]


def test_every_write_to_the_store_is_a_method_of_fact_store_and_no_sql_on_it_lives_outside_lib_store():
    from memory_pipeline.lib.store.fact_store import FactStore

    parts = {cls.__module__ for cls in (FactStore, *FactStore.parts())}
    assert store_sql_problems(PACKAGE, parts) == []


def test_the_store_rule_catches_sql_outside_its_owner(tmp_path):
    root = tmp_path / "memory_pipeline"
    for package in ("store", "sync", "audit", "in_hermes"):
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
    # What ships into Hermes reads the store; a write there would be one FactStore does not own.
    (root / "lib" / "in_hermes" / "fact_search.py").write_text(
        'Q = "SELECT fact_id FROM facts_fts WHERE facts_fts MATCH ?"\n', encoding="utf-8"
    )
    (root / "lib" / "in_hermes" / "recall.py").write_text('Q = f"DELETE FROM {VERDICTS_TABLE} WHERE fact_id = ?"\n', encoding="utf-8")
    # The audit's own DuckDB copy of the facts, and prose, are not the store's tables.
    (root / "lib" / "audit" / "rules.py").write_text(
        '"""Counts facts from entities of the files."""\nQ = "SELECT count(*) FROM loaded_facts"\n', encoding="utf-8"
    )
    assert store_sql_problems(root, {"memory_pipeline.lib.store.fact_writes"}) == [
        "memory_pipeline.lib.in_hermes.recall writes the store from inside Hermes",
        "memory_pipeline.lib.store.sneaky writes the store outside FactStore",
        "memory_pipeline.lib.sync.writer holds SQL on the store's tables",
        "memory_pipeline.services.status holds SQL on the store's tables",
    ]
