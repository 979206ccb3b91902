import dagster as dg

# One partition per Hermes profile; filled by discovery of the Hermes home (CLI runs and the
# profile discovery sensor). Each partition touches only its own files and store.
PROFILE_PARTITIONS = "hermes_profiles"  # the partition set's name, as the instance keys its partitions
hermes_profiles = dg.DynamicPartitionsDefinition(name=PROFILE_PARTITIONS)
