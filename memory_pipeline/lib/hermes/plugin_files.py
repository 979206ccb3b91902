"""The Hermes plugin's files: where each comes from in this package, and whether the copy a
profile's Hermes loads is this install's. A copy from another version may judge facts by other
rules (another version of the detectors withholds every fact): `status` says so, with the command."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from memory_pipeline.lib.hermes.agent_setup import plugin_dir

_PACKAGE = Path(__file__).resolve().parents[2]
# What runs inside Hermes as well as here, copied whole as the plugin's `in_hermes/` package.
SHIPPED = _PACKAGE / "lib" / "in_hermes"
# What the plugin directory holds, and where each file comes from in the package.
PLUGIN_FILES = {
    "plugin.yaml": _PACKAGE / "hermes_plugin" / "plugin.yaml",
    "__init__.py": _PACKAGE / "hermes_plugin" / "plugin.py",
    "live_sync.py": _PACKAGE / "hermes_plugin" / "live_sync.py",
    "hermes_settings.py": _PACKAGE / "hermes_plugin" / "hermes_settings.py",
    **{f"{SHIPPED.name}/{source.name}": source for source in sorted(SHIPPED.glob("*.py"))},
}


class PluginCopy(StrEnum):
    NOT_INSTALLED = "not installed"
    CURRENT = "this install's"
    OTHER = "another version's"  # older or newer: reinstalling makes it this install's


def installed_plugin(profile_home: Path) -> PluginCopy:
    """Whether the profile's plugin directory holds this package's code (`plugin.yaml`, which
    names the version, aside)."""
    target = plugin_dir(profile_home)
    if not target.is_dir():
        return PluginCopy.NOT_INSTALLED
    for name, source in PLUGIN_FILES.items():
        if name == "plugin.yaml":
            continue
        try:
            if (target / name).read_bytes() != source.read_bytes():
                return PluginCopy.OTHER
        except OSError:  # missing or unreadable: not this install's either
            return PluginCopy.OTHER
    return PluginCopy.CURRENT
