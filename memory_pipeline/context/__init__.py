"""A Hermes home and its profiles, resolved once (`home.py`): what commands, services and the
run's resources take instead of resolving a profile's store, data directory or judge themselves."""
