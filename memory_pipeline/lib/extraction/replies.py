"""Reading a model's reply back: tolerate think blocks and code fences, then validate every fact
against the batch it answers, whatever `format` promised (some models ignore it).

A rejection is one line that names what is wrong by position, entry id and fact id only: never a
value the model wrote, which may hold the entry's text.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from memory_pipeline.lib.extraction.base import EntryToExtract, ExtractedFact
from memory_pipeline.lib.extraction.prompt import ACTIONS, FactLimits
from memory_pipeline.lib.store.schema.database import CATEGORIES

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)


class ReplyInvalid(ValueError):
    """The reply cannot be used as it stands; the message is sent back to the model on a retry."""


def reply_json(text: str) -> object:
    body = _THINK.sub("", text).strip()
    if body.lower().startswith("<think>"):
        raise ReplyInvalid("the reply is an unterminated think block with no JSON after it")
    fence = _FENCE.search(body)
    if fence:
        body = fence.group(1).strip()
    if not body:
        raise ReplyInvalid("the reply is empty")
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        start, end = body.find("{"), body.rfind("}")
        if 0 <= start < end:  # a sentence of prose around the object
            try:
                return json.loads(body[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise ReplyInvalid(f"the reply is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None


def _tags(value: object, where: str, limits: FactLimits) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise ReplyInvalid(f"{where}: tags is not a list of strings")
    tags = [part.strip() for tag in value for part in tag.split(",") if part.strip()]
    if len(tags) > limits.max_tags:
        raise ReplyInvalid(f"{where}: {len(tags)} tags, over the limit of {limits.max_tags}")
    if any(len(tag) > limits.max_tag_chars for tag in tags):
        raise ReplyInvalid(f"{where}: a tag is longer than {limits.max_tag_chars} characters")
    return tuple(dict.fromkeys(tags))


def _fact(item: object, where: str, batch: dict[str, EntryToExtract], limits: FactLimits) -> ExtractedFact:
    if not isinstance(item, dict):
        raise ReplyInvalid(f"{where} is not an object")
    entry_id = item.get("entry_id")
    entry = batch.get(entry_id) if isinstance(entry_id, str) else None
    if entry is None:
        raise ReplyInvalid(f"{where}: entry_id is not one of this batch's ids ({', '.join(batch)})")
    where = f"{where} (entry {entry.entry_id})"
    content = item.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ReplyInvalid(f"{where}: content is missing or empty")
    content = content.strip()
    if len(content) > limits.max_fact_chars:
        raise ReplyInvalid(f"{where}: content is {len(content)} characters, over the limit of {limits.max_fact_chars}")
    category = item.get("category")
    category = category.strip().lower() if isinstance(category, str) else category
    if category not in CATEGORIES:
        raise ReplyInvalid(f"{where}: category is not one of {', '.join(CATEGORIES)}")
    entity = item.get("entity")
    if entity is not None and not isinstance(entity, str):
        raise ReplyInvalid(f"{where}: entity is not a string")
    entity = (entity or "").strip() or None
    if entity is not None and len(entity) > limits.max_entity_chars:
        raise ReplyInvalid(f"{where}: entity is longer than {limits.max_entity_chars} characters")
    action = item.get("action")
    if action not in ACTIONS:
        raise ReplyInvalid(f"{where}: action is not one of {', '.join(ACTIONS)}")
    existing = item.get("existing_fact_id", 0)
    if isinstance(existing, bool) or not isinstance(existing, int):
        raise ReplyInvalid(f"{where}: existing_fact_id is not an integer")
    candidates = [fact_id for fact_id, _ in entry.candidates]
    if action == "update" and existing not in candidates:
        offered = ", ".join(map(str, candidates)) or "none"
        raise ReplyInvalid(f"{where}: update of fact {existing}, which is not one of this entry's facts ({offered})")
    if action == "add" and existing != 0:
        raise ReplyInvalid(f"{where}: action add must have existing_fact_id 0, not {existing}")
    return ExtractedFact(
        entry_id=entry.entry_id,
        content=content,
        category=category,
        tags=_tags(item.get("tags", []), where, limits),
        entity=entity,
        action=action,
        existing_fact_id=existing,
    )


def validate_reply(text: str, batch: list[EntryToExtract], limits: FactLimits) -> list[ExtractedFact]:
    """The facts of a reply, or ReplyInvalid: every fact well-formed, every entry answered for,
    updates only of that entry's own facts, within the per-entry limit."""
    data = reply_json(text)
    items = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ReplyInvalid('the reply is not an object with a "facts" list')
    by_id = {entry.entry_id: entry for entry in batch}
    facts: list[ExtractedFact] = []
    seen: set[tuple[str, str]] = set()
    for index, item in enumerate(items, start=1):
        fact = _fact(item, f"fact {index}", by_id, limits)
        if (fact.entry_id, fact.content) not in seen:  # the same fact twice is one fact
            seen.add((fact.entry_id, fact.content))
            facts.append(fact)
    per_entry = Counter(fact.entry_id for fact in facts)
    missing = [entry_id for entry_id in by_id if not per_entry[entry_id]]
    if missing:
        raise ReplyInvalid(f"no fact for entr{'y' if len(missing) == 1 else 'ies'} {', '.join(missing)}")
    over = [entry_id for entry_id, count in per_entry.items() if count > limits.max_facts_per_entry]
    if over:
        raise ReplyInvalid(f"more than {limits.max_facts_per_entry} facts for {', '.join(over)}")
    updates = Counter((fact.entry_id, fact.existing_fact_id) for fact in facts if fact.action == "update")
    twice = sorted({fact_id for (_, fact_id), count in updates.items() if count > 1})
    if twice:
        raise ReplyInvalid(f"fact{'s' if len(twice) > 1 else ''} {', '.join(map(str, twice))} updated more than once")
    return facts
