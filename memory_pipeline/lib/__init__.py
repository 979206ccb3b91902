"""Plain logic of the pipeline. Nothing under lib/ imports dagster."""
