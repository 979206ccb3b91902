"""A fact's tags as every rewrite of them merges them (a fact retired, synced, restored): one
comma-separated string, each tag once, in its first spelling."""

from __future__ import annotations

from collections.abc import Iterable


def merge_tags(*groups: str | Iterable[str]) -> str:
    """One comma-separated tag string, first spelling of each tag kept, empty parts dropped."""
    seen: dict[str, None] = {}
    for group in groups:
        parts = group.split(",") if isinstance(group, str) else group
        for tag in parts:
            tag = tag.strip()
            if tag:
                seen.setdefault(tag, None)
    return ",".join(seen)
