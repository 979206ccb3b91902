"""What the pipeline keeps, read back for people (the CLI) and for the agent (the MCP server):
substring search over every profile's trigram index, facts by id, and each profile's status.
Reads only; hands out a private fact only when asked, and never one the privacy stage has not
judged. The top layer of `lib`: it may read every package."""
