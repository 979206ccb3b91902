"""One owner writes the store, and `lib/store` keeps it in three rooms: every write to Hermes'
tables and the pipeline's own is in `writes/` (the parts a transaction holds) or `schema/` (creating
and upgrading tables); `reads/` and the rest never write; no SQL on the store's tables lives outside
`lib/store` (but the reads `lib/in_hermes` ships into Hermes, which never write); no code outside it
holds a store's connection (it reads through `StoreReader`) or a part of a transaction (it writes
through `FactStore.transaction()`); reads never import writes, and the schema neither. Each rule is
also shown catching a synthetic module that breaks it."""

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
# The rooms that write: the transaction's parts, and the schema's creating and upgrading tables.
WRITING_ROOMS = ("writes", "schema")


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


def store_sql_problems(root: Path) -> list[str]:
    """No module outside `lib/store` holds SQL on the store's tables, and inside it only the
    modules of the writing rooms (`writes/`, `schema/`) write to them. The package shipped into
    Hermes (`lib/in_hermes`: search, gate, recall) reads the store and never writes it."""
    store = root / "lib" / "store"
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        strings = _strings(path)
        writes = any(WRITE_SQL.search(s) and STORE_SQL.search(s) for s in strings)
        if path.parent == root / "lib" / "in_hermes":
            if writes:
                problems.append(f"{module} writes the store from inside Hermes")
        elif not path.is_relative_to(store):
            if any(STORE_SQL.search(s) for s in strings):
                problems.append(f"{module} holds SQL on the store's tables")
        elif writes and path.relative_to(store).parts[0] not in WRITING_ROOMS:
            problems.append(f"{module} writes the store outside FactStore's writes")
    return problems


def room_problems(root: Path, parts: set[str]) -> list[str]:
    """`reads/` imports nothing from `writes/`, `schema/` nothing from either; outside `lib/store`
    no module imports a part's class (`parts`: class names), so a part is reached only through a
    transaction."""
    store, prefix = root / "lib" / "store", "memory_pipeline.lib.store."
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        room = path.relative_to(store).parts[0] if path.is_relative_to(store) else None
        forbidden = {"reads": ("writes",), "schema": ("reads", "writes")}.get(room or "", ())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith(prefix):
                continue
            target = node.module.removeprefix(prefix).split(".")[0]
            if target in forbidden:
                problems.append(f"{module} ({room}) imports from {target}")
            if room is None and (taken := sorted(a.name for a in node.names if a.name in parts)):
                problems.append(f"{module} imports {', '.join(taken)}, a part of a transaction")
    return sorted(set(problems))


def _takes_a_connection(node: ast.FunctionDef) -> bool:
    arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    annotations = [a.annotation for a in arguments if a.annotation is not None] + ([node.returns] if node.returns else [])
    return any("sqlite3.Connection" in ast.unparse(a) for a in annotations)


def _connection_functions(store: Path) -> dict[str, set[str]]:
    """Per `lib/store` module (dotted below it: `reads.ledger`), its functions that take or give a
    SQLite connection (the audit's DuckDB copy is not the store)."""
    return {
        ".".join(path.relative_to(store).with_suffix("").parts): {
            n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef) and _takes_a_connection(n)
        }
        for path in store.rglob("*.py")
    }


def connection_problems(root: Path) -> list[str]:
    """No module outside `lib/store` reads a store's `.conn`, nor calls a `lib/store` function
    that takes or gives a connection: it reads through a `StoreReader` (`FactStore.reads`,
    `ProfileStore.read_only`)."""
    store, prefix = root / "lib" / "store", "memory_pipeline.lib.store"
    functions = _connection_functions(store)
    problems = []
    for path in sorted(root.rglob("*.py")):
        if path.is_relative_to(store):
            continue
        module, modules, named = module_name(path, root), {}, []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            below = (node.module or "").removeprefix(prefix).lstrip(".") if isinstance(node, ast.ImportFrom) else None
            if below is not None and (node.module or "").startswith(prefix):
                for a in node.names:
                    dotted = f"{below}.{a.name}".lstrip(".")
                    if dotted in functions:  # a module of lib/store
                        modules[a.asname or a.name] = dotted
                    elif a.name in functions.get(below, ()):
                        named.append(f"{below}.{a.name}")
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
    (root / "lib" / "store" / "reads").mkdir()
    (root / "lib" / "store" / "schema").mkdir()
    (root / "lib" / "store" / "reads" / "ledger.py").write_text(
        "import sqlite3\ndef fingerprint(conn: sqlite3.Connection) -> str: ...\ndef rows_sql(profile: str) -> str: ...\n", encoding="utf-8"
    )
    (root / "lib" / "store" / "schema" / "database.py").write_text(
        "def read_only(path) -> Iterator[sqlite3.Connection]: ...\ndef problems(db: duckdb.DuckDBPyConnection): ...\n", encoding="utf-8"
    )
    (root / "services" / "drift.py").write_text("def n(store):\n    return store.conn\n", encoding="utf-8")
    (root / "services" / "ledger.py").write_text(
        "from memory_pipeline.lib.store.reads.ledger import fingerprint, rows_sql\n"
        "from memory_pipeline.lib.store.schema import database as db\n"
        "def n(path):\n    with db.read_only(path) as c:\n        return fingerprint(c), rows_sql('x'), db.problems(duck)\n",
        encoding="utf-8",
    )
    (root / "services" / "reading.py").write_text("def n(store):\n    return store.reads.search('x')\n", encoding="utf-8")
    assert connection_problems(root) == [
        "memory_pipeline.services.drift reads a store's connection",
        "memory_pipeline.services.ledger calls reads.ledger.fingerprint, which takes a connection",
        "memory_pipeline.services.ledger calls schema.database.read_only, which takes a connection",
    ]


