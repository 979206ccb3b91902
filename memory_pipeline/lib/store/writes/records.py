"""`FactStore`'s writes of what the pipeline records beside the facts: a fact's tags and trust as
the privacy stage or the removal policy sets them, the verdicts and the judge in force, the
quarantine, the receipts of removals, the mirror rows kept as the agent's own, and the entity
links a repair finds dangling. Inside the store's write transaction."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memory_pipeline.lib.in_hermes.fact_search import JUDGE_TABLE, SHOWN, VERDICTS_TABLE
from memory_pipeline.lib.in_hermes.meaning import VECTORS_TABLE
from memory_pipeline.lib.store.reads.receipts import Receipt
from memory_pipeline.lib.store.reads.verdicts import Verdict
from memory_pipeline.lib.store.schema.database import DANGLING_LINK_SQL, KEPT_TABLE, QUARANTINE_TABLE, RETIRED_TAG
from memory_pipeline.lib.store.schema.pipeline_tables import RECEIPTS_TABLE
from memory_pipeline.lib.store.writes.part import StorePart
from memory_pipeline.lib.store.writes.tags import merge_tags


class RecordWrites(StorePart):
    """Part of a transaction (`StoreWrites`): what the pipeline records beside the facts; it calls no other part."""

    # --- a fact's tags and trust ---------------------------------------------------------------

    def set_tags_and_trust(self, fact_id: int, tags: str, trust: float) -> None:
        self.conn.execute(
            "UPDATE facts SET tags = ?, trust_score = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?", (tags, trust, fact_id)
        )

    def retire_in_place(self, fact_id: int) -> int:
        """Tag a fact `retired` and drop its trust below the prefetch threshold (1 when it changed)."""
        row = self.conn.execute("SELECT tags, trust_score FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
        if row is None:
            return 0
        tags, trust = merge_tags(row[0] or "", [RETIRED_TAG]), min(row[1], self.settings.withheld_trust)
        if (tags, trust) == (row[0], row[1]):
            return 0
        self.set_tags_and_trust(fact_id, tags, trust)
        return 1

    # --- verdicts ------------------------------------------------------------------------------

    def record_verdicts(self, judged: dict[int, Verdict]) -> None:
        """These facts' verdicts, replacing what they had."""
        self.conn.executemany(
            f"""INSERT OR REPLACE INTO {VERDICTS_TABLE} (fact_id, content_sha256, keywords_sha256, detectors, outcome)
                VALUES (?, ?, ?, ?, ?)""",
            [(fact_id, v.content_sha256, v.keywords_sha256, v.detectors, v.outcome) for fact_id, v in judged.items()],
        )
        # A fact withheld from now on is no longer reachable by meaning either: its vector goes in this transaction.
        withheld = [(fact_id,) for fact_id, v in judged.items() if v.outcome != SHOWN]
        self.conn.executemany(f"DELETE FROM {VECTORS_TABLE} WHERE fact_id = ?", withheld)

    def drop_orphan_verdicts(self) -> int:
        """The verdicts of facts that are gone; how many."""
        return self.conn.execute(f"DELETE FROM {VERDICTS_TABLE} WHERE fact_id NOT IN (SELECT fact_id FROM facts)").rowcount

    def set_judge(
        self, keywords_path: str | None, keywords_sha256: str, detectors: str, settings_sha256: str, key_path: str | None
    ) -> None:
        """The judge every verdict in force was reached with, the detector switches it read and
        the key its list's digest was made with (by path: the key itself never enters the store)."""
        self.conn.execute(
            f"""INSERT INTO {JUDGE_TABLE} (id, keywords_path, keywords_sha256, detectors, settings_sha256, key_path)
                VALUES (1, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET keywords_path = excluded.keywords_path, keywords_sha256 = excluded.keywords_sha256,
                    detectors = excluded.detectors, settings_sha256 = excluded.settings_sha256, key_path = excluded.key_path,
                    judged_at = CURRENT_TIMESTAMP""",
            (keywords_path, keywords_sha256, detectors, settings_sha256, key_path),
        )

    # --- quarantine, receipts, kept mirror rows, dangling links --------------------------------

    def quarantine_entries(self, records: Iterable[Any]) -> None:
        """Put entries in quarantine, or count one more failed attempt for those already there."""
        self.conn.executemany(
            f"""INSERT INTO {QUARANTINE_TABLE} (entry_id, source, model, prompt_sha256, reply, error)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(entry_id) DO UPDATE SET
                    model = excluded.model, prompt_sha256 = excluded.prompt_sha256, reply = excluded.reply,
                    error = excluded.error, attempts = attempts + 1, last_failed_at = CURRENT_TIMESTAMP""",
            [(r.entry_id, r.source, r.model, r.prompt_sha256, r.reply, r.error) for r in records],
        )

    def release_entries(self, entry_ids: Iterable[str]) -> None:
        """Take entries out of quarantine (their facts were written, or they left the files)."""
        self.conn.executemany(f"DELETE FROM {QUARANTINE_TABLE} WHERE entry_id = ?", [(i,) for i in entry_ids])

    def write_receipt(self, receipt: Receipt) -> None:
        """In the removal's own transaction."""
        self.conn.execute(
            f"""INSERT INTO {RECEIPTS_TABLE} (run_id, action, source, fact_ids, links, index_rows, banks)
                VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (
                receipt.run_id,
                receipt.action,
                receipt.source,
                ",".join(map(str, receipt.fact_ids)),
                receipt.links,
                receipt.index_rows,
                ",".join(receipt.banks),
            ),
        )

    def keep_as_agents_own(self, fact_id: int) -> None:
        """A mirror row the user kept: the agent's own, never retired by a sync."""
        self.conn.execute(f"INSERT OR IGNORE INTO {KEPT_TABLE} (fact_id) VALUES (?)", (fact_id,))

    def delete_dangling_links(self) -> int:
        """Entity links whose fact or entity is gone; how many."""
        return self.conn.execute(f"DELETE FROM fact_entities WHERE {DANGLING_LINK_SQL}").rowcount
