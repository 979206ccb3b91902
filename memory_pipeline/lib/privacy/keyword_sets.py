"""A keyword list as RE2 sets: one set cannot hold more than RE2's memory budget allows (a few
thousand terms), so a long list is several, with the same matches, still in linear time."""

from __future__ import annotations

import re2

# Terms per RE2 set to start with: well inside RE2's default memory budget for names and phrases.
_SET_SIZE = 2_000
_SMALLEST_SET = 16


def compiled_sets(expressions: list[str], options: re2.Options) -> list[tuple[re2.Set, tuple[str, ...]]] | None:
    """The terms in RE2 sets of at most `_SET_SIZE`, a set that RE2 cannot fit in memory split in
    halves; None when even a set of `_SMALLEST_SET` terms cannot be compiled."""
    pending = [tuple(expressions[i : i + _SET_SIZE]) for i in range(0, len(expressions), _SET_SIZE)]
    compiled = []
    while pending:
        chunk = pending.pop(0)
        terms = re2.Set.SearchSet(options)
        for expression in chunk:
            terms.Add(expression)
        try:
            terms.Compile()
        except re2.error:
            if len(chunk) <= _SMALLEST_SET:
                return None
            half = len(chunk) // 2
            pending[:0] = [chunk[:half], chunk[half:]]
            continue
        compiled.append((terms, chunk))
    return compiled
