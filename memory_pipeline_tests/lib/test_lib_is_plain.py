import pkgutil
import subprocess
import sys

import memory_pipeline.lib


def test_no_lib_module_imports_dagster_or_hermes():
    modules = [m.name for m in pkgutil.walk_packages(memory_pipeline.lib.__path__, "memory_pipeline.lib.")]
    assert "memory_pipeline.lib.extraction.ollama" in modules
    assert modules
    probe = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'dagster', 'tools', 'plugins', 'hermes_cli'})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
