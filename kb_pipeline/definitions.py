"""`defs`: what workspace.yaml loads. Everything here is wiring; the work is in the core."""

import dagster as dg

from .defs.assets import (
    kb_package,
    mineru_raw_output,
    parsed_document,
    quality_warnings,
    quality_warnings_table,
    source_pdf,
)
from .defs.jobs import ingest_job, warnings_table_job
from .defs.resources import KnowledgeBase
from .defs.sensors import dead_run_sensor, drop_folder_sensor

# Downstream assets follow their upstream on their own (eager automation conditions); this
# sensor evaluates those conditions and is on by default.
automation_sensor = dg.AutomationConditionSensorDefinition(
    "kb_automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
)


def build_definitions(kb: KnowledgeBase) -> dg.Definitions:
    return dg.Definitions(
        assets=[source_pdf, mineru_raw_output, parsed_document, quality_warnings, quality_warnings_table, kb_package],
        jobs=[ingest_job, warnings_table_job],
        sensors=[drop_folder_sensor, dead_run_sensor, automation_sensor],
        resources={"kb": kb},
    )


defs = build_definitions(KnowledgeBase())
