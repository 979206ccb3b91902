from pathlib import Path

import dagster as dg

from memory_pipeline.lib.profiles import Profile, get_profile, resolve_hermes_home


class HermesHomeResource(dg.ConfigurableResource):
    """The Hermes home whose profiles the pipeline keeps in step.

    Empty means `HERMES_HOME`, else the demo home shipped in `data/`.
    """

    hermes_home: str = ""

    def path(self) -> Path:
        return resolve_hermes_home(self.hermes_home or None)

    def profile(self, name: str) -> Profile:
        return get_profile(self.path(), name)
