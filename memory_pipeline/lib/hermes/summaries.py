"""An entry's title and its summary, in the entry's own words: what compaction writes in front of
a `fact_store#N` pointer.

The title is the entry's label (`**Title**:`, `Title:`), else its first words up to a clause's
end. The summary is a contiguous run of what follows, from its start to a sentence's or clause's
end: never cut inside brackets, a code span, a URL, a number or a token (`fetch(undici)`,
`v2.1`, `22:00`), never ending on a condition whose action it would drop ("when X, do Y"), never
clauses stitched from different places. What it leaves out stays in the fact the pointer names,
and is listed by value.
"""

from __future__ import annotations

import re

from memory_pipeline.lib.hermes.memory_files import title_entity

_TITLE_PREFIX = re.compile(r"^(?:\*\*.+?\*\*|[^\s:：*`][^:：\n`]{0,40}?)\s*[:：]\s*")
# A title taken from an entry's first words ends before a clause's punctuation (ASCII or CJK) or an
# opening bracket, else at white space.
_CLAUSE_END = re.compile(r"[，、。．；：！？（(【\[「『《〈]|[.,;:!?](?=\s|$)")  # an ASCII stop only before white space (`v2.1`, `22:00`)
_BRACKETS = {"（": "）", "(": ")", "【": "】", "[": "]", "「": "」", "『": "』", "《": "》", "〈": "〉", "“": "”"}
_HEADING = re.compile(r"^#{1,6}\s+(.+)$|^\*\*([^*]+)\*\*$")  # `## name` or `**name**`, alone on the entry's first line
_TOKEN = re.compile(r"[A-Za-z0-9_.\-/@+]*")  # the rest of a Latin word or token a title limit falls inside
_TITLE_CHARS = 24
_FIRST_WORDS = 60  # a summary of a body with no clause to end at: its first words, about this long
_LONGEST_CLAUSE_TITLE = 40
_STRIP_AFTER_TITLE = " ，,、。．；;：:-—.!?"
MORE = "…"  # ends a summary that stops before its entry does

# What an entry holds that the agent needs without a lookup: code spans, URLs, paths, addresses,
# key=value pairs, numbers (times, dates, amounts, percentages) and codes holding a digit, `-` or `_`.
VALUE = re.compile(
    r"`[^`]+`|https?://[\x21-\x7e]+|(?<!\w)~?/[A-Za-z0-9_.<>+-][A-Za-z0-9_./<>+-]*|[\w.+-]+@[\w-]+\.[\w.-]+|[A-Za-z_][\w.-]*=[\w.-]+"
    r"|[A-Za-z]*\d[\w.:/%+-]*|[A-Za-z]+[-_][A-Za-z0-9_-]+|[\w.-]+\.(?:ya?ml|json|toml|md|py|sh|txt|conf|db)\b"
)
# Where a sentence ends, and where a clause does (a list's `、` is neither). ASCII punctuation
# counts only before white space or the end, so `1.5`, `v2.1`, `a,b` and `?token=X` are never cut.
_SENTENCE_END = re.compile(r"[。！？；]|[.!?;](?=\s|$)")
_CLAUSE_SEP = re.compile(r"，|,(?=\s|$|[^\x00-\x7f])")  # never a colon: what it introduces would be dropped
# A clause that opens with these is a condition: a summary never ends right after it.
_CONDITION = re.compile(r"^\s*(?:if|when|whenever|unless|once|before|after|while|如果|若|当|只要|除非|一旦|每当|遇到|凡是)", re.IGNORECASE)


# An entry that tells the agent how to behave: a rule, a prohibition, a workflow.
_RULE = re.compile(
    r"\b(?:must|never|always|do not|don't|should|shall|required|forbidden|prohibited|rules?|law|policy|workflow|sop)\b"
    r"|必须|不要|不许|严禁|禁止|务必|总是|永远|一律|规则|规范|流程|铁律|不得|切勿|先.{1,12}再",
    re.IGNORECASE,
)


