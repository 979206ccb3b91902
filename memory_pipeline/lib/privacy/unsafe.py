"""Entries that must never reach the agent as memory: text that tries to steer it (ignore or
override its instructions, change who it is, hide things from the user), to send data off the
machine (to a URL, through curl or wget with a secret, the whole conversation), to reach
credentials (SSH keys, `.env` files, Hermes' own secrets and config), or that hides characters
(zero-width, bidirectional controls). Hermes keeps such an entry out of its own prompt; the
pipeline keeps its fact away from every surface the agent has.

Like the privacy detectors it names only the kinds that fired, never the text. It reads the
folded text (`folding.py`), so full-width letters, look-alikes and invisible characters between
letters cannot slip past; every pattern runs on RE2, in time linear in the text, all of them in
one pass (a re-tag judges every fact of a store). Hermes' own
threat scan (`scan_for_threats`, strict scope) is its floor: what Hermes blocks this withholds,
on a labelled corpus the tests run both over; so no pattern here asks for a word boundary where
Hermes' does not (`__ignore…`, `the users`, `.env_production`).
"""

from __future__ import annotations

import functools

import re2

from memory_pipeline.lib.privacy.folding import Folded, folded

# RE2 spellings of Python's Unicode `\w` and `\s` (Hermes' patterns are Python's): a letter or
# number of any script or `_`; any Unicode white space.
_W = r"[\pL\pN_]"
_S = r"[\s\x{0b}\pZ\x{1c}-\x{1f}\x{85}]"
_LINE = r"[^\n]*"  # the rest of a line (Hermes bounds it for its backtracking engine; RE2 needs no bound)
# A few words of filler between an attack's key words ("ignore all of the previous instructions").
_GAP = rf"(?:[\pL\pN_'’-]+{_S}+){{0,8}}"

