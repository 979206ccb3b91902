"""The one reader of a memory file's entries: the pipeline's parser and the Hermes plugin's (the
plugin ships this file beside itself), so the hashes the plugin journals are the entries the sync
reads. Standard library only.

A boundary is a `§` immediately followed by a line break or the end of the text, whatever stands
before it on its line (`§分隔`, `§ 汉语名:` and `§TTS` are text). Entries are stripped, empty ones
dropped, the first of duplicates kept. Bytes are read as UTF-8 with a byte-order mark stripped
(as current Hermes reads them) and every line ending made `\\n`.
"""

from __future__ import annotations

import codecs
import hashlib
import re

ENTRY_DELIMITER = "\n§\n"
BOUNDARY = re.compile(r"§(?:\n|\Z)")


def decoded(raw: bytes) -> str:
    """The file's text, newline-normalised; `UnicodeDecodeError` for bytes that are not UTF-8."""
    body = raw[len(codecs.BOM_UTF8) :] if raw.startswith(codecs.BOM_UTF8) else raw
    return body.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def split_parts(text: str) -> list[str]:
    """Raw parts between boundaries, unstripped (the pipeline's findings look at the empty ones)."""
    return BOUNDARY.split(text)


def parse_entries(text: str) -> list[str]:
    """The entries of newline-normalised text: stripped, non-empty, first of duplicates."""
    return list(dict.fromkeys(p for p in (part.strip() for part in split_parts(text)) if p))


def entry_sha256(text: str) -> str:
    """An entry's identity: the SHA-256 of its stripped text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
