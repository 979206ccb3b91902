"""Compaction's proposals read well: a title is cut only at a word or clause boundary with its
brackets closed, the summary does not repeat it, and the lines of an entry the summary leaves out
are named."""

import pytest

from memory_pipeline.lib.hermes.compaction import fewest_chars, lines_left_out, pointer_entry, propose, shorten, title_and_body
from memory_pipeline.lib.hermes.hashing import entry_sha256, short_hash
from memory_pipeline.lib.hermes.profiles import get_profile, read_profile


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Polanyi命名框架法则（2026-04-07）给每个新概念起名前先查已有术语并记录出处", "Polanyi命名框架法则"),
        ("**机房巡检**：每周三凌晨检查曙光机柜的温湿度传感器", "机房巡检"),
        ("Deploy checklist for the staging cluster before every Friday release", "Deploy checklist for the"),
        ("部署流程，先在测试环境验证再发布到生产环境并通知值班同事确认", "部署流程"),
        ("Short note", "Short note"),
        ("Upgrade to v2.1 at 22:00 tonight, then restart the workers", "Upgrade to v2.1 at 22:00"),
    ],
)
def test_a_title_ends_at_a_boundary_with_its_brackets_closed(text, title):
    got, body = title_and_body(text)
    assert got == title
    assert got.count("（") == got.count("）") and got.count("(") == got.count(")")
    assert not shorten(body).startswith(title)  # the summary goes on from the title


def test_a_summary_does_not_repeat_the_title():
    text = "部署流程，先在测试环境验证再发布到生产环境。然后通知值班同事确认。"
    title, body = title_and_body(text)
    summary = shorten(body)
    assert (title, summary) == ("部署流程", "先在测试环境验证再发布到生产环境。")
    assert pointer_entry(title, (7,), summary) == "**部署流程 (→ fact_store#7)**: 先在测试环境验证再发布到生产环境。"


def test_the_lines_a_summary_leaves_out_are_named():
    text = "**备份策略**：每晚两点全量备份。\n异地副本保存在杭州机房\n每月演练一次恢复"
    title, body = title_and_body(text)
    summary = shorten(body)
    assert summary == "每晚两点全量备份。"
    assert lines_left_out(text, summary) == (2, 3)
    assert lines_left_out("**One line**: kept whole", "kept whole") == ()


def test_no_proposal_goes_below_the_floor(demo_home):
    """`fewest_chars` is a floor: a proposal for the tightest target, every entry synced, still
    leaves at least that many characters."""
    reading = next(r for r in read_profile(get_profile(demo_home, "default")) if r.source == "memory")
    synced = {("memory", short_hash(entry_sha256(text))): [i + 1] for i, text in enumerate(reading.entries)}
    proposal = propose(reading, b"", synced, target=0.0)
    assert proposal.rewrites  # the floor is tested against rewritten entries, not the file as it was
    assert fewest_chars(proposal.before) <= proposal.chars_after < proposal.chars_before
