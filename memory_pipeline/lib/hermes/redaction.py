"""Telling a secret-scrubbed copy of an entry from another text. Current Hermes scrubs what it hands
a memory provider of secrets first, so Holographic's mirror of an entry holding a key reads
`OPENAI_API_KEY=***` or `ghp_ab...6789` where the entry has the key. A copy is the entry's when
every place the two differ holds a mask in the copy and the rest is the entry's text, in order."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

# The masks secret scrubbers leave: stars, an ellipsis between kept ends, a redaction label.
_MASK = re.compile(r"\*{3,}|\.\.\.|…|«redacted[^»]*»|\[REDACTED[^\]]*\]|<redacted[^>]*>", re.IGNORECASE)


def has_mask(text: str) -> bool:
    return _MASK.search(text) is not None


def is_scrubbed_copy(entry: str, copy: str) -> bool:
    """`copy` is `entry` with secrets masked: it differs, has a mask in every differing span, and
    keeps at least a third of the entry's text around them (a scrubber may take a character or two
    past a token's end)."""
    if copy == entry or not has_mask(copy):
        return False
    matcher = SequenceMatcher(None, entry, copy, autojunk=False)
    kept = 0
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            kept += a1 - a0
        elif not has_mask(copy[b0:b1]) or tag == "delete":
            # Text of the entry dropped with no mask in its place, or a change that masks nothing.
            return False
    return kept * 3 >= len(entry)
