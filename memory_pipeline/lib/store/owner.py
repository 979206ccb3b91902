"""Whose rows of the ledger a sync reads and writes (profiles whose settings name one store keep
theirs apart). Light: the command line imports it without pandas."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LedgerOwner:
    """Whose ledger rows a sync reads and writes. A store named by one profile's settings is that
    profile's alone: every row is its own. A store several profiles share (`sharers`: the others)
    keeps each profile's rows apart: another's rows are never read as this profile's, and a row
    no profile has claimed yet (written before the ledger kept profiles) is taken only by an entry
    with exactly its text."""

    profile: str = ""
    sharers: tuple[str, ...] = ()

    @property
    def sole(self) -> bool:
        return not self.sharers

    def rows_sql(self, column: str = "profile") -> tuple[str, tuple[str, ...]]:
        """(SQL condition, parameters) selecting the rows this owner may read or take."""
        if self.sole:
            return "1", ()
        return f"{column} NOT IN ({', '.join('?' * len(self.sharers))})", self.sharers

    def owns(self, profile: str) -> bool:
        return self.sole or profile == self.profile


SOLE_OWNER = LedgerOwner()
