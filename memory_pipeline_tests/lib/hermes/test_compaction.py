"""Compaction's proposals, on files shaped like real over-cap memory files: each file reaches its
target, each summary is a contiguous run of its entry's first words (never stitched, never cut
inside brackets, a code span, a URL, a number or a token, never a condition without its action),
and the values a summary leaves out are listed for the fact that keeps them."""

import re

import pytest

from memory_pipeline.lib.hermes.compaction import fewest_chars, propose
from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.memory_files import ENTRY_DELIMITER, SourceReading, parse_entries
from memory_pipeline.lib.hermes.profiles import get_profile, read_profile
from memory_pipeline.lib.hermes.summaries import MORE, accepted, lines_left_out, one_sentence, pointer_entry, summaries, title_and_body
from memory_pipeline_tests.support.overcap_files import FILES

LIMITS = {"chinese": 900, "english": 1900, "mixed": 950}  # each file 115–125% of its cap


def _reading(tmp_path, entries: list[str], limit: int) -> SourceReading:
    path = tmp_path / "MEMORY.md"
    path.write_text(ENTRY_DELIMITER.join(entries), encoding="utf-8")
    return SourceReading("memory", path, limit, True, parse_entries(path.read_text(encoding="utf-8")))


def _synced(entries: list[str]) -> dict:
    return {("memory", short_hash(entry_sha256(text))): [100 + i] for i, text in enumerate(entries)}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_real_shaped_file_reaches_its_target_with_summaries_in_the_entrys_own_words(tmp_path, name):
    entries = FILES[name]
    reading = _reading(tmp_path, entries, LIMITS[name])
    assert reading.chars > 1.1 * reading.limit
    proposal = propose(reading, b"", _synced(entries), target=0.80)
    assert proposal.fits and proposal.chars_after <= 0.85 * reading.limit
    assert proposal.chars_after >= 0.70 * reading.limit  # reached by shortening, not by emptying the file
    for rewrite in proposal.rewrites:
        flat = " ".join(rewrite.before.split())
        title, body = title_and_body(rewrite.before)
        assert rewrite.after == pointer_entry(title, (100 + rewrite.position,), rewrite.summary)
        run = rewrite.summary.removesuffix(MORE)
        assert " ".join(body.split()).startswith(run), (rewrite.before, rewrite.summary)  # contiguous, from the start
        assert run in flat
        # Never cut inside brackets or a code span, and every value left out is named.
        for opening, closing in ("()", "（）", "``"):
            assert run.count(opening) == run.count(closing) if opening != closing else run.count("`") % 2 == 0
        assert all(v in rewrite.before and v not in run for v in rewrite.kept_in_store)


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        # A token, a port and a query string are never cut; the rest is named as kept in the fact.
        ("**代理**: 代理:7890, API随机端口(查config.yaml), 认证?token=X", "代理:7890, API随机端口(查config.yaml), 认证?token=X"),
        (
            "**HTTP client**: use fetch(undici) with a 30s timeout and retry 3 times with backoff. Log failures.",
            "use fetch(undici) with a 30s timeout and retry 3 times with backoff…",
        ),
        # A rule keeps its action with its condition.
        (
            "**Deploy rule**: when the CI is red, never deploy; ask in #ops and wait for the fix to merge first, then release.",
            "when the CI is red, never deploy…",
        ),
        # Numbered points: the first ones, whole, and a mark that more follows.
        (
            "**记忆分层**：①计划型：提前写好的规则和清单，放在 MEMORY.md；"
            "②涌现型：对话中发现的偏好，先记在 USER.md，稳定后再合并到长期记忆里面去。",
            "①计划型：提前写好的规则和清单，放在 MEMORY.md…",
        ),
    ],
)
def test_a_summary_is_the_entrys_first_words_to_a_boundary(text, summary):
    title, body = title_and_body(text)
    assert one_sentence(body, 80) == summary


def test_the_lines_a_summary_leaves_out_are_named():
    text = "**备份策略**：每晚两点全量备份。\n异地副本保存在杭州机房\n每月演练一次恢复"
    title, body = title_and_body(text)
    summary = one_sentence(body, 10)
    assert summary == "每晚两点全量备份…"
    assert lines_left_out(text, summary) == (2, 3)


def test_a_file_too_full_for_its_target_keeps_a_summary_in_every_entry_and_each_rules_instruction(tmp_path):
    """No entry is cut to its label alone (an entry the agent no longer reads): each keeps at least
    its first clause, and an entry that tells the agent how to behave keeps its first sentence."""
    from memory_pipeline.lib.hermes.compaction import SUMMARY_CHARS
    from memory_pipeline.lib.hermes.summaries import is_rule

    entries = FILES["english"]
    reading = _reading(tmp_path, entries, 400)  # fifteen entries cannot fit 80% of 400 even as pointers
    proposal = propose(reading, b"", _synced(entries), target=0.80)
    assert not proposal.fits and len(proposal.rewrites) == len(entries)
    assert all(r.summary and re.fullmatch(r"\*\*.+ \(→ fact_store#\d+\)\*\*: .+", r.after) for r in proposal.rewrites)
    rules = [r for r in proposal.rewrites if is_rule(r.before)]
    assert rules and all(r.summary == one_sentence(title_and_body(r.before)[1], SUMMARY_CHARS) for r in rules)


