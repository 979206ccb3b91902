import random
import re

import pytest
from plugins.memory.holographic.store import MemoryStore

from memory_pipeline.lib.store.fact_store import FactStore
from memory_pipeline.lib.store.schema.database import connect
from memory_pipeline.lib.store.settings import holographic_settings
from memory_pipeline.lib.store.writes.entities import _aka_pairs, extract_entities

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
    store = FactStore(conn, holographic_settings(tmp_path))
    with store.transaction() as writes:
        for name in names + ["Bobby", "bob"]:
            mine, _ = writes.facts.entity(name)
            assert mine == holographic._resolve_entity(name), name
    mine_rows = conn.execute("SELECT entity_id, name FROM entities ORDER BY entity_id").fetchall()
    oracle_rows = [tuple(r) for r in holographic._conn.execute("SELECT entity_id, name FROM entities ORDER BY entity_id")]
    assert mine_rows == oracle_rows


# Holographic 0.19.0's alias regex, as its `add_fact` runs it: the reference the linear scan must equal.
_HOLOGRAPHIC_AKA = re.compile(r"(\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)", re.IGNORECASE)
_PIECES = [
    "aka",
    "AKA",
    "Aka",
    "a\u212aa",
    "also known as",
    "also  known as",
    "ALSO KNOWN AS",
    "x",
    "Guido",
    "张伟",
    "_",
    "akas",
    "9",
    " ",
    "  ",
    "\n",
    "\t",
    ",",
    "-",
    ".",
    "'",
    '"',
    "(",
    "aka,",
    "known",
    "as",
]


def _generated(seed: int, pieces: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(_PIECES) + rng.choice([" ", "", " ", "\n"]) for _ in range(pieces))


@pytest.mark.parametrize("seed", range(300))
def test_alias_pairs_equal_holographics_regex_on_generated_text(seed):
    text = _generated(seed, 5 + seed % 40)
    expected = [(m.group(1), m.group(2)) for m in _HOLOGRAPHIC_AKA.finditer(text)]
    assert _aka_pairs(text) == expected, text


@pytest.mark.parametrize("text", TEXTS)
def test_alias_pairs_equal_holographics_regex_on_the_corpus(text):
    assert _aka_pairs(text) == [(m.group(1), m.group(2)) for m in _HOLOGRAPHIC_AKA.finditer(text)]


def test_alias_scan_of_the_worst_case_finds_nothing():
    """400,000 characters of words ending in a dangling "aka" (the regex's worst case): no alias,
    and the scan ends (its linear growth is `benchmarks/bench_alias_scan.py`'s to measure; a
    quadratic scan would hang the suite here)."""
    text = ("word " * 80_000) + " aka"
    assert _aka_pairs(text) == [] and "aka" not in [name.lower() for name in extract_entities(text)]
