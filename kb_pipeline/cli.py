"""`kb-pipeline`: the command line.

    kb-pipeline ingest  [--input DIR]   a folder through the Dagster asset graph (in process)
    kb-pipeline status  [--input DIR]   every file in the drop folder: ingested, failed, waiting, …
    kb-pipeline run     --input DIR     the batch producer of the parsing contract (no Dagster)
    kb-pipeline package MINERU_OUTPUT   a RAG package from any MinerU output directory

Unless set already, DAGSTER_HOME is the repository root (where dagster.yaml is), KB_DATA_DIR
its data/ folder and KB_DAGSTER_DIR data/dagster/, so the UI later shows what ran here.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def set_default_environment() -> None:
    root = REPO_ROOT if (REPO_ROOT / "dagster.yaml").is_file() else Path.cwd()
    os.environ.setdefault("DAGSTER_HOME", str(root))
    os.environ.setdefault("KB_DATA_DIR", str(root / "data"))
    os.environ.setdefault("KB_DAGSTER_DIR", str(Path(os.environ["KB_DATA_DIR"]) / "dagster"))
    os.environ.setdefault("KB_DROP_FOLDER", str(Path(os.environ["KB_DATA_DIR"]) / "knowledge_docs"))


def _knowledge_base(args: argparse.Namespace):
    """The resource for these arguments; the parser settings also go to the environment first,
    because the definitions compute code versions from it at import."""
    from .run import config_from_args

    config = config_from_args(args)
    os.environ.update({"KB_TIER": config.tier, "KB_PARSE_MODE": config.parse_mode,
                       "KB_PAGE_RANGE": config.page_range, "KB_MAX_PAGES": str(config.max_pages),
                       "KB_PARSE_WINDOW": str(config.parse_window)})
    import warnings

    import dagster as dg

    # observable_source_asset is marked beta; the warning says nothing a user can act on.
    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    from .defs.resources import KnowledgeBase

    folder = args.input or Path(os.environ["KB_DROP_FOLDER"])
    if not folder.is_dir():
        raise SystemExit(f"error: input folder {folder} does not exist")
    return KnowledgeBase(drop_folder=str(folder.resolve()), data_dir=os.environ["KB_DATA_DIR"], tier=config.tier,
                         parse_mode=config.parse_mode, page_range=config.page_range, max_pages=config.max_pages,
                         parse_window=config.parse_window)


def _status(args: argparse.Namespace) -> int:
    kb = _knowledge_base(args)
    import dagster as dg

    from .defs.status import folder_status, format_status

    with dg.DagsterInstance.get() as instance:
        statuses = folder_status(kb, instance)
    print(format_status(statuses, kb.folder))
    return 1 if any(s.state == "failed" for s in statuses) else 0


def _ingest(args: argparse.Namespace) -> int:
    kb = _knowledge_base(args)
    import dagster as dg

    from .definitions import build_definitions
    from .defs.ingest import format_outcomes, ingest_folder

    started = time.perf_counter()
    with dg.DagsterInstance.get() as instance:
        outcomes = ingest_folder(build_definitions(kb), kb, instance)
    print(format_outcomes(outcomes, time.perf_counter() - started))
    print(f"Dagster instance: {os.environ['DAGSTER_HOME']} — `make ui` to browse runs, lineage and warnings.")
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def main(argv: list[str] | None = None) -> int:
    set_default_environment()
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        from .run import main as run_main

        return run_main(argv[1:])
    if argv[:1] == ["package"]:
        from .packaging.cli import main as package_main

        return package_main(argv[1:])
    from .run import add_parser_options

    parser = argparse.ArgumentParser(prog="kb-pipeline", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", help="ingest a folder through the Dagster asset graph")
    ingest.add_argument("--input", type=Path, default=None, help="folder of PDFs (default: data/knowledge_docs)")
    add_parser_options(ingest)
    status = sub.add_parser("status", help="one line per file in the drop folder: ingested, failed, waiting, pending")
    status.add_argument("--input", type=Path, default=None, help="folder of PDFs (default: data/knowledge_docs)")
    add_parser_options(status)
    sub.add_parser("run", help="the batch producer: kb-pipeline run --input DIR [--out DIR]")
    sub.add_parser("package", help="kb-pipeline package MINERU_OUTPUT_DIR [--output-dir DIR] [--shared-output DIR]")
    args = parser.parse_args(argv)
    return _status(args) if args.command == "status" else _ingest(args)


if __name__ == "__main__":  # required: MinerU starts "spawn" worker processes
    sys.exit(main())
