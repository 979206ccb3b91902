"""Labelled pairs of entries of the real memory files (`../shared/corpus/hermes-memories`) for
`entries_distinct`: pairs that say the same thing, and the closest pairs that do not. Labelled by
reading each pair (every pair of a file whose bundled-encoder cosine is 0.6 or more) before the
threshold was chosen; frozen by its digest. Entries are named by profile (`recall_real_set.PROFILES`),
file and position (as the pipeline's parser reads the file, from 0), never by their text."""

from __future__ import annotations

import hashlib
import json

# (profile, file, position, position)
SAME = [
    ("msys", "memory", 0, 1),  # /dev/null broken on MSYS2: three entries of one fact
    ("msys", "memory", 0, 2),
    ("msys", "memory", 1, 2),
    ("nas", "user", 2, 3),  # "do not widen the task": a preference, then the rule that restates it
]
DIFFERENT = [
    ("trading", "memory", 4, 5),  # two scripts' standing orders
    ("trading", "memory", 0, 4),  # a manual's place and a script's order
    ("feishu", "memory", 0, 1),  # a session's key and its id: one header's different fields
    ("feishu", "memory", 0, 2),
    ("feishu", "memory", 3, 4),  # two summaries' first lines: different messages
]


def digest() -> str:
    return hashlib.sha256(json.dumps([SAME, DIFFERENT]).encode("utf-8")).hexdigest()[:12]
