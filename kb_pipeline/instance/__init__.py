"""Working with a Dagster instance from outside the asset graph: what `kb-pipeline ingest` and
`status` do, reading materialisation history, the run launcher and the dead-run check. Not
definitions (those are in `kb_pipeline.defs`); the CLI, the sensors and the benchmarks use these.
"""
