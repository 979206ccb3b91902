"""Entries that must never reach the agent as memory: text that tries to steer it (ignore or
override its instructions, change who it is, hide things from the user), to send data off the
machine (to a URL, through curl or wget with a secret, the whole conversation), to reach
credentials (SSH keys, `.env` files, Hermes' own secrets and config), or that hides characters
(zero-width, bidirectional controls). Hermes keeps such an entry out of its own prompt; the
pipeline keeps its fact away from every surface the agent has.

Like the privacy detectors it names only the kinds that fired, never the text. The text is folded
(NFKC) first, so full-width letters cannot slip past; each pattern is bounded, so no text can
make a scan slow.
"""

from __future__ import annotations

import re
import unicodedata

_SCAN_CHARS = 65_536
# A few words of filler between an attack's key words ("ignore all of the previous instructions").
_GAP = r"(?:[\w'’-]+\s+){0,8}"
_HIDDEN_CHARACTERS = frozenset(
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u180e\u00ad"
)

_KINDS: dict[str, tuple[str, ...]] = {
    "override": (
        rf"\b(?:ignore|forget|disregard|override|bypass)\s+{_GAP}(?:previous|prior|above|earlier|all|any|your|the)\s+{_GAP}"
        r"(?:instructions?|rules|guidelines|directives|prompts?)",
        r"\bsystem\s+prompt\s+override\b",
        rf"\bact\s+as\s+(?:if|though)\s+{_GAP}(?:you\s+)?{_GAP}(?:have\s+no|don'?t\s+have|without)\s+{_GAP}(?:restrictions|limits|rules)",
        rf"\b(?:respond|answer|reply)\s+without\s+{_GAP}(?:restrictions|limitations|filters|safety)",
        rf"\bdo\s+not\s+{_GAP}tell\s+{_GAP}the\s+user\b",
        rf"\byou\s+are\s+{_GAP}now\s+(?:a|an|the)\s+",
        rf"\bpretend\s+{_GAP}(?:you\s+are|to\s+be)\s+",
        rf"\b(?:output|print|reveal|show)\s+{_GAP}(?:system|initial|hidden)\s+prompt",
        rf"\byou\s+have\s+been\s+{_GAP}(?:updated|upgraded|patched)\s+to\b",
        r"\bname\s+yourself\s+\w+",
        r"<!--[^>]{0,512}(?:ignore|override|system|secret|hidden)[^>]{0,512}-->",
        r"<\s*div\s+style\s*=\s*[\"'][^>]{0,2048}display\s*:\s*none",
        r"\btranslate\s+[^\n]{0,512}\binto\s+[^\n]{0,512}\band\s+(?:execute|run|eval)\b",
    ),
    "exfiltration": (
        r"\b(?:send|post|upload|transmit|forward|exfiltrate)\s+[^\n]{0,2048}?\s(?:to|at)\s+(?:https?|ftp)://",
        r"\b(?:curl|wget)\s+[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API)",
        rf"\b(?:include|output|print|share|dump|leak)\s+{_GAP}(?:conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)",
        r"\b(?:register\s+(?:as\s+)?a?\s*node|(?:heartbeat|beacon|check[\s-]?in)\s+(?:to|with)\s|pull\s+(?:down\s+)?(?:new\s+)?task(?:ing|s)?\b)",
        r"\bconnect\s+to\s+the\s+network\b|\byou\s+must\s+(?:\w+\s+){0,3}(?:register|connect|report|beacon)\b",
        r"\bc2\s+(?:server|channel|infrastructure|beacon)\b|\bcommand\s+and\s+control\b",
        r"\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b",
        r"\bonly\s+use\s+one[\s-]?liners?\b",
        rf"\bnever\s+{_GAP}(?:create|write)\s+{_GAP}(?:script|file)\s+{_GAP}disk\b",
        r"\bunset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*",
    ),
    "credentials": (
        r"authorized_keys|id_rsa|id_ed25519|(?:\$HOME|~|\$\{HOME\})/\.ssh\b",
        r"(?:\$HOME|~|\$\{HOME\})/\.hermes/\.env\b",
        r"\bcat\s+[^\n]{0,2048}(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)",
        r"\b(?:update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}"
        r"(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|\.hermes/(?:config\.yaml|SOUL\.md))",
        r"\b(?:api[_-]?key|token|secret|password)\s*[=:]\s*[\"'][A-Za-z0-9+/=_-]{20,}",
    ),
}
_COMPILED = {kind: re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE) for kind, patterns in _KINDS.items()}


def unsafe_kinds(text: str) -> list[str]:
    """The kinds of steering, exfiltration, credential access or hidden characters in a text
    (`override`, `exfiltration`, `credentials`, `hidden_characters`); empty when none."""
    text = text[:_SCAN_CHARS]
    kinds = ["hidden_characters"] if not _HIDDEN_CHARACTERS.isdisjoint(text) else []
    folded = unicodedata.normalize("NFKC", text)
    return kinds + [kind for kind, pattern in _COMPILED.items() if pattern.search(folded)]
