import hashlib
import re

import duckdb
import pytest

from memory_pipeline.lib.privacy import (
    DEMO_KEYWORDS,
    KeywordListError,
    detect,
    keyword_list_path,
    load_keywords,
    normalise_tags,
    private_reasons,
    re2_superset,
)

POSITIVES = {
    "email": ["联系 zhang.wei@example.com", "Mail: li.na+ops@corp.example.org!"],
    "phone": ["手机 138-0013-8000", "手机13800138000，晚上打", "call +86 139 0000 1234", "+1 (415) 555-0132", "+44 20 7946 0958"],
    "ip_address": ["server 192.168.1.20 is ours", "vpn 10.8.0.1", "ipv6 2001:db8::1", "fe80::1ff:fe23:4567:890a"],
    "cn_resident_id": ["身份证 11010519491231002X", "id 320106198512121231"],
    "payment_card": ["卡号 4111 1111 1111 1111", "visa 4012-8888-8888-1881", "amex 378282246310005"],
    "street_address": ["住在 北京市朝阳区建国路88号", "上海市徐汇区漕溪北路1200号", "office at 350 Fifth Avenue", "1600 Amphitheatre Parkway"],
    "secret": ["key sk-abcdefghijklmnopqrstuvwx12", "ghp_" + "a" * 36, "AKIAIOSFODNN7EXAMPLE", "api_key = abcd1234efgh",
               "password: hunter22", "-----BEGIN OPENSSH PRIVATE KEY-----"],
}
NEAR_MISSES = [
    "version 1.2.3.4 is out", "v10.0.0.1 release", "bump to 1.2.3.4-rc1", "版本 2.4.1.0", "999.1.1.1", "OLLAMA_HOST=http://127.0.0.1:11434",
    "订单号 20261202000123456", "order #13800138000", "ORD13800138000", "工单 1380013800012",
    "身份证 110105194912310021", "编号 123456789012345678",
    "卡号 4111 1111 1111 1112", "ref 1234567812345678", "时间 12:30:45", "ratio 3:2:1",
    "not an email: a@b", "@mention in chat", "token budget is 2000", "password rules: long", "123 main ideas",
]


@pytest.mark.parametrize("kind,text", [(k, t) for k, texts in POSITIVES.items() for t in texts])
def test_detector_positives(kind, text):
    assert kind in detect(text)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_detector_near_misses(text):
    assert detect(text) == []


def test_keyword_list_format_and_hash(tmp_path):
    path = tmp_path / "kw.txt"
    raw = "# private terms\n\n张伟\n  Zhang Wei  \nre:\\bLi\\s+Na\\b\n# re:ignored\n".encode()
    path.write_bytes(raw)
    keywords = load_keywords(path)
    assert keywords.terms == 3 and keywords.sha256 == hashlib.sha256(raw).hexdigest()
    assert keywords.matches("联系人张伟负责评审") and keywords.matches("ZHANG WEI") and keywords.matches("ask li  na")
    assert not keywords.matches("Lina is a name") and not keywords.matches("re:ignored")
    assert private_reasons("张伟 zhang.wei@example.com", keywords) == ["keyword", "email"]


def test_bad_keyword_list_errors_name_the_line_never_the_term(tmp_path):
    path = tmp_path / "kw.txt"
    path.write_text("秘密名字\nre:(unclosed 秘密\n", encoding="utf-8")
    with pytest.raises(KeywordListError) as info:
        load_keywords(path)
    assert str(path) in str(info.value) and "line 2" in str(info.value) and "秘密" not in str(info.value)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(KeywordListError, match="not UTF-8"):
        load_keywords(path)
    with pytest.raises(KeywordListError, match="not found"):
        load_keywords(tmp_path / "missing.txt")


def test_keyword_list_lookup_order(tmp_path, monkeypatch):
    assert keyword_list_path(None, tmp_path) == DEMO_KEYWORDS
    own = tmp_path / "memory-pipeline" / "privacy_keywords.txt"
    own.parent.mkdir()
    own.write_text("x\n")
    assert keyword_list_path(None, tmp_path) == own
    monkeypatch.setenv("MEMORY_PIPELINE_PRIVACY_KEYWORDS", str(tmp_path / "env.txt"))
    assert keyword_list_path(None, tmp_path) == (tmp_path / "env.txt").resolve()
    assert keyword_list_path(tmp_path / "flag.txt", tmp_path) == (tmp_path / "flag.txt").resolve()


@pytest.mark.parametrize("variant", ["private_person", "Private-Person", "private person", "PRIVATE_PERSON"])
def test_tag_variants_fold(variant):
    assert normalise_tags(f"synced-from-memory,{variant},user") == ("synced-from-memory,private-person,user", True)
    assert normalise_tags("a,private-person,private_person") == ("a,private-person", True)
    assert normalise_tags("a,private-person") == ("a,private-person", False)


# Python patterns and texts they match; the RE2 form must match each text too (a superset).
SUPERSET_CASES = [
    (r"\bLi\s+Na\b", ["Li Na", "li\u3000na", "met Li  Na."]),
    (r"on-?call\d+", ["oncall７", "on-call42"]),
    (r"[\w.]+@corp", ["ä.b@corp", "x@corp"]),
    (r"ab{,2}c\Z", ["abbc", "ac"]),
    (r"\u674e\s?\u5a1c", ["李 娜", "李娜"]),
    (re.escape("Zhang Wei (HR)"), ["zhang wei (hr)"]),
]


@pytest.mark.parametrize("pattern,texts", SUPERSET_CASES)
def test_re2_prefilter_matches_everything_python_matches(pattern, texts):
    translated = re2_superset(pattern)
    assert translated is not None
    db = duckdb.connect()
    for text in texts:
        assert re.search(pattern, text, re.IGNORECASE)
        assert db.execute("SELECT regexp_matches(?, ?, 'i')", [text, translated]).fetchall()[0][0], (pattern, text)


@pytest.mark.parametrize("pattern", [r"\W+x", r"[^a]b", r"(a)\1", r"end$", r"[[:alpha:]]", r"\N{BULLET}", "a\\"])
def test_re2_prefilter_refuses_what_has_no_safe_superset(pattern):
    assert re2_superset(pattern) is None
