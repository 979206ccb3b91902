"""A secret-scrubbed copy of an entry is told from another text: Hermes' own scrubber
(`agent.redact.redact_sensitive_text`) makes the copies; edits that mask nothing are not copies."""

import pytest
from agent.redact import redact_sensitive_text

from memory_pipeline.lib.hermes.redaction import is_scrubbed_copy

ENTRIES = [
    "Deploy key for CI: OPENAI_API_KEY=sk-proj-abcdef1234567890abcdef1234 in .env",
    "GitHub token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the bot",
    "The app database is postgres://admin:hunter2secret@db.internal:5432/app",
    "**部署**: 发布用 GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789，每周五晚上",
]


@pytest.mark.parametrize("entry", ENTRIES)
def test_hermes_scrubbed_copies_are_the_entrys(entry):
    copy = redact_sensitive_text(entry, force=True, redact_url_credentials=True)
    assert copy != entry
    assert is_scrubbed_copy(entry, copy)


@pytest.mark.parametrize(
    "entry, other",
    [
        (ENTRIES[1], ENTRIES[1]),  # the same text is an exact mirror, not a scrubbed one
        (ENTRIES[1], "GitHub token ghp_ab...6789 for the deploy bot"),  # a word changed beside the mask
        (ENTRIES[1], "GitHub token ghp_ab...6789"),  # the rest of the entry dropped
        ("Call Anna about the lease", "***"),  # nothing of the entry kept
    ],
)
def test_other_texts_are_not(entry, other):
    assert not is_scrubbed_copy(entry, other)
