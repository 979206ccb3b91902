"""The vector codec against Hermes' rules: 0.19.0's own encoder for legacy, the tests' own HRR1
encoder and reader (hermes_oracle) for current Hermes."""

import sqlite3

import numpy as np
import pytest
from plugins.memory.holographic import holographic as oracle

from memory_pipeline.lib.choices import VectorFormat
from memory_pipeline.lib.store import vector_codec
from memory_pipeline.lib.store.vector_codec import VectorState
from memory_pipeline_tests.support.hermes_oracle import current_hermes_decode, hrr1_blob

PHASES = oracle.encode_fact("Zhang Wei reviews the 铁律 PRs", ["Zhang Wei"], 1024)


def test_legacy_is_hermes_0_19_0_bytes_and_round_trips():
    blob = vector_codec.encode(PHASES, VectorFormat.LEGACY)
    assert blob == oracle.phases_to_bytes(PHASES) and len(blob) == 8192
    assert vector_codec.state(blob, 1024) is VectorState.LEGACY
    assert np.array_equal(vector_codec.decode(blob, 1024), PHASES)


def test_hrr1_is_current_hermes_bytes_and_decodes_to_float32_precision():
    blob = vector_codec.encode(PHASES, VectorFormat.HRR1)
    assert blob == hrr1_blob(PHASES) and len(blob) == 4100 and blob[:4] == b"HRR1"
    assert vector_codec.state(blob, 1024) is VectorState.HRR1
    decoded = vector_codec.decode(blob, 1024)
    assert decoded.dtype == np.float64 and np.array_equal(decoded, current_hermes_decode(blob, 1024))
    assert np.max(np.abs(decoded - PHASES)) < 1e-6


def test_size_decides_before_the_prefix():
    # 8·dim bytes that happen to start with HRR1 are legacy float64, as current Hermes reads them.
    legacy_lookalike = b"HRR1" + bytes(8 * 16 - 4)
    assert vector_codec.state(legacy_lookalike, 16) is VectorState.LEGACY
    assert np.array_equal(vector_codec.decode(legacy_lookalike, 16), current_hermes_decode(legacy_lookalike, 16))
    # The HRR1 size without the prefix, and every other size, decode in neither dialect.
    for blob in (bytes(4 + 4 * 16), b"HRR1" + bytes(4 * 16 - 1), bytes(8 * 16 + 1), b"HRR1" + bytes(4 * 17)):
        assert vector_codec.state(blob, 16) is VectorState.MALFORMED and vector_codec.decode(blob, 16) is None
        with pytest.raises(ValueError):
            current_hermes_decode(blob, 16)
    assert vector_codec.state(None, 16) is VectorState.MISSING and vector_codec.state(b"", 16) is VectorState.MISSING
    assert vector_codec.state("text in a blob column", 16) is VectorState.MALFORMED


def test_dim_one_collision_writes_and_reads_legacy():
    phases = np.array([1.25])
    assert vector_codec.encode(phases, VectorFormat.HRR1) == phases.tobytes() == hrr1_blob(phases)
    prefixed = b"HRR1" + np.float32(1.25).tobytes()  # 8 bytes: read as float64, never as HRR1
    assert vector_codec.state(prefixed, 1) is VectorState.LEGACY
    assert np.array_equal(vector_codec.decode(prefixed, 1), current_hermes_decode(prefixed, 1))


@pytest.mark.parametrize("dim", [1, 3, 1024])
def test_sql_state_agrees_with_python(dim):
    blobs = [
        None,
        b"",
        "text",
        bytes(8 * dim),
        b"HRR1" + bytes(8 * dim - 4),
        b"HRR1" + bytes(4 * dim),
        bytes(4 + 4 * dim),
        b"HRR1" + bytes(4 * dim + 1),
        bytes(8 * dim - 1),
        7,
    ]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE facts (fact_id INTEGER PRIMARY KEY, hrr_vector BLOB)")
    conn.executemany("INSERT INTO facts (hrr_vector) VALUES (?)", [(b,) for b in blobs])
    states = [r[0] for r in conn.execute(f"SELECT {vector_codec.state_sql('hrr_vector', dim)} FROM facts ORDER BY fact_id")]
    assert states == [int(vector_codec.state(b, dim)) for b in blobs]
    counts = vector_codec.vector_counts(conn, dim)
    assert sum(counts.values()) == len(blobs) and counts["missing"] == 2


def test_decode_rows_mixes_dialects_in_one_pass():
    vectors = [oracle.encode_fact(f"fact {i}", [], 64) for i in range(6)]
    blobs = [vector_codec.encode(v, VectorFormat.HRR1 if i % 2 else VectorFormat.LEGACY) for i, v in enumerate(vectors)]
    rows = vector_codec.decode_rows(blobs, 64)
    expected = np.stack([vector_codec.decode(b, 64) for b in blobs])
    assert rows.shape == (6, 64)
    assert sorted(map(bytes, rows)) == sorted(map(bytes, expected))  # same rows, dialects grouped


def _store(*blobs_by_age):
    conn = sqlite3.connect(":memory:")
    conn.executescript("""CREATE TABLE facts (fact_id INTEGER PRIMARY KEY, updated_at TIMESTAMP, hrr_vector BLOB);
                          CREATE TABLE memory_banks (bank_id INTEGER PRIMARY KEY, bank_name TEXT, vector BLOB, dim INT,
                                                     fact_count INT, updated_at TIMESTAMP);""")
    conn.executemany(
        "INSERT INTO facts (updated_at, hrr_vector) VALUES (?, ?)", [(f"2026-08-0{i + 1} 10:00:00", b) for i, b in enumerate(blobs_by_age)]
    )
    return conn


def test_the_store_speaks_the_dialect_of_its_newest_vector():
    legacy, hrr1 = vector_codec.encode(PHASES, VectorFormat.LEGACY), vector_codec.encode(PHASES, VectorFormat.HRR1)
    assert vector_codec.store_format(_store(), 1024) is VectorFormat.LEGACY  # new store: every Hermes reads legacy
    assert vector_codec.store_format(_store(legacy, hrr1), 1024) is VectorFormat.HRR1
    assert vector_codec.store_format(_store(hrr1, legacy), 1024) is VectorFormat.LEGACY
    assert vector_codec.store_format(_store(hrr1, b"broken"), 1024) is VectorFormat.HRR1  # malformed ones do not count
    assert vector_codec.resolve_format(_store(hrr1), 1024, VectorFormat.LEGACY) is VectorFormat.LEGACY
    with pytest.raises(ValueError):
        vector_codec.encode(PHASES, VectorFormat.AUTO)
