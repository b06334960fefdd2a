"""The Dagster layer: partitions, assets, checks, sensors and resources that call the core.

Nothing here parses, normalises, extracts or checks anything itself: the assets call the core
(`kb_pipeline.pipeline`, `knowledge.payloads.payload_folder`) and the asset checks its checks
(`quality.artifact_checks`, `knowledge.payloads.checks`).
"""
