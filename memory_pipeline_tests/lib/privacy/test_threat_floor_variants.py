"""Hermes' scan is the floor under Hermes' own regular-expression semantics: its patterns run with
Python's `re.IGNORECASE` (where the dotless `ı` is `i`, the long `ſ` is `s`, the Kelvin sign is `k`)
and its `\\s+` spans line breaks. A differential test: every payload and look-alike of the labelled
corpus is rewritten in each trick a model still reads as the plain text, and whatever Hermes 0.19.0's
`scan_for_threats` flags of a variant, the pipeline withholds; a payload it withholds plain it
withholds in every variant."""

import opencc
import pytest
from tools.threat_patterns import scan_for_threats  # Hermes' own scan: the oracle

from memory_pipeline.lib.privacy.unsafe import unsafe_kinds
from memory_pipeline_tests.support.threat_corpus import BENIGN, CHINESE_ONLY_PAYLOADS, CHINESE_PAYLOADS, PAYLOADS

_S2T = opencc.OpenCC("s2t")
_CYRILLIC = str.maketrans("aeopcxyiAEOPCXHKMT", "аеорсхуіАЕОРСХНКМТ")


def _between_letters(text: str, mark: str) -> str:
    """`mark` after every third letter of each word (words stay words to the eye)."""
    out, run = [], 0
    for char in text:
        out.append(char)
        run = run + 1 if char.isalpha() else 0
        if run and run % 3 == 0:
            out.append(mark)
    return "".join(out)


VARIANTS = {
    "dotless i": lambda t: t.replace("i", "ı"),  # Hermes' IGNORECASE reads ı as i
    "long s": lambda t: t.replace("s", "ſ"),
    "kelvin k": lambda t: t.replace("k", "\u212a"),
    "line breaks": lambda t: t.replace(" ", "\n"),
    "tabs and breaks": lambda t: t.replace(" ", " \t\n "),
    "cyrillic": lambda t: t.translate(_CYRILLIC),
    "zero-width": lambda t: _between_letters(t, "\u200b"),
    "tag characters": lambda t: _between_letters(t, "\U000e0020"),
    "variation selectors": lambda t: _between_letters(t, "\ufe0f"),
    "hangul filler": lambda t: _between_letters(t, "\u3164"),
    "soft hyphen": lambda t: _between_letters(t, "\u00ad"),
    "full width": lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),
    "typographic": lambda t: t.replace("'", "’").replace("-", "‑").replace('"', "“"),
    "traditional chinese": lambda t: _S2T.convert(t),
    "upper case": str.upper,
}
TEXTS = PAYLOADS + CHINESE_PAYLOADS + CHINESE_ONLY_PAYLOADS + BENIGN


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_whatever_hermes_flags_in_a_variant_is_withheld(variant):
    rewrite = VARIANTS[variant]
    missed = [t for t in TEXTS if scan_for_threats(rewrite(t), scope="strict") and not unsafe_kinds(rewrite(t))]
    assert missed == []


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_payload_withheld_plain_is_withheld_in_every_variant(variant):
    rewrite = VARIANTS[variant]
    payloads = [t for t in PAYLOADS + CHINESE_PAYLOADS + CHINESE_ONLY_PAYLOADS if unsafe_kinds(t)]
    assert len(payloads) > 50
    assert [t for t in payloads if not unsafe_kinds(rewrite(t))] == []


def test_the_variants_reach_hermes_own_semantics():
    """The oracle is exercised: Hermes flags the dotless, long-s and line-broken forms of payloads."""
    for variant in ("dotless i", "long s", "line breaks"):
        assert sum(bool(scan_for_threats(VARIANTS[variant](t), scope="strict")) for t in PAYLOADS) >= 20, variant
