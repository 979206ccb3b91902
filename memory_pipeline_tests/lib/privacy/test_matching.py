import hashlib
import hmac
import random

import duckdb
import pytest

from memory_pipeline import environment
from memory_pipeline.context.home import privacy_choice, privacy_judge
from memory_pipeline.lib.files.digest_key import digest_key
from memory_pipeline.lib.hermes.profiles import Profile
from memory_pipeline.lib.privacy.choice import Told
from memory_pipeline.lib.privacy.folding import foldable_class_re2
from memory_pipeline.lib.privacy.matching import (
    DEFAULT_CATEGORIES,
    KeywordListError,
    detect,
    load_keywords,
    normalise_tags,
    private_reasons,
)

POSITIVES = {
    "email": ["联系 zhang.wei@example.com", "Mail: li.na+ops@corp.example.org!"],
    "phone": ["手机 138-0013-8000", "手机13800138000，晚上打", "call +86 139 0000 1234", "+1 (415) 555-0132", "+44 20 7946 0958"],
    "ip_address": ["home ip 203.0.113.7", "dns 8.8.4.4 works", "ipv6 2001:db8::1"],
    "cn_resident_id": ["身份证 11010519491231002X", "id 320106198512121231"],
    "payment_card": ["卡号 4111 1111 1111 1111", "visa 4012-8888-8888-1881", "amex 378282246310005"],
    "street_address": [
        "住在 北京市朝阳区建国路88号",
        "上海市徐汇区漕溪北路1200号",
        "office at 350 Fifth Avenue",
        "1600 Amphitheatre Parkway",
    ],
    "secret": [
        "key sk-abcdefghijklmnopqrstuvwx12",
        "ghp_" + "a" * 36,
        "AKIAIOSFODNN7EXAMPLE",
        "api_key = abcd1234efgh",
        "password: hunter22",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    ],
}
NEAR_MISSES = [
    "version 1.2.3.4 is out",
    "v10.0.0.1 release",
    "bump to 1.2.3.4-rc1",
    "版本 2.4.1.0",
    "999.1.1.1",
    "OLLAMA_HOST=http://127.0.0.1:11434",
    "订单号 20261202000123456",
    "order #13800138000",
    "ORD13800138000",
    "工单 1380013800012",
    "身份证 110105194912310021",
    "编号 123456789012345678",
    "卡号 4111 1111 1111 1112",
    "ref 1234567812345678",
    "时间 12:30:45",
    "ratio 3:2:1",
    "not an email: a@b",
    "@mention in chat",
    "token budget is 2000",
    "password rules: long",
    "123 main ideas",
]


@pytest.mark.parametrize("kind,text", [(k, t) for k, texts in POSITIVES.items() for t in texts])
def test_detector_positives(kind, text):
    assert kind in detect(text)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_detector_near_misses(text):
    assert detect(text) == []


# A home or office network's own addresses: infrastructure, found only where the profile turns
# `private_network` on.
PRIVATE_NETWORK = [
    "NAS 192.168.1.20 serves backups",
    "vpn 10.8.0.1",
    "Tailscale node 100.101.102.103",
    "router 172.16.5.1",
    "link-local 169.254.10.1",
    "fe80::1ff:fe23:4567:890a",
    "ula fd12:3456:789a::1",
]


@pytest.mark.parametrize("text", PRIVATE_NETWORK)
def test_private_network_addresses_are_infrastructure_unless_switched_on(text):
    assert detect(text) == []
    assert detect(text, DEFAULT_CATEGORIES | {"private_network"}) == ["private_network"]


