import shutil

import pytest

from memory_pipeline_tests.support.repository import DEMO_HERMES_HOME, DEMO_KEYWORDS
from memory_pipeline_tests.support.store_helpers import read_entries, write_entries
from memory_pipeline_tests.support.syncing import sync_outcome

# The entry of a Chinese MEMORY.md that Hermes' own facts_fts cannot find by "机柜".
SERVER_ROOM = "**机房巡检**：每周三凌晨检查曙光机柜的温湿度传感器并记录到运维表"


@pytest.fixture(scope="module")
def agent_home(tmp_path_factory):
    """The demo home (one private fact per profile) plus the server-room entry, synced once."""
    home = tmp_path_factory.mktemp("agent") / "hermes_home"
    shutil.copytree(DEMO_HERMES_HOME, home, ignore=shutil.ignore_patterns("memory_store.db*", "memory-pipeline"))
    (home / "memory-pipeline").mkdir()
    shutil.copyfile(DEMO_KEYWORDS, home / "memory-pipeline" / "privacy_keywords.txt")
    memory = home / "memories" / "MEMORY.md"
    write_entries(memory, read_entries(memory) + [SERVER_ROOM])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
        outcome = sync_outcome(home, extractor="rules")
        assert all(p.run is not None and p.run.success for p in outcome.profiles.values()) and not outcome.run_problems
    return home
