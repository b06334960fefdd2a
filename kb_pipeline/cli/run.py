"""`kb-pipeline run --input DIR [--out DIR]`: the batch producer of the parsing contract
(kb_pipeline/batch.py), with no Dagster."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..batch import format_summary, run_batch
from ..paths import DataLayout
from ..settings import Settings
from .options import add_parser_options, config_from_args


def main(argv: list[str] | None = None, settings: Settings | None = None) -> int:
    """`settings`: the command line's (cli/main.py); run on its own, the environment's."""
    parser = argparse.ArgumentParser(prog="kb-pipeline run", description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, required=True, help="folder of PDFs")
    parser.add_argument("--out", type=Path, default=None, help="run records (default: data/knowledge_runs)")
    add_parser_options(parser)
    args = parser.parse_args(argv)
    settings = settings or Settings.from_env()
    if not args.input.is_dir():
        parser.error(f"--input {args.input} is not a folder")
    layout = DataLayout(settings.data_dir)
    config = config_from_args(args, settings.parser)
    manifest = run_batch(args.input, args.out or layout.runs, config, layout, settings=settings)
    print(format_summary(manifest))
    return 1 if manifest.totals.failed else 0


if __name__ == "__main__":  # required: MinerU starts "spawn" worker processes
    sys.exit(main())
