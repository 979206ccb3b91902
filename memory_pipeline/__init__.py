"""memory-pipeline: keeps Hermes Agent's Holographic fact store in step with its memory files."""

__version__ = "0.1.0"
