from memory_pipeline.lib.hermes.entries import hashed_frame, parsed_frame
from memory_pipeline.lib.hermes.hashing import entry_sha256
from memory_pipeline.lib.hermes.profiles import Profile, read_profile
from memory_pipeline.lib.sync.stages import held_sources


def test_frames_of_a_profile(tmp_path):
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "MEMORY.md").write_text("alpha\n§\n中文", encoding="utf-8")
    (tmp_path / "memories" / "USER.md").write_text("likes tables", encoding="utf-8")
    readings = read_profile(Profile("default", tmp_path))
    parsed = parsed_frame("default", readings)
    assert parsed[["source", "position", "text", "chars"]].values.tolist() == [
        ["memory", 1, "alpha", 5],
        ["memory", 2, "中文", 2],
        ["user", 1, "likes tables", 12],
    ]
    hashed = hashed_frame(parsed)
    assert hashed.loc[1, "entry_sha256"] == entry_sha256("中文")
    assert hashed.loc[1, "short_hash"] == entry_sha256("中文")[:16]
    assert hashed.loc[1, "entry_id"] == "memory:" + entry_sha256("中文")[:16]
    assert held_sources(readings) == frozenset()


def test_unreadable_source_is_marked_not_emptied(tmp_path):
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "MEMORY.md").write_bytes(b"\xff broken")
    (tmp_path / "memories" / "USER.md").write_text("fine", encoding="utf-8")
    readings = read_profile(Profile("default", tmp_path))
    assert parsed_frame("default", readings)["source"].tolist() == ["user"]
    assert held_sources(readings) == frozenset({"memory"})


def test_empty_profile_gives_typed_empty_frames(tmp_path):
    hashed = hashed_frame(parsed_frame("default", read_profile(Profile("default", tmp_path))))
    assert len(hashed) == 0 and list(hashed.columns)[-1] == "entry_id"


def test_batch_identities_equal_the_single_ones():
    from memory_pipeline.lib.hermes.hashing import entry_id, entry_identities, entry_sha256, short_hash

    texts, sources = ["**PR 铁律**: 标题不要用 fix", "Backups at 02:00", ""], ["memory", "user", "memory"]
    hashes, shorts, ids = entry_identities(sources, texts)
    assert hashes == [entry_sha256(t) for t in texts]
    assert shorts == [short_hash(h) for h in hashes]
    assert ids == [entry_id(s, h) for s, h in zip(sources, hashes, strict=True)]
