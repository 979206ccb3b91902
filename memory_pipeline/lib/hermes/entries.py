"""A profile's entries as tables: the data that flows between the pipeline's first stages."""

from __future__ import annotations

import pandas as pd

from memory_pipeline.lib.hermes.hashing import entry_identities
from memory_pipeline.lib.hermes.memory_files import SourceReading

PARSED_COLUMNS = ["profile", "source", "position", "text", "chars"]
HASHED_COLUMNS = PARSED_COLUMNS + ["entry_sha256", "short_hash", "entry_id"]


def parsed_frame(profile_name: str, readings: list[SourceReading]) -> pd.DataFrame:
    rows = [(profile_name, r.source, position, text, len(text)) for r in readings for position, text in enumerate(r.entries, start=1)]
    return pd.DataFrame(rows, columns=PARSED_COLUMNS).astype({"position": "int64", "chars": "int64"})


def hashed_frame(parsed: pd.DataFrame) -> pd.DataFrame:
    frame = parsed.copy()
    frame["entry_sha256"], frame["short_hash"], frame["entry_id"] = entry_identities(frame["source"].tolist(), frame["text"].tolist())
    return frame[HASHED_COLUMNS]
