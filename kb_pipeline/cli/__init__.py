"""The command line (`kb-pipeline`, main.py): each command's argument handling, and the commands
that work with a Dagster instance from outside the asset graph (`ingest`, `status`)."""
