import numpy as np
import pytest
from plugins.memory.holographic import holographic as oracle

from memory_pipeline.lib.choices import VectorFormat
from memory_pipeline.lib.store import hrr, vector_codec

TEXTS = ["", "  ", "Hello World, again!", "**PR 铁律**: 标题不要用 fix 前缀 (rule 1)", "a \"quoted\" 'thing' [x] {y}"]


@pytest.mark.parametrize("dim", [1024, 100, 17])
def test_atoms_are_holographics(dim):
    for word in ["hello", "中文", "__hrr_role_entity__", ""]:
        assert np.array_equal(hrr.atom(word, dim), oracle.encode_atom(word, dim))


@pytest.mark.parametrize("text", TEXTS)
def test_fact_vectors_are_bit_identical(text):
    cache = hrr.AtomCache(1024, capacity=4)  # tiny: eviction must not change results
    for entities in ([], ["Hello World"], ["PR 铁律", "Zhang Wei", "quoted"]):
        mine = hrr.encode_fact(text, entities, cache)
        assert np.array_equal(mine, oracle.encode_fact(text, entities, 1024))
        assert vector_codec.encode(mine, VectorFormat.LEGACY) == oracle.phases_to_bytes(mine)


def test_streamed_bank_equals_holographic_bundle():
    vectors = [oracle.encode_fact(f"fact number {i}", [f"E{i % 3}"], 256) for i in range(40)]
    bank = hrr.BankAccumulator(256)
    bank.add(vectors[0])
    bank.add_rows(np.stack(vectors[1:]))
    assert bank.count == 40
    assert np.max(np.abs(bank.vector() - oracle.bundle(*vectors))) < 1e-12