def test_every_category_can_be_switched_off():
    for kind, texts in POSITIVES.items():
        assert all(kind not in detect(t, DEFAULT_CATEGORIES - {kind}) for t in texts)


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
    profile = Profile("default", tmp_path)
    own = tmp_path / "memory-pipeline" / "privacy_keywords.txt"
    assert privacy_choice(profile, tmp_path).keywords_path == own
    absent = privacy_judge(profile, tmp_path).keywords  # no list of its own: no terms, the detectors alone
    keyed = hmac.new(digest_key(environment.data_dir(tmp_path)), b"", hashlib.sha256).hexdigest()  # as an empty file, keyed
    assert (absent.terms, absent.matches("Zhang Wei"), absent.sha256) == (0, False, keyed)
    own.parent.mkdir(exist_ok=True)
    own.write_text("x\n")
    assert privacy_choice(profile, tmp_path).keywords_path == own
    monkeypatch.setenv("MEMORY_PIPELINE_PRIVACY_KEYWORDS", str(tmp_path / "env.txt"))
    assert privacy_choice(profile, tmp_path).keywords_path == (tmp_path / "env.txt").resolve()
    told = Told(keywords=str(tmp_path / "flag.txt"))
    assert privacy_choice(profile, tmp_path, told).keywords_path == (tmp_path / "flag.txt").resolve()
    with pytest.raises(KeywordListError, match="not found"):  # a list named by the variable must be there
        privacy_judge(profile, tmp_path)


@pytest.mark.parametrize("variant", ["private_person", "Private-Person", "private person", "PRIVATE_PERSON"])
def test_tag_variants_fold(variant):
    assert normalise_tags(f"synced-from-memory,{variant},user") == ("synced-from-memory,private-person,user", True)
    assert normalise_tags("a,private-person,private_person") == ("a,private-person", True)
    assert normalise_tags("a,private-person") == ("a,private-person", False)


# Lists and texts: what the list matches in Python (RE2 Set) and in DuckDB must agree exactly on
# a text the fold leaves as it is; a text it changes is always a candidate (the audit's gate).
PREFILTER_CASES = [
    ("re:\\bLi\\s+Na\\b", ["Li Na", "met li  na.", "Lina", "li\u3000na", "ｌｉ ｎａ"]),
    ("Lin\n王小明", ["Lin", "找Lin聊", "LinkedIn", "pipeline", "Ｌｉｎ", "王小明来了", "Lіn"]),
    ("re:on-?call\\d+", ["oncall7", "on-call42", "on call"]),
    ("re:ab{0,2}c\\z", ["abbc", "ac", "abbbc", "ac\n"]),
    ("re:\\p{Han}{2}娜", ["李小娜", "李娜"]),
    ("Zhang Wei (HR)\nre:(zzqq)\nre:(?i)privword", ["zhang wei (hr)", "PRIVWORD", "zzq"]),
    ("re:(?P<n>abc)\nre:(?P<n>def)", ["xdefx", "ab"]),
]


@pytest.mark.parametrize("lines,texts", PREFILTER_CASES)
def test_duckdb_prefilter_matches_exactly_what_the_list_matches(tmp_path, lines, texts):
    path = tmp_path / "kw.txt"
    path.write_text(lines + "\n", encoding="utf-8")
    keywords = load_keywords(path)
    db = duckdb.connect()
    for text in texts:
        try:
            in_duckdb = any(db.execute("SELECT regexp_matches(?, ?, 'i')", [text, p]).fetchall()[0][0] for p in keywords.re2_prefilters)
        except duckdb.Error:  # RE2 refuses the joined form (duplicate group names): the audit matches in Python
            continue
        foldable = db.execute("SELECT regexp_matches(?, ?)", [text, foldable_class_re2()]).fetchall()[0][0]
        assert in_duckdb or foldable or not keywords.matches(text), (lines, text)
        assert foldable or in_duckdb == keywords.matches(text), (lines, text)


def test_each_pattern_keeps_its_own_meaning(tmp_path):
    path = tmp_path / "kw.txt"
    path.write_text("re:(zzqq)\nre:(?i)PrivWord\nre:(?P<g>alpha)\nre:(?P<g>beta)\n", encoding="utf-8")
    keywords = load_keywords(path)
    assert keywords.matches("x PRIVWORDPRIVWORD y") and keywords.matches("a beta b") and not keywords.matches("zzq")


