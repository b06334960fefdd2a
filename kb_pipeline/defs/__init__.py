"""The Dagster layer: partitions, assets, checks, sensors and resources that call the core.

Nothing here parses, normalises or checks anything itself; see `kb_pipeline.pipeline`.
"""
