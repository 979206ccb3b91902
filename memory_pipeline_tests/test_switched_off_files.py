"""A memory file the profile's config switches off (`memory.memory_enabled`,
`memory.user_profile_enabled`): Hermes neither injects nor writes it, so its entries stop
reaching the agent through the store too, every command says so, and switching it back on
brings the same facts back."""

from memory_pipeline.cli import main
from memory_pipeline_tests.support.hermes_oracle import hermes_home_env, holographic_retriever, holographic_store
from memory_pipeline_tests.support.store_helpers import query, read_entries, said


def _user_facts(db) -> list[int]:
    return [r[0] for r in query(db, "SELECT fact_id FROM facts WHERE category = 'user_pref' ORDER BY fact_id")]


def test_a_switched_off_user_file_is_said_retired_and_brought_back(capsys, synced_home):
    db = synced_home / "memory_store.db"
    before = _user_facts(db)
    assert before
    config = synced_home / "config.yaml"
    config.write_text("memory:\n  user_profile_enabled: false\n", encoding="utf-8")
    # Hermes' own config loader reads the switch as the pipeline does.
    from hermes_cli.config import load_config

    with hermes_home_env(synced_home):
        assert load_config()["memory"]["user_profile_enabled"] is False
        assert load_config()["memory"]["memory_enabled"] is True
    capsys.readouterr()
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    notes = [line for line in said(capsys.readouterr().err) if "switched off" in line]
    assert len(notes) == 1 and "USER.md" in notes[0] and "memory.user_profile_enabled: false" in notes[0]
    assert _user_facts(db) == []  # out of Hermes' tables: no prefetch, no fact_store search finds them
    store = holographic_store(db)
    try:
        user_text = read_entries(synced_home / "memories" / "USER.md")[0]
        word = user_text.split()[0].strip("*:")
        assert all(r.get("category") != "user_pref" for r in holographic_retriever(store).search(word, limit=20, min_trust=0.0))
    finally:
        store.close()
    assert main(["status", "--hermes-home", str(synced_home), "--profile", "default"]) == 0
    assert "user off (memory.user_profile_enabled: false)" in capsys.readouterr().out
    assert main(["audit", "--hermes-home", str(synced_home), "--profile", "default", "--verbose"]) == 0
    assert "USER.md switched off (memory.user_profile_enabled: false): not injected, no cap" in capsys.readouterr().out
    # Back on: the same facts, with their own ids, and the file itself never touched.
    config.write_text("memory:\n  user_profile_enabled: true\n", encoding="utf-8")
    assert main(["sync", "--hermes-home", str(synced_home), "--profile", "default", "--quiet"]) == 0
    assert _user_facts(db) == before
