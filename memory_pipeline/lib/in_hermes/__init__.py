"""What runs inside Hermes as well as in the pipeline: the memory files' entry reader, the store's
location, the agent's search (query, gate, ranking), recall by meaning, the fence around what the
agent reads, and the warm worker's protocol. The standard library (and PyYAML, a Hermes
dependency) only: `memory-pipeline hermes-plugin install` copies this folder beside the plugin,
and the plugin, the MCP server and the pipeline all import it."""
