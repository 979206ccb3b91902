"""Personal data in facts: the user's keyword list (each pattern on RE2, linear time) and the
built-in detectors (`matching`), and tagging a store's facts private or not (`tagging`). Never
returns or formats a matched term or value. Above the store, beside extraction, below the sync."""
