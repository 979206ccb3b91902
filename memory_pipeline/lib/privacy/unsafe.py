"""Entries that must never reach the agent as memory: text that tries to steer it (ignore or
override its instructions, change who it is, hide things from the user), to send data off the
machine (to a URL, through curl or wget with a secret, the whole conversation), to reach
credentials (SSH keys, `.env` files, Hermes' own secrets and config), or that hides characters
(zero-width, bidirectional controls). Hermes keeps such an entry out of its own prompt; the
pipeline keeps its fact away from every surface the agent has.

Like the privacy detectors it names only the kinds that fired, never the text. It reads the
folded text (`folding.py`), so full-width letters, look-alikes and invisible characters between
letters cannot slip past; each pattern is bounded, so no text can make a scan slow. Hermes' own
threat scan (`scan_for_threats`, strict scope) is its floor: what Hermes blocks this withholds,
on a labelled corpus the tests run both over; so no pattern here asks for a word boundary where
Hermes' does not (`__ignore…`, `the users`, `.env_production`).
"""

from __future__ import annotations

import re

from memory_pipeline.lib.privacy.folding import Folded, folded

_SCAN_CHARS = 65_536
# A few words of filler between an attack's key words ("ignore all of the previous instructions").
_GAP = r"(?:[\w'’-]+\s+){0,8}"

_KINDS: dict[str, tuple[str, ...]] = {
    "override": (
        rf"(?:ignore|forget|disregard|override|bypass)\s+{_GAP}(?:previous|prior|above|earlier|all|any|your|the)\s+{_GAP}"
        r"(?:instructions?|rules|guidelines|directives|prompts?)",
        r"system\s+prompt\s+override",
        rf"act\s+as\s+(?:if|though)\s+{_GAP}(?:you\s+)?{_GAP}(?:have\s+no|don'?t\s+have|without)\s+{_GAP}(?:restrictions|limits|rules)",
        rf"(?:respond|answer|reply)\s+without\s+{_GAP}(?:restrictions|limitations|filters|safety)",
        rf"do\s+not\s+{_GAP}tell\s+{_GAP}the\s+user",
        rf"you\s+are\s+{_GAP}now\s+(?:a|an|the)\s+",
        rf"pretend\s+{_GAP}(?:you\s+are|to\s+be)\s+",
        rf"(?:output|print|reveal|show)\s+{_GAP}(?:system|initial|hidden)\s+prompt",
        rf"you\s+have\s+been\s+{_GAP}(?:updated|upgraded|patched)\s+to",
        r"\bname\s+yourself\s+\w+",
        r"<!--[^>]{0,512}(?:ignore|override|system|secret|hidden)[^>]{0,512}-->",
        r"<\s*div\s+style\s*=\s*[\"'][^>]{0,2048}display\s*:\s*none",
        r"translate\s+[^\n]{0,512}\sinto\s+[^\n]{0,512}\sand\s+(?:execute|run|eval)",
    ),
    "exfiltration": (
        r"(?:send|post|upload|transmit|forward|exfiltrate)\s+[^\n]{0,2048}?\s(?:to|at)\s+(?:https?|ftp)://",
        r"(?:curl|wget)\s+[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API)",
        rf"(?:include|output|print|share|dump|leak)\s+{_GAP}(?:conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)",
        r"register\s+(?:as\s+)?a?\s*node|(?:heartbeat|beacon|check[\s-]?in)\s+(?:to|with)\s|pull\s+(?:down\s+)?(?:new\s+)?task(?:ing|s)?\b",
        r"connect\s+to\s+the\s+network\b|you\s+must\s+(?:\w+\s+){0,3}(?:register|connect|report|beacon)\b",
        r"\bc2\s+(?:server|channel|infrastructure|beacon)\b|\bcommand\s+and\s+control\b",
        r"\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b",
        r"only\s+use\s+one[\s-]?liners?\b",
        rf"never\s+{_GAP}(?:create|write)\s+{_GAP}(?:script|file)\s+{_GAP}disk",
        r"unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*",
    ),
    "credentials": (
        r"authorized_keys|id_rsa|id_ed25519|(?:\$HOME|~|\$\{HOME\})/\.ssh",
        r"(?:\$HOME|~|\$\{HOME\})/\.hermes/\.env",
        r"cat\s+[^\n]{0,2048}(?:\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)",
        r"(?:update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}"
        r"(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|\.hermes/(?:config\.yaml|SOUL\.md))",
        r"(?:api[_-]?key|token|secret|password)\s*[=:]\s*[\"'][A-Za-z0-9+/=_-]{20,}",
    ),
}
_COMPILED = {kind: re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE) for kind, patterns in _KINDS.items()}


def unsafe_kinds(text: str | Folded) -> list[str]:
    """The kinds of steering, exfiltration, credential access or hidden characters in a text
    (`override`, `exfiltration`, `credentials`, `hidden_characters`), folded here unless it is
    already; empty when none."""
    text = text if isinstance(text, Folded) else folded(text[:_SCAN_CHARS])
    kinds = ["hidden_characters"] if text.hidden else []
    scanned = text.caseless[: 4 * _SCAN_CHARS]  # the fold of the scanned characters, which may be longer
    return kinds + [kind for kind, pattern in _COMPILED.items() if pattern.search(scanned)]
