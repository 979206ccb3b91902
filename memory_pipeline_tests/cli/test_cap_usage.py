"""`cap_usage` helps: its detail says the room left and what `compact` would free (and the share
that reaches); the target share is the user's, set by `--cap-target` or the profile's config.yaml,
and `compact` fits a file just below it."""

import re

import pytest

from memory_pipeline.cli import main
from memory_pipeline_tests.support.syncing import synced_profile


def _cap_usage(capsys, home, *args) -> str:
    main(["audit", "--hermes-home", str(home), "--profile", "default", "--verbose", *args])
    return next(line for line in capsys.readouterr().out.splitlines() if "cap_usage" in line)


def test_the_detail_says_the_room_left_and_what_compact_would_free(capsys, synced_home):
    line = _cap_usage(capsys, synced_home)
    assert "MEMORY.md 2078/2200 chars (94%), 122 left" in line and "USER.md 325/1375 chars (24%), 1050 left" in line
    freed, share = re.search(r"`compact` would free (\d+) \(→ (\d+)%\)", line).groups()
    main(["compact", "--hermes-home", str(synced_home), "--profile", "default"])
    after = re.search(r"2078/2200 chars \(94%\) → (\d+)/2200 chars \((\d+)%\)", capsys.readouterr().out).groups()
    assert (int(freed), share) == (2078 - int(after[0]), after[1])  # what compact itself proposes


def test_the_target_is_the_users_flag_or_profile_setting(capsys, synced_home):
    assert "target ≤ 85%" in _cap_usage(capsys, synced_home)
    assert _cap_usage(capsys, synced_home, "--cap-target", "0.95").startswith("default: pass cap_usage")
    (synced_home / "config.yaml").write_text("plugins:\n  memory-pipeline:\n    cap_target: 0.95\n", encoding="utf-8")
    assert "target ≤ 95%" in _cap_usage(capsys, synced_home)
    assert "cap_usage" not in synced_profile(synced_home)["failing_checks"]
    failing = synced_profile(synced_home, cap_target=0.5)["failing_checks"]
    assert "cap_usage" in failing
    main(["compact", "--hermes-home", str(synced_home), "--profile", "default"])
    assert "target 90% reached" in capsys.readouterr().out  # 5 points below the profile's 95%
    with pytest.raises(SystemExit) as refused:
        main(["audit", "--hermes-home", str(synced_home), "--cap-target", "1.5"])
    assert refused.value.code == 2 and "a share of the cap between 0 and 1, not 1.5" in capsys.readouterr().err