_KINDS: dict[str, tuple[str, ...]] = {
    "override": (
        rf"(?:ignore|forget|disregard|override|bypass){_S}+{_GAP}(?:previous|prior|above|earlier|all|any|your|the){_S}+{_GAP}"
        r"(?:instructions?|rules|guidelines|directives|prompts?)",
        rf"system{_S}+prompt{_S}+override",
        rf"act{_S}+as{_S}+(?:if|though){_S}+{_GAP}(?:you{_S}+)?{_GAP}(?:have{_S}+no|don'?t{_S}+have|without){_S}+{_GAP}"
        r"(?:restrictions|limits|rules)",
        rf"(?:respond|answer|reply){_S}+without{_S}+{_GAP}(?:restrictions|limitations|filters|safety)",
        rf"do{_S}+not{_S}+{_GAP}tell{_S}+{_GAP}the{_S}+user",
        rf"you{_S}+are{_S}+{_GAP}now{_S}+(?:a|an|the){_S}",
        rf"pretend{_S}+{_GAP}(?:you{_S}+are|to{_S}+be){_S}",
        rf"(?:output|print|reveal|show){_S}+{_GAP}(?:system|initial|hidden){_S}+prompt",
        rf"you{_S}+have{_S}+been{_S}+{_GAP}(?:updated|upgraded|patched){_S}+to",
        rf"\bname{_S}+yourself{_S}+{_W}",
        r"<!--[^>]*(?:ignore|override|system|secret|hidden)[^>]*-->",
        rf"<{_S}*div{_S}+style{_S}*={_S}*[\"'][^>]*display{_S}*:{_S}*none",
        rf"translate{_S}+{_LINE}{_S}into{_S}+{_LINE}{_S}and{_S}+(?:execute|run|eval)",
        # The same in Chinese, as users write their memory: ignore the instructions above, do not
        # tell the user, you are now…, and a forged role turn that gives an order.
        r"(?:忽略|无视|忘记|忘掉|不要理会|不要遵守|绕过|覆盖)[^。\n]{0,12}(?:之前|以上|上面|先前|前面|所有|全部|你的|原有)[^。\n]{0,8}"
        r"(?:指令|指示|规则|提示词?|设定|要求|约束)",
        r"(?:不要|别|切勿|不许)(?:告诉|告知|透露给|让)用户",
        r"你现在(?:是|扮演|变成|成为)(?:一个|一名|新的)",
        rf"(?:system|assistant|developer|系统){_S}*[:：]{_LINE}(?:你|you){_S}*(?:现在)?{_S}*(?:必须|务必|一定要|must|shall)",
        # In the other languages a model reads as plainly (accents are off in the skeleton, and
        # Japanese kanji are in their simplified forms: 無視 reads 无视).
        rf"(?:ignore[rz]?|oublie[rz]?){_S}+(?:toutes{_S}+)?(?:les|tes|vos){_S}+(?:{_W}+{_S}+)?(?:instructions|consignes|regles)",
        rf"(?:ignoriere|vergiss|missachte)n?{_S}+{_GAP}(?:anweisungen|instruktionen|regeln|vorgaben)",
        rf"(?:ignora|olvida|esquece)r?{_S}+{_GAP}(?:instrucciones|instrucoes|reglas|regras)",
        r"(?:以前|これまで|今まで|前|上记|先)の(?:指示|命令|指令|ルール|设定)[^。\n]{0,10}无视",
        r"(?:이전|앞의|기존|위의)[^.\n]{0,6}(?:지시|명령|지침|규칙)[^.\n]{0,10}무시",
        # A persona with no rules, and an encoded order to decode and obey.
        rf"\bdo{_S}+anything{_S}+now\b|\bact{_S}+as{_S}+dan\b",
        rf"\ban?{_S}+(?:ai|assistant|chatbot){_S}+(?:without|with{_S}+no){_S}+(?:any{_S}+)?(?:restrictions|limits|limitations|filters|guardrails|rules)",
        rf"decode{_S}+{_GAP}(?:base64|hex|rot13|encoded){_LINE}(?:follow|execute|obey|run{_S}+it)",
    ),
    "exfiltration": (
        rf"(?:send|post|upload|transmit|forward|exfiltrate){_S}+{_LINE}{_S}(?:to|at){_S}+(?:https?|ftp)://",
        rf"(?:curl|wget){_S}+{_LINE}\$\{{?{_W}*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API)",
        rf"(?:include|output|print|share|dump|leak){_S}+{_GAP}"
        rf"(?:conversation|chat{_S}+history|previous{_S}+messages|full{_S}+context|entire{_S}+context)",
        rf"register{_S}+(?:as{_S}+)?a?{_S}*node|(?:heartbeat|beacon|check(?:{_S}|-)?in){_S}+(?:to|with){_S}",
        rf"pull{_S}+(?:down{_S}+)?(?:new{_S}+)?task(?:ing|s)?\b",
        rf"connect{_S}+to{_S}+the{_S}+network\b|you{_S}+must{_S}+(?:{_W}+{_S}+){{0,3}}(?:register|connect|report|beacon)\b",
        rf"\bc2{_S}+(?:server|channel|infrastructure|beacon)\b|\bcommand{_S}+and{_S}+control\b",
        rf"\b(?:cobalt{_S}*strike|sliver|havoc|mythic|metasploit|brainworm)\b",
        rf"only{_S}+use{_S}+one(?:{_S}|-)?liners?\b",
        rf"never{_S}+{_GAP}(?:create|write){_S}+{_GAP}(?:script|file){_S}+{_GAP}disk",
        rf"unset{_S}+{_W}*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)",
    ),
    "credentials": (
        # Hermes' own: a backdoor key list, the user's .ssh directory. A key file named is no
        # credential (`SSH: id_ed25519_hermes`, a key's place on a volume); a command reading one is.
        r"authorized_keys|(?:\$HOME|~|\$\{HOME\})/\.ssh",
        rf"\b(?:cat|less|more|head|tail|scp|base64|xxd|type){_S}+{_LINE}(?:\.ssh/|id_(?:rsa|dsa|ecdsa|ed25519)\b)",
        r"(?:\$HOME|~|\$\{HOME\})/\.hermes/\.env",
        rf"cat{_S}+{_LINE}(?:\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)",
        rf"(?:update|modify|edit|write|change|append|add{_S}+to){_S}+{_LINE}"
        r"(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules|\.hermes/(?:config\.yaml|SOUL\.md))",
        # A typographic quote reads as two straight ones in the skeleton (`“` is `''`).
        rf"(?:api[_-]?key|token|secret|password){_S}*[=:]{_S}*[\"']{{1,2}}[A-Za-z0-9+/=_-]{{20,}}",
    ),
}


@functools.cache
def _compiled() -> tuple[re2.Set, tuple[str, ...]]:
    """Every pattern in one RE2 set, and the kind of each, in the set's order (compiled on the
    first scan: a command that judges nothing never pays for it)."""
    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = 64 << 20  # the filler's repetitions over Unicode classes make a large program
    patterns = re2.Set.SearchSet(options)
    kinds = []
    for kind, expressions in _KINDS.items():
        for expression in expressions:
            patterns.Add(expression)
            kinds.append(kind)
    patterns.Compile()
    return patterns, tuple(kinds)


def unsafe_kinds(text: str | Folded) -> list[str]:
    """The kinds of steering, exfiltration, credential access or hidden characters in a text
    (`override`, `exfiltration`, `credentials`, `hidden_characters`), folded here unless it is
    already; empty when none. The whole text is read, however long: RE2 runs in time linear in it,
    so no part of a fact is served unread."""
    text = text if isinstance(text, Folded) else folded(text)
    kinds = ["hidden_characters"] if text.hidden else []
    patterns, kind_of = _compiled()
    found = {kind_of[i] for i in patterns.Match(text.caseless_utf8) or ()}
    return kinds + [kind for kind in _KINDS if kind in found]
