import dagster as dg

# One partition per Hermes profile; filled by discovery of the Hermes home (CLI runs and the
# profile discovery sensor). Each partition touches only its own files and store.
hermes_profiles = dg.DynamicPartitionsDefinition(name="hermes_profiles")
