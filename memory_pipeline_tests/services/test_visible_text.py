"""Only visible text reaches the agent: a fact shown with code points that render as nothing (a
variation selector, a Hangul filler) is handed to every agent surface without them, by the same
reads the MCP server and the plugin use, while `why` shows its owner what the agent is not shown."""

import regex

from memory_pipeline.services.reading import search_profiles
from memory_pipeline.services.why import fact_story
from memory_pipeline_tests.support.store_fixture import context_of, synced_store
from memory_pipeline_tests.support.store_helpers import query, write_entries

TEA = "**Tea**: 龙井\ufe0f每天下午一杯\u3164，周五换成普洱"
IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")


def test_the_agent_gets_the_visible_text_and_the_owner_hears_what_it_does_not_see(tmp_path):
    home = tmp_path / "hermes_home"
    (home / "memories").mkdir(parents=True)
    write_entries(home / "memories" / "MEMORY.md", [TEA, "**Deploy**: staging every day at 18:00"])
    synced_store(context_of(home))
    ((fact_id, stored),) = query(home / "memory_store.db", "SELECT fact_id, content FROM facts WHERE content LIKE '**Tea**%'")
    assert IGNORABLE.search(stored)  # stored as written: the pipeline never rewrites a fact's text

    context = context_of(home)
    found = search_profiles([context], "龙井", limit=5, include_private=False, refresh_index=False).facts
    assert [f["content"] for f in found] == ["**Tea**: 龙井每天下午一杯，周五换成普洱"]
    assert not IGNORABLE.search(fact_story(context, fact_id).content)  # the MCP server's why_fact

    owner = fact_story(context, fact_id, owner=True)
    assert owner.content == stored and owner.invisible == ["U+FE0F VARIATION SELECTOR-16", "U+3164 HANGUL FILLER"]
