"""Hermes' own threat scan is the unsafe scan's floor: over a labelled corpus of payloads, their
obfuscations and benign look-alikes in Chinese and English, every entry Hermes 0.19.0's
`scan_for_threats(scope="strict")` flags is withheld as unsafe. What each flags of the benign set
is measured by `benchmarks/bench_threat_scan.py`."""

import pytest
from tools.threat_patterns import scan_for_threats  # Hermes' own scan: the oracle

from memory_pipeline.lib.privacy.unsafe import unsafe_kinds
from memory_pipeline_tests.support.threat_corpus import corpus

CORPUS = corpus()


def test_the_corpus_is_large_labelled_and_exercises_hermes_scan():
    assert len(CORPUS) >= 200 and {e.payload for e in CORPUS} == {True, False}
    flagged = [e for e in CORPUS if scan_for_threats(e.text, scope="strict")]
    assert len(flagged) >= 200 and any(not e.payload for e in flagged)  # its benign look-alikes reach Hermes' patterns too


@pytest.mark.parametrize("form", sorted({e.form for e in CORPUS}))
def test_everything_hermes_flags_is_unsafe(form):
    missed = [e.text for e in CORPUS if e.form == form and scan_for_threats(e.text, scope="strict") and not unsafe_kinds(e.text)]
    assert missed == []


def test_the_payloads_hermes_misses_are_caught_in_their_plain_forms():
    """Full-width, look-alike letters and a dotted capital I are folded before the scan."""
    payloads = [e for e in CORPUS if e.payload]
    ours = sum(bool(unsafe_kinds(e.text)) for e in payloads)
    assert ours > sum(bool(scan_for_threats(e.text, scope="strict")) for e in payloads)
    assert all(unsafe_kinds(e.text) for e in payloads if e.form in ("look-alike letters", "full-width", "upper case"))


def test_steering_written_in_chinese_is_unsafe_and_a_users_own_notes_are_not():
    """Hermes' scan reads English only: what it misses in Chinese, typed plain or full-width."""
    chinese = [e for e in CORPUS if e.form.startswith("all Chinese")]
    assert len(chinese) == 24
    assert [e.text for e in chinese if e.payload and unsafe_kinds(e.text) != ["override"]] == []
    assert [e.text for e in chinese if not e.payload and unsafe_kinds(e.text)] == []
