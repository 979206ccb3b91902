"""What the tests and the benchmarks share, and all that benchmarks take from the tests: the
repository's paths (`repository`), synthetic stores and homes (`synthetic`, `store_helpers`,
`primed_sync`), the Hermes oracle (`hermes_oracle`: the real Holographic code of the installed
hermes-agent), the loopback Ollama server (`fake_ollama`), local servers and the throwaway team
server with its Postgres (`servers`, `team_server`), and the labelled corpora (`memory_corpus`,
`search_queries`)."""