def is_rule(text: str) -> bool:
    """Whether an entry tells the agent how to behave (compacted last, and never below its first sentence)."""
    return _RULE.search(text) is not None


def title_and_body(text: str) -> tuple[str, str]:
    """(title, body): the entry's own title and what follows it, else its first words and the
    rest, so a summary of the body never repeats the title."""
    stripped = text.strip()
    if title := title_entity(stripped):
        return title, _TITLE_PREFIX.sub("", stripped, count=1)
    first_line, _, rest = stripped.partition("\n")
    heading = _HEADING.match(first_line.strip())
    if rest.strip() and heading and len(name := (heading.group(1) or heading.group(2)).strip()) <= _LONGEST_CLAUSE_TITLE:
        return name, " ".join(rest.split())
    flat = " ".join(stripped.split())
    title = _first_words(" ".join(first_line.split()))
    return title.replace("**", ""), flat[len(title) :].lstrip(_STRIP_AFTER_TITLE)


def _first_words(line: str, limit: int = _TITLE_CHARS) -> str:
    """The line's first clause when it is short, else its first words within `limit` characters,
    with every bracket it opens closed (text with no boundary at all is cut at the limit)."""
    clause = _CLAUSE_END.search(line, 1)
    spaces = [m.start() for m in re.finditer(r"\s", line[: limit + 1])]
    if clause and clause.start() <= limit:
        title = line[: clause.start()]
    elif len(line) <= limit:
        title = line
    elif clause and clause.start() <= _LONGEST_CLAUSE_TITLE:  # a whole clause before words cut mid-phrase
        title = line[: clause.start()]
    elif spaces and spaces[-1] >= limit // 3:
        title = line[: spaces[-1]]
    elif line[limit - 1].isascii() and line[limit - 1].isalnum() and (end := _token_end(line, limit)) <= _FIRST_WORDS:
        title = line[:end]  # a name or identifier is never cut in two
    else:
        title = line[:limit]
    while (opened := _unclosed(title)) is not None:
        title = title[:opened]
    return title.rstrip(_STRIP_AFTER_TITLE) or line[:limit]


def _token_end(line: str, at: int) -> int:
    """Where the Latin word or token running through `at` ends."""
    found = _TOKEN.match(line, at)
    return found.end() if found else at


def _unclosed(text: str) -> int | None:
    """The position of the first bracket left open in `text`, if any."""
    stack: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if ch in _BRACKETS:
            stack.append((i, _BRACKETS[ch]))
        elif stack and ch == stack[-1][1]:
            stack.pop()
    return stack[0][0] if stack else None


def values(text: str) -> list[str]:
    """The values of a text, in order: what a summary that leaves them out names."""
    return [m.group(0).rstrip(".,;:") for m in VALUE.finditer(text)]


def _protected(body: str) -> list[bool]:
    """Per character: inside brackets, a code span, or a value (a URL, a number, a token)."""
    inside = [False] * (len(body) + 1)
    depth, code, quoted = 0, False, False
    for i, ch in enumerate(body):
        if ch == "`":
            code = not code
        elif ch == '"' and not code:  # a quotation is never cut inside: it is a phrase
            depth += 1 if depth == 0 or not quoted else -1
            quoted = depth > 0
        elif ch in _BRACKETS:
            depth += 1
        elif depth and ch in _BRACKETS.values():
            depth -= 1
        inside[i] = depth > 0 or code
    for match in VALUE.finditer(body):
        for i in range(match.start(), match.end() - 1):  # its last character may end a clause
            inside[i] = True
    return inside