def test_every_write_to_the_store_is_in_a_writing_room_and_no_sql_on_it_lives_outside_lib_store():
    from memory_pipeline.lib.store.writes.transaction import StoreWrites

    assert {cls.__module__.rsplit(".", 2)[1] for cls in StoreWrites.parts()} == {"writes"}
    assert store_sql_problems(PACKAGE) == []


def test_the_rooms_import_downwards_and_a_part_is_reached_only_through_a_transaction():
    from memory_pipeline.lib.store.writes.transaction import StoreWrites

    assert room_problems(PACKAGE, {cls.__name__ for cls in StoreWrites.parts()}) == []


def test_the_room_rule_catches_an_upward_import_and_a_part_taken_outside(tmp_path):
    root = tmp_path / "memory_pipeline"
    for room in ("reads", "schema", "writes"):
        (root / "lib" / "store" / room).mkdir(parents=True)
    (root / "services").mkdir()
    (root / "lib" / "store" / "reads" / "ledger.py").write_text("from memory_pipeline.lib.store.writes.tags import merge_tags\n")
    (root / "lib" / "store" / "schema" / "tables.py").write_text("from memory_pipeline.lib.store.reads import ledger\n")
    (root / "lib" / "store" / "writes" / "ledger.py").write_text("from memory_pipeline.lib.store.reads.ledger import rows\n")
    (root / "services" / "drift.py").write_text(
        "from memory_pipeline.lib.store.writes.ledger import LedgerWrites\n"
        "from memory_pipeline.lib.store.writes.transaction import StoreWrites\n"
    )
    assert room_problems(root, {"LedgerWrites"}) == [
        "memory_pipeline.lib.store.reads.ledger (reads) imports from writes",
        "memory_pipeline.lib.store.schema.tables (schema) imports from reads",
        "memory_pipeline.services.drift imports LedgerWrites, a part of a transaction",
    ]


def test_the_store_rule_catches_sql_outside_its_owner(tmp_path):
    root = tmp_path / "memory_pipeline"
    for package in ("store", "sync", "audit", "in_hermes"):
        (root / "lib" / package).mkdir(parents=True)
    (root / "services").mkdir()
    for room in ("reads", "schema", "writes"):
        (root / "lib" / "store" / room).mkdir()
    (root / "lib" / "store" / "writes" / "facts.py").write_text('SQL = "DELETE FROM facts WHERE fact_id = ?"\n', encoding="utf-8")
    (root / "lib" / "store" / "schema" / "database.py").write_text('SCHEMA = "CREATE TABLE IF NOT EXISTS facts (x)"\n', encoding="utf-8")
    (root / "lib" / "store" / "reads" / "facts.py").write_text(
        'def n(conn):\n    return conn.execute("SELECT count(*) FROM facts")\n', encoding="utf-8"
    )
    (root / "lib" / "store" / "reads" / "sneaky.py").write_text(
        'def retire(conn, table):\n    conn.execute(f"UPDATE {LEDGER_TABLE} SET status = 1")\n', encoding="utf-8"
    )
    (root / "lib" / "store" / "fact_store.py").write_text('Q = "INSERT INTO memory_pipeline_ledger VALUES (1)"\n', encoding="utf-8")
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
    assert store_sql_problems(root) == [
        "memory_pipeline.lib.in_hermes.recall writes the store from inside Hermes",
        "memory_pipeline.lib.store.fact_store writes the store outside FactStore's writes",
        "memory_pipeline.lib.store.reads.sneaky writes the store outside FactStore's writes",
        "memory_pipeline.lib.sync.writer holds SQL on the store's tables",
        "memory_pipeline.services.status holds SQL on the store's tables",
    ]
