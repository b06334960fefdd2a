"""The run machinery dagster.yaml points at: the run launcher and its warm run workers. Nothing in
the definitions or the core imports it."""
