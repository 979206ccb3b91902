"""The choices a user makes, one registry for every layer (the CLI's flags, the resources'
config, the plain logic): which extractor, what a removed entry's facts get, what a private fact
gets, which HRR vector dialect is written. Plain enums, no heavy imports, so `--help` stays quick.
"""

from __future__ import annotations

import enum


class ExtractorMode(str, enum.Enum):
    """`auto`: Ollama when it answers and has the model, else rules; `rules`; `ollama`."""

    AUTO = "auto"
    RULES = "rules"
    OLLAMA = "ollama"


class RemovalPolicy(str, enum.Enum):
    """What the facts of an entry removed from the files get: `retire` (kept, tagged `retired`,
    trust below the prefetch threshold, so the agent no longer sees them), `keep` (kept as they
    are) or `delete`."""

    RETIRE = "retire"
    KEEP = "keep"
    DELETE = "delete"


class PrivacyPolicy(str, enum.Enum):
    """What a private fact gets: `tag` (the private-person tag and entity) or `hide` (also trust
    below the prefetch threshold)."""

    TAG = "tag"
    HIDE = "hide"


class VectorFormat(str, enum.Enum):
    """Which HRR dialect the pipeline writes: the store's own (`auto`), or one forced."""

    AUTO = "auto"
    LEGACY = "legacy"
    HRR1 = "hrr1"


class Summarizer(str, enum.Enum):
    """What writes `compact`'s summaries: the entry's own first words (`rules`), or the local
    model offering a shorter one that names nothing the entry does not (`ollama`)."""

    RULES = "rules"
    OLLAMA = "ollama"


# `cap_usage`: the share of a file's cap above which it warns (a profile sets its own in config.yaml).
DEFAULT_CAP_TARGET = 0.85
# `compact` fits a file this far below the warning by default, so the agent's next few additions
# fit without one (80% of the cap for the default target).
COMPACT_MARGIN = 0.05


def compact_target(cap_target: float) -> float:
    """The share of the cap `compact` fits a file into, for a profile's cap target."""
    return round(max(cap_target - COMPACT_MARGIN, cap_target / 2), 2)


def values(choice: type[enum.Enum]) -> tuple[str, ...]:
    """The spellings a user types, in the enum's order (argparse `choices`)."""
    return tuple(member.value for member in choice)


EXTRACTOR_MODES = values(ExtractorMode)
REMOVAL_POLICIES = values(RemovalPolicy)
PRIVACY_POLICIES = values(PrivacyPolicy)


class EmbedderKind(str, enum.Enum):
    """What puts facts into the space recall by meaning searches: the encoder bundled with the
    package (`bundled`, offline everywhere), a local Ollama embedding model (`ollama`), or
    nothing (`off`: recall by letters alone)."""

    BUNDLED = "bundled"
    OLLAMA = "ollama"
    OFF = "off"
