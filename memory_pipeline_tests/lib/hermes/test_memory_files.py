import gc
import os
import time

import pytest

from memory_pipeline.lib.hermes.memory_files import ENTRY_DELIMITER, read_source
from memory_pipeline_tests.support.hermes_oracle import hermes_loaded_entries
from memory_pipeline_tests.support.memory_corpus import CASES, Case


def _write_case(home, case: Case, filename="MEMORY.md"):
    memories = home / "memories"
    memories.mkdir(parents=True)
    path = memories / filename
    if case.data is not None:
        path.write_bytes(case.data)
    return path


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("source,filename", [("memory", "MEMORY.md"), ("user", "USER.md")])
def test_corpus_against_hermes_reader(tmp_path, case, source, filename):
    path = _write_case(tmp_path, case, filename)
    reading = read_source(path, source, case.limit)

    assert reading.entries == case.entries
    assert set(reading.finding_codes) == case.findings
    assert reading.exists == (case.data is not None)
    if "unreadable" in case.findings:
        with pytest.raises(UnicodeDecodeError):
            hermes_loaded_entries(tmp_path)  # Hermes 0.19.0 itself cannot load such a file
        return
    hermes = hermes_loaded_entries(tmp_path)[source]
    assert reading.hermes_entries == hermes, "the pipeline's model of Hermes' reader is exact"
    if case.hermes_agrees:
        assert reading.entries == hermes
    else:
        assert reading.entries != hermes


def test_legacy_layout_is_two_versus_twelve(tmp_path):
    case = next(c for c in CASES if c.name == "legacy_layout")
    reading = read_source(_write_case(tmp_path, case), "memory", 2200)
    assert (len(reading.hermes_entries), len(reading.entries)) == (2, 12)
    differs = next(f for f in reading.findings if f.code == "hermes_parse_differs")
    assert "Hermes 0.19.0 reads 2 entries" in differs.detail and "current Hermes reads 2 entries" in differs.detail
    assert "the pipeline 12" in differs.detail


def test_drift_backup_is_reported(tmp_path):
    case = CASES[0]
    path = _write_case(tmp_path, case)
    (path.parent / "MEMORY.md.bak.1764000000").write_text("old", encoding="utf-8")
    assert "drift_backup" in read_source(path, "memory", 2200).finding_codes
    assert "drift_backup" not in read_source(path.parent / "USER.md", "user", 1375).finding_codes


def test_canonical_form_counts_chars_in_code_points(tmp_path):
    entries = ["中文条目", "second"]
    path = tmp_path / "MEMORY.md"
    path.write_text(ENTRY_DELIMITER.join(entries), encoding="utf-8")
    reading = read_source(path, "memory", 2200)
    assert reading.chars == len("中文条目\n§\nsecond") == 13
    assert reading.cap_usage == pytest.approx(13 / 2200)


def test_findings_never_quote_entry_text(tmp_path):
    secret = "张伟 手机 13800138000"
    path = tmp_path / "MEMORY.md"
    path.write_bytes(("§\n" + secret + "\n§\n§\n" + secret + "\n§\n# header-like\n").encode("utf-8"))
    reading = read_source(path, "memory", 10)
    assert reading.findings
    assert all("张伟" not in f.detail and "138" not in f.detail for f in reading.findings)


def _assert_one_line_error_naming(reading, path, words):
    assert reading.error is not None and "\n" not in reading.error
    assert str(path) in reading.error and words in reading.error
    assert reading.finding_codes == ["unreadable"] and reading.entries == []


def test_invalid_utf8_names_file_and_byte(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes("好".encode() + b"\xff\xfe")
    _assert_one_line_error_naming(read_source(path, "memory", 2200), path, "invalid UTF-8 at byte 3")


def test_directory_where_file_should_be(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.mkdir()
    _assert_one_line_error_naming(read_source(path, "memory", 2200), path, "is a directory")


def test_fifo_does_not_hang(tmp_path):
    path = tmp_path / "MEMORY.md"
    os.mkfifo(path)
    _assert_one_line_error_naming(read_source(path, "memory", 2200), path, "is a FIFO")


def test_dangling_symlink(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.symlink_to(tmp_path / "nowhere.md")
    _assert_one_line_error_naming(read_source(path, "memory", 2200), path, "dangling symbolic link")


def test_symlink_to_a_regular_file_is_read(tmp_path):
    target = tmp_path / "real.md"
    target.write_text("alpha\n§\nbeta", encoding="utf-8")
    path = tmp_path / "MEMORY.md"
    path.symlink_to(target)
    assert read_source(path, "memory", 2200).entries == ["alpha", "beta"]


def _parse_seconds(tmp_path, megabytes: int) -> float:
    entry = "**条目**: " + "内容 § 不是分隔 " * 6
    count = megabytes * 1_000_000 // len(entry.encode("utf-8"))
    path = tmp_path / f"big-{megabytes}.md"
    path.write_text(ENTRY_DELIMITER.join(f"{entry}{i}" for i in range(count)), encoding="utf-8")
    best = float("inf")
    gc.disable()  # a collection of the parts lists would land on one side only
    try:
        for _ in range(2):
            started = time.process_time()
            reading = read_source(path, "memory", 2200)
            best = min(best, time.process_time() - started)
            assert len(reading.entries) == count
    finally:
        gc.enable()
    return best


def test_twenty_megabyte_file_parses_in_linear_time(tmp_path):
    # A complexity check, not a speed target: five times the input may cost about five times
    # the time; quadratic work would cost twenty-five times.
    small = _parse_seconds(tmp_path, 4)
    large = _parse_seconds(tmp_path, 20)
    assert large < 12 * max(small, 0.005)


def test_bom_finding_names_both_hermes_readings(tmp_path):
    case = next(c for c in CASES if c.name == "bom")
    plain = tmp_path / "plain.md"
    plain.write_bytes(case.data[3:])
    reading = read_source(_write_case(tmp_path, case), "memory", 2200)
    assert reading.entries == read_source(plain, "memory", 2200).entries == case.entries
    # Hermes' main branch decodes as utf-8-sig: it reads what the pipeline reads; 0.19.0 does not.
    assert reading.current_hermes_entries == reading.entries != reading.hermes_entries
    details = {f.code: f.detail for f in reading.findings}
    assert "Hermes 0.19.0 keeps it inside the first entry" in details["bom"] and "current Hermes strips it" in details["bom"]
    assert details["hermes_parse_differs"].startswith("Hermes 0.19.0 reads 2 entries from MEMORY.md, the pipeline 2 (same count")
    assert details["hermes_parse_differs"].endswith("current Hermes reads the pipeline's entries")


def test_a_title_keeps_times_and_urls_whole():
    from memory_pipeline.cli.sync_output import entry_title
    from memory_pipeline.lib.hermes.memory_files import title_entity

    assert title_entity("每日复盘提醒：22:00 写日记，复盘当天") == "每日复盘提醒"  # the full-width colon, not the time's
    assert title_entity("缓存实测）：API=https://example.com/v1 很快") == "缓存实测）"
    assert title_entity("Backups: restic to the NAS") == "Backups"
    assert title_entity("Standup at 9:30 in room Orion") is None  # a time is no title boundary
    assert title_entity("See https://example.com: the docs") is None  # nor is a URL's scheme
    assert entry_title("每日复盘提醒：22:00 写日记") == "每日复盘提醒" and entry_title("**Deploy**: staging") == "Deploy"
