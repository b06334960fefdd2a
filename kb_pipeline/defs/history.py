"""Reading an asset partition's latest materialisation back from the instance."""

import dagster as dg


def latest_materialization(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str) -> dg.EventLogRecord | None:
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition]), limit=1).records
    return records[0] if records else None


def metadata_values(record: dg.EventLogRecord | None) -> dict:
    if record is None or record.asset_materialization is None:
        return {}
    return {k: v.value for k, v in record.asset_materialization.metadata.items()}
