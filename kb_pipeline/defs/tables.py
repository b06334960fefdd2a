"""The parquet tables of the graph: each document writes its rows as one part
(`<data root>/tables/<table>/<doc_id>.parquet`), and a corpus table gathers the parts into
`<data root>/tables/<table>.parquet`. A document that never got as far has no part and is simply
not in the table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg

from ..files import replacing
from ..paths import DataLayout

if TYPE_CHECKING:
    import pandas as pd


def dtype(annotation) -> str:
    """A model field's column type: integers nullable, everything else text."""
    return "Int64" if annotation in (int, int | None) else "string"


def frame(rows: list[dict], columns: dict[str, str]) -> pd.DataFrame:
    # pandas is imported by the steps that write tables, not by every process that loads the
    # definitions (a third of a second of CPU each: code servers, run workers, the CLI).
    import pandas as pd

    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def schema(columns: dict[str, str]) -> dg.TableSchema:
    return dg.TableSchema(columns=[dg.TableColumn(name, type_) for name, type_ in columns.items()])


def part_path(layout: DataLayout, table: str, doc_id: str) -> Path:
    return layout.tables / table / f"{doc_id}.parquet"


def write_parquet(data: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp:
        data.to_parquet(tmp, index=False)


def gather(layout: DataLayout, table: str, columns: dict[str, str], count_by: str, label: str) -> dict:
    """Every document's part of `table` in one parquet file; returns the metadata the UI shows:
    rows, schema, documents seen and those with rows, and the row count per value of the column
    `count_by` (as `label`)."""
    import pandas as pd

    folder = layout.tables / table
    parts = [pd.read_parquet(p) for p in sorted(folder.glob("*.parquet"))] if folder.is_dir() else []
    data = pd.concat(parts, ignore_index=True) if parts else frame([], columns)
    path = layout.tables / f"{table}.parquet"
    write_parquet(data, path)
    counts = data.groupby(count_by).size().to_dict() if len(data) else {}
    return {
        "dagster/row_count": len(data),
        "dagster/column_schema": dg.MetadataValue.table_schema(schema(columns)),
        "documents": len(parts),
        "documents_with_rows": int(data["doc_id"].nunique()),
        label: dg.MetadataValue.json({k: int(v) for k, v in counts.items()}),
        "path": dg.MetadataValue.path(str(path)),
    }
