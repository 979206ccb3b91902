"""Where the checkout keeps what the tests and benchmarks use: the demo Hermes home and its
privacy keyword list. The package itself never looks here."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_HERMES_HOME = REPO_ROOT / "data" / "hermes_home"
DEMO_KEYWORDS = REPO_ROOT / "data" / "privacy_keywords.txt"