def cut_points(body: str) -> list[tuple[int, bool]]:
    """Where a summary of `body` may end: (end, whether a sentence ends there), in order."""
    protected = _protected(body)
    ends: dict[int, bool] = {}
    for pattern, sentence in ((_SENTENCE_END, True), (_CLAUSE_SEP, False)):
        for match in pattern.finditer(body):
            if not protected[match.start()]:
                ends[match.end()] = ends.get(match.end(), False) or sentence
    points, start = [], 0
    for end in sorted(ends):
        clause = body[start:end]
        if not _CONDITION.match(clause) or ends[end]:  # a condition alone never ends a summary
            points.append((end, ends[end]))
        start = end
    return points


def summaries(body: str) -> list[str]:
    """Every summary `body` allows, longest first, down to its first clause: each a run of its
    first words ending at a cut point (and `…` when something follows). A body with no cut point
    gives its first words, to a word's end where it has spaces. Never the empty summary: an entry
    compacted to its label alone is an entry the agent no longer reads."""
    body = " ".join(body.split())
    found = []
    for end, _ in cut_points(body):
        run = body[:end].rstrip("，,、；;：:。.！!？? ")
        if run and len(run) < len(body.rstrip("。.!！?？；; ")):
            found.append(run + MORE)
    if not found and len(body) > _FIRST_WORDS:
        head = body[:_FIRST_WORDS]
        found.append((head[: head.rfind(" ")] if " " in head[_FIRST_WORDS // 3 :] else head).rstrip(_STRIP_AFTER_TITLE) + MORE)
    return sorted(set(found), key=len, reverse=True)


def one_sentence(body: str, limit: int) -> str:
    """The default summary: the first sentence, `…` marking what follows (the whole body when it
    is one short sentence); when that sentence is longer than `limit`, the longest run of its
    first clauses within it; none when not even one clause fits."""
    body = " ".join(body.split())
    points = cut_points(body)
    first_sentence = next((end for end, sentence in points if sentence and end < len(body.rstrip())), None)
    if first_sentence is None and len(body) <= limit:
        return body
    every = summaries(body)
    fitting = [s for s in every if len(s) <= limit and len(s) - len(MORE) <= (first_sentence or len(body))]
    return fitting[0] if fitting else (every[-1] if every else body)  # at the least its first clause, never nothing


def left_out(text: str, summary: str) -> tuple[str, ...]:
    """The values of the entry its summary does not hold: from now on only the fact keeps them."""
    return tuple(dict.fromkeys(v for v in values(text) if v not in summary))


def lines_left_out(text: str, summary: str) -> tuple[int, ...]:
    """The entry's lines (1-based, after its first) of which the summary keeps nothing: from then
    on only the fact store holds them."""
    lines = [line.strip() for line in text.strip().split("\n")]
    return tuple(n for n, line in enumerate(lines[1:], start=2) if line and line[:12] not in summary)


def pointer_entry(title: str, fact_ids: tuple[int, ...], summary: str) -> str:
    return f"**{title} (→ fact_store#{'/'.join(map(str, fact_ids))})**" + (f": {summary}" if summary else ":")


# What a model's summary may name: numbers, identifiers (a digit, a capital, `_`, `.`, `-` or `/`
# inside a word) and values. Each must stand in the entry as written.
_NAMED = re.compile(r"[A-Za-z0-9][\w.\-/:]*[A-Za-z0-9]|\d")


def accepted(offered: str, entry: str, rules: str) -> bool:
    """A model's one-line summary, taken only when it is shorter than the rules' and names
    nothing the entry does not: every number, identifier and name in it stands in the entry."""
    offered = " ".join(offered.split())
    if not offered or "\n" in offered or len(offered) >= len(rules or entry):
        return False
    words = [m.group(0) for m in _NAMED.finditer(offered)]
    exact = [w for w in words if any(c.isdigit() or c in "_.-/:" for c in w)] + values(offered)
    names = [w for w in words if any(c.isupper() for c in w)]  # a capital: a name, though maybe only a sentence's start
    return all(w in entry for w in exact) and all(w.lower() in entry.lower() for w in names)
