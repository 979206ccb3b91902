"""A shell-era ledger (`memory-sync.sh`'s TSV, as `ledger_tsv` describes it) brought into a
store, so the fact ids it names are kept where they are still their entries' facts."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.hermes.memory_files import SOURCE_FILES, fact_pointers

if TYPE_CHECKING:  # the command line reads TSV sections without the writer's maths
    from memory_pipeline.lib.store.fact_store import FactStore

_HEX = re.compile(r"^[0-9a-f]{16,64}$")
_SOURCE_ALIASES = {"memory": "memory", "memory.md": "memory", "user": "user", "user.md": "user"}


@dataclass
class ImportReport:
    imported: int = 0
    matched_current: int = 0  # rows re-keyed to an entry present in the files now
    unchanged: int = 0  # of those imported, rows the ledger already held as they are (left untouched)
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
    ids. An entry's rows of its last hash are taken (an entry may back several facts); older rows
    of an append-only history are superseded. A row is taken only when the fact it names is that
    entry's: its text is the entry's, its hash is the row's (a ledger carried to another store
    names other facts by those ids), the entry points at it (`fact_store#N`: a compacted entry),
    or this store's ledger already pairs them; any other row is left out, and its entry is written
    afresh by the next sync. An entry whose rows are already exactly these is left as it is."""
    report = ImportReport()
    bad_lines = report.bad_lines
    latest = _latest_versions(text, report)

    with store.transaction() as writes:
        existing = dict(store.conn.execute("SELECT fact_id, CAST(content AS BLOB) FROM facts"))
        paired = {e.entry_id: sorted(e.fact_ids + e.missing_fact_ids) for e in store.reads.active_ledger().values()}
        for entry_id, (source, short, stamp, provenance, rows) in latest.items():
            entry = current.get((source, short))
            key, sha = (entry[0], entry[1]) if entry else (entry_id, short)
            taken = []
            for number, fact_id in rows:
                if fact_id not in existing:
                    report.missing_fact += 1
                    bad_lines.append(number)
                elif fact_id in paired.get(key, ()) or _its_fact(existing[fact_id], fact_id, short, entry[2] if entry else None):
                    taken.append(fact_id)
                else:
                    report.not_its_fact += 1
            if not taken:
                continue
            report.matched_current += len(taken) if entry is not None else 0
            report.imported += len(taken)
            if paired.get(key) == sorted(taken):
                report.unchanged += len(taken)
            else:
                writes.ledger.import_rows(key, source, sha, taken, stamp, provenance)
    bad_lines.sort()
    return report


# An entry id's latest version in a TSV ledger: (source, short hash, time, provenance, [(line, fact id)]).
_Version = tuple[str, str, str | None, tuple[str, str, str], list[tuple[int, int]]]


def _latest_versions(text: str, report: ImportReport) -> dict[str, _Version]:
    """Each entry id's rows of its last hash (an entry may back several facts); the rows of its
    older hashes are counted as superseded, a malformed line as such, by line number."""
    bad_lines = report.bad_lines
    latest: dict[str, _Version] = {}
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
        short = short.lower()[:SHORT_HASH_CHARS]
        extractor, model, prompt_version = ((parts[i].strip() if len(parts) > i else "") for i in (5, 6, 7))
        known = latest.get(entry_id)
        if known is not None and known[1] == short:  # another fact of the same version
            known[4].append((number, int(fact_text)))
            continue
        if known is not None:
            report.superseded += len(known[4])
        latest[entry_id] = (source, short, stamp, (extractor, model, prompt_version), [(number, int(fact_text))])
    return latest


def _its_fact(content: bytes, fact_id: int, short: str, entry_text: str | None) -> bool:
    """The fact holds the entry's text (as the rules extractor writes it), text whose hash is the
    row's, or the entry (a compacted summary) points at it."""
    text = content.decode("utf-8", errors="replace").strip()
    if entry_text is not None and (text == entry_text.strip() or fact_id in fact_pointers(entry_text)):
        return True
    return hashlib.sha256(content.strip()).hexdigest()[:SHORT_HASH_CHARS] == short
