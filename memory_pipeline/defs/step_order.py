"""Which steps of a run go first among those ready at once."""

# Dagster's step priority (a higher one starts first among the steps ready together). The steps
# that put the store in step (facts extracted, written, judged, indexed) go before the checks and
# the embeddings ready beside them, so an agent's write reaches it sooner in a live sync.
IN_STEP_FIRST = {"dagster/priority": "1"}
