"""Hermes' own files, read exactly and never written (except by `compact --apply`): the profiles
of a Hermes home and their caps, MEMORY.md / USER.md read entry by entry beside Hermes' own
readings (0.19.0 and current), entry identity (SHA-256), an entry's title and how alike two entries are, the entries as stage
tables and the summary-plus-pointer compaction. Above `files` (every file is read and written
through it); imports nothing from the other packages."""
