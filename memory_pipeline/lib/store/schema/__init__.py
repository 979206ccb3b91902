"""The store's schema: Hermes' tables and the pipeline's own, opening a store safely beside a
running Hermes, telling which Holographic made it, and what an older store gains when next opened
to write. Creating and upgrading tables is the opening's, before any `FactStore` exists."""
