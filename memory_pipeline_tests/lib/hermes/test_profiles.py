from memory_pipeline import environment
from memory_pipeline.lib.hermes.profiles import char_limits, discover_profiles
from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME


def test_the_home_is_resolved_as_hermes_resolves_it(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert environment.hermes_home() == (tmp_path / "user" / ".hermes").resolve()  # Hermes' own default, never the demo's
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    assert environment.hermes_home() == tmp_path.resolve()
    assert environment.hermes_home(tmp_path / "x") == (tmp_path / "x").resolve()


def test_discovers_root_and_named_profiles(tmp_path):
    (tmp_path / "profiles" / "work").mkdir(parents=True)
    (tmp_path / "profiles" / "Bad Name").mkdir()
    (tmp_path / "profiles" / "default").mkdir()  # would shadow the root profile
    (tmp_path / "profiles" / "notes.txt").write_text("not a profile")
    profiles = discover_profiles(tmp_path)
    assert [p.name for p in profiles] == ["default", "work"]
    assert profiles[0].memories_dir == tmp_path / "memories"
    assert profiles[1].memory_file("user") == tmp_path / "profiles" / "work" / "memories" / "USER.md"


def test_demo_home_has_default_and_work():
    assert [p.name for p in discover_profiles(DEMO_HERMES_HOME)] == ["default", "work"]


def test_caps_from_hermes_config(tmp_path):
    config = tmp_path / "config.yaml"
    assert char_limits(config) == {"memory": 2200, "user": 1375}
    config.write_text("memory:\n  memory_char_limit: 3000\n  user_char_limit: '900'\n", encoding="utf-8")
    assert char_limits(config) == {"memory": 3000, "user": 900}
    config.write_text("memory:\n  memory_char_limit: lots\n", encoding="utf-8")
    assert char_limits(config) == {"memory": 2200, "user": 1375}
    config.write_text(": : not yaml [", encoding="utf-8")
    assert char_limits(config) == {"memory": 2200, "user": 1375}


def test_data_dir_follows_home_unless_overridden(monkeypatch, tmp_path):
    assert environment.data_dir(tmp_path) == tmp_path / "memory-pipeline"
    monkeypatch.setenv("MEMORY_PIPELINE_DATA_DIR", str(tmp_path / "elsewhere"))
    assert environment.data_dir(tmp_path) == (tmp_path / "elsewhere").resolve()
