"""The search grammar every surface shares (the command line, the MCP server, the Hermes plugin):
words in any order, each a case-insensitive substring of the fact, all of them required; a quoted
phrase is one word, spaces and all. A query that is a pointer a compacted entry holds
(`fact_store#14`) names its facts. A word is two characters or more, or one Chinese, Japanese or
Korean character (a word of its own there); a lone letter or digit beside other words is left out.
Standard library only: the Hermes plugin runs this file beside `fact_search.py`."""

from __future__ import annotations

import re

# Joins the characters of the `pairs` column: every character pair is then a trigram of its own.
PAIR_SEPARATOR = "\x1f"
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK}]")
CJK_RUN = re.compile(f"[{_CJK}]{{2,}}")
_WORD = re.compile(r'"([^"]*)"|(\S+)')
TOO_SHORT = "a search needs a word of at least 2 characters, or one Chinese, Japanese or Korean character"


# Every query the agent can send is bounded, so that no call can hold up another: its length, its
# words, the ids it names; a message the hook reads is looked at up to `MESSAGE_CHARS`.
QUERY_CHARS, QUERY_WORDS, QUERY_IDS, MESSAGE_CHARS = 1_000, 16, 100, 4_000
TOO_LONG = f"a search is at most {QUERY_CHARS} characters and {QUERY_WORDS} words, a lookup at most {QUERY_IDS} ids"


class SearchError(ValueError):
    """A query the index cannot answer (no word long enough, or too long)."""


def bounded(query: str) -> str:
    """The query, or `SearchError` when it is longer than any search needs."""
    if len(query) > QUERY_CHARS:
        raise SearchError(TOO_LONG)
    return query


# What a CJK input method types in full-width mode (`ｓｔａｇｉｎｇ`, `１８：００`, U+3000), read as the
# plain characters memory files hold; nothing else is folded (`①` stays what it is).
_HALF_WIDTH = {**{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}, 0x3000: 0x20}
# A control character (NUL and the rest of C0, DEL) separates words: no fact's word holds one, and
# a NUL would end the index's query string inside a phrase.
_CONTROLS = {code: 0x20 for code in [*range(0x20), 0x7F]}


def query_words(query: str) -> list[str]:
    """The words of a query, in order, each once: quoted phrases whole, the rest split on white
    space; `SearchError` when none is a word the index can answer, or there are too many."""
    words: dict[str, str] = {}  # lower-cased -> as written: each word once, in linear time
    for quoted, bare in _WORD.findall(bounded(query).translate(_HALF_WIDTH).translate(_CONTROLS)):
        word = (quoted if quoted else bare.strip('"')).strip()
        if word:
            words.setdefault(word.lower(), word)
    usable = [w for w in words.values() if len(w) >= 2 or CJK_CHAR.fullmatch(w)]
    if not usable:
        raise SearchError(TOO_SHORT)
    if len(usable) > QUERY_WORDS:
        raise SearchError(TOO_LONG)
    return usable


_POINTER = re.compile(r"\s*(?:→\s*)?fact_store#(\d+(?:/\d+)*)\s*")


def pointed_ids(query: str) -> list[int] | None:
    """The fact ids of a query that is a compacted entry's pointer (`fact_store#14`, `fact_store#3/9`):
    the surfaces follow it to those facts; None for any other query."""
    match = _POINTER.fullmatch(bounded(query))
    if match is None:
        return None
    ids = match.group(1).split("/")
    if len(ids) > QUERY_IDS:
        raise SearchError(TOO_LONG)
    return [int(n) for n in ids]


def pair_text(text: str) -> str:
    return PAIR_SEPARATOR.join(text.lower()) + PAIR_SEPARATOR


def phrase(column: str, text: str) -> str:
    """One FTS5 phrase for the column: a substring in `content`, a character pair in `pairs`."""
    if column == "pairs":
        text = (text[0] + PAIR_SEPARATOR + text[1]).lower()
    return '"' + text.replace('"', '""') + '"'


def match_expression(words: list[str]) -> str | None:
    """The FTS5 query holding every word of two characters or more (None when there is none): a
    trigram phrase of three or more, a character pair of two."""
    parts = [f"{{{column}}} : {phrase(column, w)}" for w in words if len(w) >= 2 for column in ["pairs" if len(w) == 2 else "content"]]
    return " AND ".join(parts) or None


def single_characters(words: list[str]) -> list[str]:
    """The one-character words, which no trigram holds: checked in each matching text instead."""
    return [w for w in words if len(w) == 1]


