"""The ledger of `memory-sync.sh`: `entry_id \\t sha256[:16] \\t fact_id \\t source \\t timestamp`,
as export writes the active rows (import is `ledger_import`'s), and the `# profile:` sections of
a file holding several profiles' ledgers."""

from __future__ import annotations

import re
import sqlite3

from memory_pipeline.lib.hermes.hashing import SHORT_HASH_CHARS
from memory_pipeline.lib.store.owner import SOLE_OWNER, LedgerOwner
from memory_pipeline.lib.store.schema.database import LEDGER_TABLE
from memory_pipeline.lib.store.schema.ledger_table import profile_sql

_SECTION = re.compile(r"^# profile: (\S+)\s*$")


def sections(text: str) -> list[str]:
    """The profiles a ledger file holds a `# profile: NAME` section for (what `export` writes)."""
    return list(dict.fromkeys(m.group(1) for line in text.splitlines() if (m := _SECTION.match(line))))


def section_of(text: str, profile: str) -> str:
    """The file with every line outside `profile`'s section blanked (line numbers kept for the report)."""
    kept, inside = [], False
    for line in text.splitlines():
        if match := _SECTION.match(line):
            inside = match.group(1) == profile
        kept.append(line if inside else "")
    return "\n".join(kept) + "\n"


def export_rows(conn: sqlite3.Connection, owner: LedgerOwner = SOLE_OWNER) -> list[str]:
    """The active ledger rows as TSV lines (each ending in a newline): `memory-sync.sh`'s five
    columns, then the extractor, model and prompt version, so a round trip changes no column."""
    scope, params = owner.rows_sql(profile_sql(conn))
    rows = conn.execute(
        f"""SELECT entry_id, substr(entry_sha256, 1, {SHORT_HASH_CHARS}), fact_id, source, synced_at,
                coalesce(extractor, ''), coalesce(model, ''), coalesce(prompt_version, '')
            FROM {LEDGER_TABLE} WHERE status = 'active' AND {scope} ORDER BY source, entry_id, fact_id""",
        params,
    ).fetchall()
    return ["\t".join([e, h, str(f), s, _iso(t), x, m, p]) + "\n" for e, h, f, s, t, x, m, p in rows]


def _iso(timestamp: str | None) -> str:
    return (timestamp or "").replace(" ", "T") + ("Z" if timestamp else "")
