"""A shell-era ledger (`memory-sync.sh`'s TSV, as `ledger_tsv` describes it) brought into a
store, so the fact ids it names are kept where they are still their entries' facts."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES

if TYPE_CHECKING:  # the command line reads TSV sections without the writer's maths
    from memory_pipeline.lib.store.fact_store import FactStore

_HEX = re.compile(r"^[0-9a-f]{16,64}$")
_SOURCE_ALIASES = {"memory": "memory", "memory.md": "memory", "user": "user", "user.md": "user"}


@dataclass
class ImportReport:
    imported: int = 0
    matched_current: int = 0  # rows re-keyed to an entry present in the files now
    superseded: int = 0  # older rows of an append-only history (the last row of an entry wins)
    bad_fact_id: int = 0  # memory-sync.sh's column leak: a fact_id that is not a positive integer
    missing_fact: int = 0  # fact_id not in this store
    not_its_fact: int = 0  # the fact named holds neither the entry's text nor its hash: the entry is written afresh
    malformed: int = 0  # wrong column count, unknown source, bad hash
    bad_lines: list[int] = field(default_factory=list)  # line numbers (never content) of rejected rows


def _sql_timestamp(raw: str) -> str | None:
    raw = raw.strip()
    if not raw:
        return None
    if re.fullmatch(r"\d{9,11}(\.\d+)?", raw):
        moment = datetime.fromtimestamp(float(raw), tz=UTC)
    else:
        try:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return None
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def import_tsv(store: FactStore, text: str, current: dict[tuple[str, str], tuple[str, str, str]]) -> ImportReport:
    """Bring a TSV ledger (its text) in. `current` maps (source, short hash) of the entries in the
    files now to (entry_id, full sha256, text), so rows of present entries take the pipeline's own
    ids. A row is taken only when the fact it names is that entry's: its text is the entry's, or
    its hash is the row's (a ledger carried to another store names other facts by those ids);
    any other row is left out, and its entry is written afresh by the next sync."""
    bad_lines: list[int] = []
    report = ImportReport(bad_lines=bad_lines)
    latest: dict[str, tuple[int, str, str, int, str | None, tuple[str, str, str]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 4:
            report.malformed += 1
            bad_lines.append(number)
            continue
        entry_id, short, fact_text, source = (p.strip() for p in parts[:4])
        stamp = _sql_timestamp(parts[4]) if len(parts) > 4 else None
        source = _SOURCE_ALIASES.get(source.lower(), "")
        if not fact_text.isdigit() or int(fact_text) <= 0:
            report.bad_fact_id += 1
            bad_lines.append(number)
            continue
        if not entry_id or source not in SOURCE_FILES or not _HEX.match(short.lower()):
            report.malformed += 1
            bad_lines.append(number)
            continue
        if entry_id in latest:
            report.superseded += 1
        extractor, model, prompt_version = ((parts[i].strip() if len(parts) > i else "") for i in (5, 6, 7))
        latest[entry_id] = (number, source, short.lower()[:SHORT_HASH_CHARS], int(fact_text), stamp, (extractor, model, prompt_version))

    with store.transaction() as writes:
        existing = dict(store.conn.execute("SELECT fact_id, CAST(content AS BLOB) FROM facts"))
        for entry_id, (number, source, short, fact_id, stamp, provenance) in latest.items():
            if fact_id not in existing:
                report.missing_fact += 1
                bad_lines.append(number)
                continue
            entry = current.get((source, short))
            if not _its_fact(existing[fact_id], short, entry[2] if entry else None):
                report.not_its_fact += 1
                continue
            key, sha = (entry[0], entry[1]) if entry else (entry_id, short)
            report.matched_current += entry is not None
            writes.ledger.import_row(key, source, sha, fact_id, stamp, provenance)
            report.imported += 1
    bad_lines.sort()
    return report


def _its_fact(content: bytes, short: str, entry_text: str | None) -> bool:
    """The fact holds the entry's text (as the rules extractor writes it), or text whose hash is
    the row's."""
    text = content.decode("utf-8", errors="replace").strip()
    return (entry_text is not None and text == entry_text.strip()) or hashlib.sha256(content.strip()).hexdigest()[
        :SHORT_HASH_CHARS
    ] == short
