"""What `memory-pipeline hermes-plugin install` prints for a user to follow, read back as they would
copy it."""

from __future__ import annotations

import textwrap
from pathlib import Path


def printed_config(out: str, profile_home: Path) -> str:
    """The config.yaml lines printed for one profile (under its `# <path>` line), as YAML."""
    lines = out.splitlines()
    start = lines.index(f"  # {profile_home / 'config.yaml'}") + 1
    block = []
    for line in lines[start:]:
        if not line.startswith("  ") or line.startswith("  # "):
            break
        block.append(line)
    return textwrap.dedent("\n".join(block)) + "\n"