@pytest.mark.parametrize(
    "line,reason",
    [
        ("re:(PrivWord)\\1", "back-references are not supported"),
        ("re:(?<=秘密)x", "look-arounds are not supported"),
        ("re:(?!秘密)x", "look-arounds are not supported"),
        ("re:a{1000}{1000}", "not a regular expression RE2 can run (bad repetition operator)"),
    ],
)
def test_patterns_re2_cannot_run_are_refused_by_line_without_the_term(tmp_path, capfd, line, reason):
    path = tmp_path / "kw.txt"
    path.write_text(f"# list\nfine term\n{line}\n", encoding="utf-8")
    with pytest.raises(KeywordListError) as info:
        load_keywords(path)
    assert str(info.value).startswith(f"{path}: line 3: {reason}")
    captured = capfd.readouterr()
    assert "秘密" not in captured.err + captured.out and "PrivWord" not in captured.err + captured.out


def test_catastrophic_pattern_runs_in_linear_time(tmp_path):
    path = tmp_path / "kw.txt"
    path.write_text("re:(a+)+$\n", encoding="utf-8")
    keywords = load_keywords(path)
    # Python's backtracking engine takes hours on this text; RE2 answers at once (a hang fails the suite).
    assert not keywords.matches("a" * 40 + "b") and keywords.matches("aaa")
    assert not keywords.matches("a" * 1_000_000 + "b")


def test_a_list_of_twenty_thousand_terms_matches_each_term_in_several_sets(tmp_path):
    path = tmp_path / "kw.txt"
    path.write_text("".join(f"Person Name{i} Surname\n" for i in range(20_000)), encoding="utf-8")
    keywords = load_keywords(path)  # one RE2 set of these fails to compile ("failed to compile Set")
    assert keywords.terms == 20_000 and len(keywords.re2_prefilters) > 1
    assert keywords.matches("lunch with person name19999 surname") and keywords.matches("PERSON NAME0 SURNAME")
    assert not keywords.matches("Person Name20000 Surname")
    db = duckdb.connect()
    assert any(
        db.execute("SELECT regexp_matches(?, ?, 'i')", ["met Person Name12345 Surname", p]).fetchall()[0][0]
        for p in keywords.re2_prefilters
    )


# Pieces a re-tag's texts are made of: terms, their near misses, full-width and look-alike forms,
# combining marks and invisible characters at a text's edges, NUL inside a text.
_PIECES = ["Lin", "LinkedIn", "ＬＩＮ", "Lіn", "张伟", "王小明", "li na", "token", "#1277", "#77x", "ab", "c", " ", "\n", "\u0301", "e"]
_PIECES += ["İ", "\u200b", "7", "x\x00y", "on-call9", "(hr)"]


@pytest.mark.parametrize(
    "lines", [lines for lines, _ in PREFILTER_CASES] + ["Lin\ntoken\nre:#\\d*77\\b\nre:li\\s+na", "re:^token\nLin", "re:(?m)c$\n张伟"]
)
def test_many_texts_at_once_match_exactly_as_each_alone(tmp_path, lines):
    path = tmp_path / "kw.txt"
    path.write_text(lines + "\n", encoding="utf-8")
    keywords = load_keywords(path)
    rng = random.Random(lines)
    for with_nul in (False, True):
        pieces = _PIECES if with_nul else [p for p in _PIECES if "\x00" not in p]
        texts = {i: "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for i in range(3_000)}
        assert keywords.matching(texts) == {i for i, text in texts.items() if keywords.matches(text)}


def test_the_foldable_class_is_kept_in_a_cache_and_made_again_when_damaged(tmp_path):
    from memory_pipeline.lib.privacy.folding import foldable_class_re2

    exact = foldable_class_re2()
    assert foldable_class_re2(tmp_path / "cache") == exact
    (kept,) = (tmp_path / "cache").glob("foldable-*.re2")
    assert kept.read_text(encoding="ascii") == exact and oct((tmp_path / "cache").stat().st_mode & 0o777) == "0o700"
    kept.write_text("[\\x{41}", encoding="ascii")  # cut short
    assert foldable_class_re2(tmp_path / "cache") == exact and kept.read_text(encoding="ascii") == exact