@pytest.mark.parametrize(
    ("offered", "taken"),
    [
        ("Use fetch(undici), 30s timeout, 3 retries.", True),
        ("Use axios with a 60s timeout.", False),  # names what the entry does not
        ("Use fetch(undici) with a 30s timeout and retry 3 times with backoff, logging failures.", False),  # not shorter
        ("", False),
    ],
)
def test_a_model_summary_is_taken_only_when_shorter_and_naming_nothing_new(offered, taken):
    entry = "**HTTP client**: use fetch(undici) with a 30s timeout and retry 3 times with backoff. Log failures to ~/logs/http.log."
    rules = "use fetch(undici) with a 30s timeout and retry 3 times with backoff…"
    assert accepted(offered, entry, rules) is taken


def test_no_proposal_goes_below_the_floor(demo_home):
    """`fewest_chars` is a floor: a proposal for the tightest target, every entry synced, still
    leaves at least that many characters."""
    reading = next(r for r in read_profile(get_profile(demo_home, "default")) if r.source == "memory")
    synced = {("memory", short_hash(entry_sha256(text))): [i + 1] for i, text in enumerate(reading.entries)}
    proposal = propose(reading, b"", synced, target=0.0)
    assert proposal.rewrites  # the floor is tested against rewritten entries, not the file as it was
    assert fewest_chars(proposal.before) <= proposal.chars_after < proposal.chars_before


def test_a_title_taken_from_a_sentence_leaves_no_stop_at_the_bodys_start():
    title, body = title_and_body("User trades FTMO/Kraken/Binance. FX+metals+ENERGY same sheet. VERIFY claims vs LIVE price.")
    assert (title, body) == ("User trades FTMO/Kraken/Binance", "FX+metals+ENERGY same sheet. VERIFY claims vs LIVE price.")


@pytest.mark.parametrize(
    ("text", "title", "body_start"),
    [
        # A heading line names the entry; the body starts on the next line, no word cut in two.
        (
            "## rk3588_m50_market_position\n*Saved: 2026-06-01*\n\nThe board targets overseas users first.",
            "rk3588_m50_market_position",
            "*Saved",
        ),
        ("**Scraping rules**\nstop and ask at 2 anti-bot hits.", "Scraping rules", "stop and ask"),
        # Two sentences before a colon are no label: the title is the first clause.
        (
            '任务执行前走"先出契约→用户确认→执行"闭环。但区分两种模式：①计划型→契约最前面出',
            '任务执行前走"先出契约→用户确认→执行"闭环',
            "但区分两种模式",
        ),
        # An identifier longer than a title's usual length is kept whole.
        ("clarify_tool_blocking_bug_in_gateway_mode blocks the agent loop", "clarify_tool_blocking_bug_in_gateway_mode", "blocks"),
    ],
)
def test_a_title_ends_where_a_phrase_does(text, title, body_start):
    found, body = title_and_body(text)
    assert found == title and body.startswith(body_start), (found, body)


def test_a_summary_never_ends_on_a_colon_that_drops_what_it_introduces():
    title, body = title_and_body(
        "**高德MCP**: npm包amap-maps-mcp-server, API Key: 0e0e...b4, 存储: Desktop/keys/amap.txt。静态地图参数名是location。"
    )
    for summary in summaries(body):
        assert not summary.removesuffix(MORE).endswith(("存储", "API Key")), summary


def test_a_file_with_one_long_entry_lands_near_its_target_not_far_below(tmp_path):
    """Room a cut left under the target goes back to the entry: the file lands within 70–80%."""
    long = "**Gateway**: " + "；".join(f"第{i}步检查服务gateway-{i}的状态并记录结果" for i in range(40)) + "。"
    entries = [long, "User prefers short answers.", "**Editor**: neovim with lazy.nvim."]
    reading = _reading(tmp_path, entries, int(reading_chars(entries) / 0.95))
    proposal = propose(reading, b"", _synced(entries), target=0.80)
    assert proposal.fits and 0.70 * reading.limit <= proposal.chars_after <= 0.80 * reading.limit
    assert [r.position for r in proposal.rewrites] == [0]


def reading_chars(entries: list[str]) -> int:
    return len(ENTRY_DELIMITER.join(entries))


def test_a_url_ends_at_the_chinese_punctuation_after_it():
    from memory_pipeline.lib.hermes.summaries import values

    assert values("地址 http://127.0.0.1:11434，温度 0；文档 https://docs.example.org/guide?lang=en。") == [
        "http://127.0.0.1:11434",
        "0",
        "https://docs.example.org/guide?lang=en",
    ]
