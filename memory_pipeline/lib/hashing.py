"""Entry identity: the SHA-256 of an entry's stripped text (DESIGN §2)."""

from __future__ import annotations

import hashlib

SHORT_HASH_CHARS = 16


def entry_sha256(text: str) -> str:
    """Hex SHA-256 of the UTF-8 bytes of the (already stripped) entry text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def short_hash(sha256_hex: str) -> str:
    """The ledger's short form: the first 16 hex characters."""
    return sha256_hex[:SHORT_HASH_CHARS]


def entry_id(source: str, sha256_hex: str) -> str:
    """Stable id of an entry: the same text in the same file has the same id wherever it stands."""
    return f"{source}:{short_hash(sha256_hex)}"
