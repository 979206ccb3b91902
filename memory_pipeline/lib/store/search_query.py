"""The search grammar every surface shares (the command line, the MCP server, the Hermes plugin):
words in any order, each a case-insensitive substring of the fact, all of them required; a quoted
phrase is one word, spaces and all. A word is two characters or more, or one Chinese, Japanese or
Korean character (a word of its own there); a lone letter or digit beside other words is left out.
Standard library only: the Hermes plugin runs this file beside `fact_search.py`."""

from __future__ import annotations

import re

# Joins the characters of the `pairs` column: every character pair is then a trigram of its own.
PAIR_SEPARATOR = "\x1f"
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK}]")
CJK_RUN = re.compile(f"[{_CJK}]{{2,}}")
_WORD = re.compile(r'"([^"]*)"|(\S+)')
TOO_SHORT = "a search needs a word of at least 2 characters, or one Chinese, Japanese or Korean character"


class SearchError(ValueError):
    """A query the index cannot answer (no word long enough)."""


def query_words(query: str) -> list[str]:
    """The words of a query, in order, each once: quoted phrases whole, the rest split on white
    space; `SearchError` when none is a word the index can answer."""
    words: list[str] = []
    for quoted, bare in _WORD.findall(query):
        word = (quoted if quoted else bare.strip('"')).strip()
        if word and word.lower() not in (w.lower() for w in words):
            words.append(word)
    usable = [w for w in words if len(w) >= 2 or CJK_CHAR.fullmatch(w)]
    if not usable:
        raise SearchError(TOO_SHORT)
    return usable


def pair_text(text: str) -> str:
    return PAIR_SEPARATOR.join(text.lower()) + PAIR_SEPARATOR


def phrase(column: str, text: str) -> str:
    """One FTS5 phrase for the column: a substring in `content`, a character pair in `pairs`."""
    if column == "pairs":
        text = (text[0] + PAIR_SEPARATOR + text[1]).lower()
    return '"' + text.replace('"', '""') + '"'


def match_expression(words: list[str]) -> str | None:
    """The FTS5 query holding every word of two characters or more (None when there is none): a
    trigram phrase of three or more, a character pair of two."""
    parts = [f"{{{column}}} : {phrase(column, w)}" for w in words if len(w) >= 2 for column in ["pairs" if len(w) == 2 else "content"]]
    return " AND ".join(parts) or None


def single_characters(words: list[str]) -> list[str]:
    """The one-character words, which no trigram holds: checked in each matching text instead."""
    return [w for w in words if len(w) == 1]