# What a message names, for the hook: its names, products, places and numbers, never its common
# words. Latin-script words outside this list (or holding a digit), and the character pairs of its
# Chinese, Japanese and Korean runs outside the common ones below (a pair of hiragana alone is
# grammar). The index then says which of them any fact holds, and how rare each is.
_LATIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+#@-]*[A-Za-z0-9]")
_HIRAGANA = re.compile("[\u3040-\u309f]{2}")
_PARTICLE = re.compile("[的了吗呢吧]")  # a Chinese pair holding a particle straddles words (`秋天的诗`: `天的`)
COMMON_LATIN = frozenset(
    """a about after again all also am an and any are as ask at be been before being both but by can could
    did do does doing done for from get gets give go going got had has have having he her here him his how
    i if in into is it its just know let like make me more most my need no not now of off on one only or our
    out over please put really run see set she should show so some tell than thank thanks that the their them
    then there these they this those to today tomorrow too try two up us use used using want was way we were
    what when where which while who why will with would yes yesterday you your next last new old open file
    files find help check look write say said does doesn't what's where's when's how's it's i'm don't can't
    time times day week month year thing things stuff fine good well great sure ok okay hi hello hey name
    many much very every each other another best better nice love""".split()
)
COMMON_PAIRS = frozenset(
    """一下 一个 一些 一点 一首 一段 一句 什么 怎么 怎样 为什 哪个 哪些 哪里 多少 多久 几点 几台 几个 时候 是不 不是 可以
    需要 应该 能不 我们 你们 他们 这个 那个 这些 那些 这样 那样 现在 今天 明天 昨天 最近 帮我 给我 告诉 联系 打开 文件
    看看 知道 问题 情况 东西 事情 关于 以及 还是 或者 因为 所以 如果 但是 然后 已经 没有 还有 就是 一样 其他 之前 之后
    时间 地方 内容 方式 方法 要求 记得 提醒 翻译 总结 上面 下面 对话 你好 谢谢 麻烦 请问 如何 负责 是多 是什 叫什 在哪
    用什 为何 怎么 么样 写一 一首 这段 能帮 帮忙 看一 解释 推荐 介绍
    何で 何時 何か 今日 明日 天気 教え 下さ
    에서 으로 에게 해요 해주 주세 세요 니다 습니 합니 있어 있나 나요 어떻 떻게 뭐예 예요 언제 어디 인가 까요 할까 안녕 하세
    기분 오늘 내일 점심 먹을 을까 어때 때요 받아 아요 이에 """.split()
)


# A Latin word or number a message names stands in a fact as a word of its own (its plural and its
# -ed, -ing, -er and -ment forms too), never inside another: `sea` is not in `research`, nor `tie` in
# `entities`, nor `17` in `2017` or in `172.17.0.4`. A letter of another script (CJK) next to it is
# a boundary.
_AROUND = "0-9a-z\u00c0-\u024f"
_WORD_FORMS = "(?:s|es|d|ed|ing|er|ers|ment|ments|'s)?"
_HELD: dict[str, re.Pattern[str]] = {}


def holds(content: str, term: str) -> bool:
    """Whether a fact's lower-cased `content` holds a message term as the message named it."""
    if not _LATIN_WORD.fullmatch(term):
        return term in content  # a character pair: CJK words run together, any place is one
    pattern = _HELD.get(term)
    if pattern is None:
        pattern = _HELD[term] = re.compile(f"(?<![{_AROUND}])(?<!\\d[.:,]){re.escape(term)}{_WORD_FORMS}(?![{_AROUND}])(?![.:,]\\d)")
    return pattern.search(content) is not None


def message_terms(message: str) -> list[str]:
    """The words and character pairs a message may name a fact by, lower-cased, in order, each once
    (of its first `MESSAGE_CHARS` characters: a pasted file names nothing more to the hook)."""
    message = message[:MESSAGE_CHARS].translate(_HALF_WIDTH)  # full-width typing read as plain
    terms = [w.lower() for w in _LATIN_WORD.findall(message) if w.lower() not in COMMON_LATIN or any(c.isdigit() for c in w)]
    for run in CJK_RUN.findall(message):
        for i in range(len(run) - 1):
            pair = run[i : i + 2].lower()
            if pair not in COMMON_PAIRS and not _HIRAGANA.fullmatch(pair) and not _PARTICLE.search(pair):
                terms.append(pair)
    return list(dict.fromkeys(terms))
