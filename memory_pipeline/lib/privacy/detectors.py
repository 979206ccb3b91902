"""The built-in detectors of personal data, one category each (e-mail, phone numbers, addresses,
ID and card numbers, secrets, IP addresses), each switchable per profile. Nothing here returns or
formats what a detector matched: only which categories fired.

Every detector reads the folded text (`folding.py`: full-width digits and letters are plain ones)
with ASCII word characters (`re.ASCII`): a Chinese, Japanese or Korean character next to a number,
an address or a key is a boundary (`腾讯云43.138.221.174`, `手机13800138000`, `密钥sk-…`), as
a space or a bracket is."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import re2

from memory_pipeline.lib.in_hermes.search_gate import DETECTORS_VERSION
from memory_pipeline.lib.privacy.folding import Folded, folded

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b", re.ASCII)
# CN mobile: 1[3-9] + 9 digits, optionally as 3-4-4 groups, optionally +86; not inside a longer
# number or an ASCII identifier (order numbers, `#13800138000`, `ORD13800138000`). Chinese text
# may touch it directly (`手机13800138000`).
_CN_MOBILE = re.compile(r"(?<![A-Za-z0-9#])(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?![A-Za-z0-9-])", re.ASCII)
# International: a leading + and country code, then 6-14 more digits in groups.
_INTL_PHONE = re.compile(r"(?<![\w+])\+[1-9]\d{0,2}(?:[\s.-]?\(?\d{1,4}\)?){2,5}(?![\w-])", re.ASCII)
_IPV4 = re.compile(r"(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?![\w.-])", re.ASCII)
_VERSION_CONTEXT = re.compile(r"(?:\b(?:v|version|ver\.?|release|semver)|版本)\s*$", re.IGNORECASE | re.ASCII)
_IPV6 = re.compile(r"(?<![\w:])((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4})(?![\w:])", re.ASCII)
_CN_ID = re.compile(r"(?<!\d)(\d{17}[\dXx])(?![\dXx])", re.ASCII)
_CARD = re.compile(r"(?<![\d-])((?:\d[ -]?){12,18}\d)(?![\d-])", re.ASCII)
_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|6(?:011|5|2)|35)")
_ADDRESS = re.compile(
    r"(?:[\u4e00-\u9fff]{1,8}(?:省|市|区|县)[\u4e00-\u9fff\d]{0,12}(?:路|街|道|巷|弄)\s?\d{1,5}\s?号)"
    r"|(?:\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Parkway|Pkwy|Way|Place|Pl)\b)",
    re.ASCII,
)
_SECRET = re.compile(
    r"(?:\bsk-[A-Za-z0-9_-]{20,}|\bghp_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}|\bAKIA[0-9A-Z]{16}\b"
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}|-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|(?i:(?:\b(?:api[_-]?key|access[_-]?token|secret|password|passwd)\b|密码)\s*[:=]\s*['\"]?[^\s'\"]{8,}))",
    re.ASCII,
)
# Every secret pattern contains one of these (lower-cased); text without any skips the scan.
_SECRET_MARKERS = ("sk-", "ghp_", "github_pat_", "akia", "xox", "-----begin", "eyj", "key", "token", "secret", "passw", "密码")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def _cn_id_valid(number: str) -> bool:
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != number[17].upper():
        return False
    year, month, day = int(number[6:10]), int(number[10:12]), int(number[12:14])
    return 1900 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= 31


def _luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _addresses(text: str) -> Iterator[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """Every IPv4 and IPv6 address written in the text (not a version string, not loopback)."""
    for match in _IPV4.finditer(text):
        if _VERSION_CONTEXT.search(text[max(0, match.start() - 12) : match.start()]):
            continue  # "version 1.2.3.4", "v10.0.0.1"
        try:
            yield ipaddress.IPv4Address(match.group(1))
        except ValueError:
            continue
    for match in _IPV6.finditer(text):
        candidate = match.group(1)
        if candidate.count(":") < 2 or not re.search(r"[0-9A-Fa-f]", candidate):
            continue
        try:
            yield ipaddress.IPv6Address(candidate)
        except ValueError:
            continue


# A home or office network's own addresses: infrastructure, not a person (private ranges,
# link-local, carrier-grade NAT; IPv6 unique-local and link-local).
_LOCAL_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "fc00::/7", "fe80::/10")
)


def _is_local(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(address.version == network.version and address in network for network in _LOCAL_NETWORKS)


def _address_found(text: str, *, local: bool) -> bool:
    """A public address (`local` False) or a private-network one (`local` True) in the text."""
    return any(not (a.is_loopback or a.is_unspecified) and _is_local(a) == local for a in _addresses(text))


def _card_found(text: str) -> bool:
    for match in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", match.group(1))
        if 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) and _luhn_valid(digits):
            return True
    return False


def _cn_id_found(text: str) -> bool:
    return any(_cn_id_valid(m.group(1)) for m in _CN_ID.finditer(text))


# Cheap gates: a phone, ID or card number needs eleven digits in a row (single separators aside:
# a CN mobile has 11, a card 13, an ID 18; an international number also starts with `+`), an IP
# address a digit-dot-digit or a double colon; most facts have neither, and skip those scans.
_LONG_NUMBER = re.compile(r"\d(?:[\s-]?\d){10,}", re.ASCII)
_IP_HINT = re.compile(r"\d\.\d|:[0-9A-Fa-f]*:", re.ASCII)


@dataclass(frozen=True)
class Detector:
    """One category of personal data: how it is found, whether it is on unless a profile's
    settings say otherwise, and an example for the docs."""

    found: Callable[[str, bool], bool]  # (text, holds a long number) -> found
    default: bool
    example: str


DETECTORS: dict[str, Detector] = {
    "email": Detector(lambda t, n: "@" in t and bool(_EMAIL.search(t)), True, "zhang.wei@example.com"),
    "phone": Detector(
        lambda t, n: bool((n and _CN_MOBILE.search(t)) or ("+" in t and _INTL_PHONE.search(t))), True, "138-0013-8000, +1 415 555 0132"
    ),
    "ip_address": Detector(lambda t, n: bool(_IP_HINT.search(t)) and _address_found(t, local=False), True, "203.0.113.7, 2001:db8::1"),
    "private_network": Detector(
        lambda t, n: bool(_IP_HINT.search(t)) and _address_found(t, local=True), False, "192.168.1.20, 10.8.0.1, 100.101.102.103"
    ),
    "cn_resident_id": Detector(lambda t, n: n and _cn_id_found(t), True, "11010519491231002X"),
    "payment_card": Detector(lambda t, n: n and _card_found(t), True, "4111 1111 1111 1111"),
    "street_address": Detector(lambda t, n: bool(_ADDRESS.search(t)), True, "北京市朝阳区建国路88号, 350 Fifth Avenue"),
    "secret": Detector(
        lambda t, n: any(m in t.lower() for m in _SECRET_MARKERS) and bool(_SECRET.search(t)), True, "sk-…, ghp_…, password: …"
    ),
}
# Which detectors a profile runs unless its settings say otherwise.
DEFAULT_CATEGORIES = frozenset(name for name, detector in DETECTORS.items() if detector.default)
# DETECTORS_VERSION (kept with the gate the plugin ships) is bumped whenever a detector or the
# unsafe scan finds something it did not before (or stops): every fact is judged again, and the
# agent's surfaces show nothing of a store an older version judged (a re-tag after a keyword-list
# edit trusts a "shown" verdict of the same version to say that neither found anything in that text).


def detectors_key(categories: frozenset[str]) -> str:
    """The detectors a verdict was reached with: their version and the categories on."""
    return f"{DETECTORS_VERSION}:{','.join(sorted(categories))}"


# What every detector needs at the least, in one pass: an @, eleven digits in a row, a +, a
# digit-dot-digit or a double colon, a 号 or a house number before a capitalised word, a secret's
# marker. A text with none of these cannot match any detector (most facts), whatever digits and
# spaces it has (`\\pN`, the Unicode spaces). In RE2 syntax: the detectors' own gate (one RE2 set,
# a few times quicker than Python's engine on every fact of a re-tag) and DuckDB's
# (`regexp_matches`), which filters texts before they are folded (a text holding a character the
# fold changes needs its own look: `folding.foldable_class_re2`).
_RE2_SPACE = r"[\s\x{0b}\pZ\x{1c}-\x{1f}\x{85}]"
DETECTOR_GATE_RE2 = (
    rf"@|\pN(?:(?:{_RE2_SPACE}|-)?\pN){{10}}|\+[1-9]|\pN\.\pN|:[0-9A-Fa-f]*:|号|\pN{_RE2_SPACE}+[A-Z]"
    r"|sk-|ghp_|github_pat_|AKIA|xox|-----BEGIN|eyJ|(?i:api[_-]?key|access[_-]?token|secret|passw)|密码"
)


def _gate() -> re2.Set:
    options = re2.Options()
    options.log_errors = False
    gate = re2.Set.SearchSet(options)
    gate.Add(DETECTOR_GATE_RE2)
    gate.Compile()
    return gate


_ANY_DETECTOR = _gate()


def detect(text: str | Folded, categories: frozenset[str] = DEFAULT_CATEGORIES) -> list[str]:
    """Names of the built-in detectors on (`categories`) that fire on a text, folded here unless
    it is already (never what they matched)."""
    text = (text if isinstance(text, Folded) else folded(text)).text
    if not _ANY_DETECTOR.Match(text):
        return []
    long_number = bool(_LONG_NUMBER.search(text))
    return [name for name, detector in DETECTORS.items() if name in categories and detector.found(text, long_number)]
