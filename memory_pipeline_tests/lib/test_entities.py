
import pytest
from plugins.memory.holographic.store import MemoryStore

from memory_pipeline.lib.entities import EntityResolver, extract_entities
from memory_pipeline.lib.store import connect

TEXTS = [
    "John Doe met Jane Smith at Acme Corp",
    'Use "pytest" and \'ruff\' daily; "pytest" again',
    "Guido aka BDFL wrote Python",
    "Robert Tables also known as Little Bobby",
    "**联系人 张伟 (Zhang Wei)**: 产品经理",
    "nothing here at all",
    "New York New York",
]


@pytest.fixture
def holographic(tmp_path):
    store = MemoryStore(db_path=tmp_path / "oracle.db")
    yield store
    store.close()


@pytest.mark.parametrize("text", TEXTS)
def test_extraction_matches_holographic(holographic, text):
    assert extract_entities(text) == holographic._extract_entities(text)


def test_explicit_entity_is_added_once():
    assert extract_entities("Zhang Wei is here", ["zhang wei", "联系人"]) == ["Zhang Wei", "联系人"]


def test_resolution_matches_holographic(tmp_path, holographic):
    names = ["Acme Corp", "acme corp", "ACME CORP", "a_me corp", "Ärger", "ärger", "50%", "Zhang Wei", "zhang wei"]
    conn = connect(tmp_path / "mine.db")
    conn.execute("INSERT INTO entities (name, aliases) VALUES ('Robert', 'Bob,Bobby')")
    holographic._conn.execute("INSERT INTO entities (name, aliases) VALUES ('Robert', 'Bob,Bobby')")
    resolver = EntityResolver(conn)
    for name in names + ["Bobby", "bob"]:
        mine, _ = resolver.resolve(name)
        assert mine == holographic._resolve_entity(name), name
    mine_rows = conn.execute("SELECT entity_id, name FROM entities ORDER BY entity_id").fetchall()
    oracle_rows = [tuple(r) for r in holographic._conn.execute("SELECT entity_id, name FROM entities ORDER BY entity_id")]
    assert mine_rows == oracle_rows
