"""`kb-pipeline`: the command line.

    kb-pipeline ingest  [--input DIR]   a folder through the Dagster asset graph (no daemon needed)
    kb-pipeline status  [--input DIR]   every file in the drop folder: ingested (and its knowledge), failed, waiting, …
    kb-pipeline ui      [--port N]      `dagster dev` (UI, daemon, sensor), runs in warm run workers
    kb-pipeline worker  [--name N] [--queues Q] [--concurrency N] [--max-tasks-per-child N] [-E]
                                        a Celery worker for an instance on Celery (dagster.celery.yaml, docs/SCALING.md)
    kb-pipeline shared-root [--move]    on the Celery instance's host: mark the data root as the one workers share
    kb-pipeline run     --input DIR     the batch producer of the parsing contract (no Dagster)
    kb-pipeline package MINERU_OUTPUT   a RAG package from any MinerU output directory
    kb-pipeline extract ARTIFACT_OR_DIR…  glossary, formulas, rules, brief of parsed documents (no Dagster)
    kb-pipeline review  [--port N]      the review desk: approve, edit or reject the extracted knowledge
    kb-pipeline review user add NAME --role viewer|reviewer|admin   the desk's accounts (list, disable, enable, set-role, reset-password, token)
    kb-pipeline knowledge export [--format json csv tbx skos] [--out DIR]   the approved knowledge as files
                                        (glossary: JSON, CSV, TBX, SKOS; rules, formulas, briefs: JSON, CSV;
                                        gold: the documents marked review complete, as yardstick gold v2)
    kb-pipeline knowledge score [--doc D]   the readers' precision and recall on the documents marked review complete

Settings come from the environment (kb_pipeline/settings.py: KB_DATA_DIR, KB_DROP_FOLDER,
KB_TIER, …) and the options above. Unless set already, DAGSTER_HOME is the repository root
(where dagster.yaml is) and KB_DAGSTER_DIR <data dir>/dagster, so the UI later shows what ran here.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from pydantic import ValidationError

from ..paths import DataLayout
from ..processes import leave_heap_to_the_system
from ..settings import Settings
from .instance import PROJECT_ROOT, open_instance


def set_dagster_environment(settings: Settings) -> None:
    """Dagster's own variables, which dagster.yaml reads: the instance lives in this repository
    (DAGSTER_HOME, where dagster.yaml is) and its storage under the data root."""
    root = PROJECT_ROOT if (PROJECT_ROOT / "dagster.yaml").is_file() else Path.cwd()
    os.environ.setdefault("DAGSTER_HOME", str(root))
    os.environ.setdefault("KB_DAGSTER_DIR", str(DataLayout(settings.data_dir).dagster))


def _knowledge_base(args: argparse.Namespace, settings: Settings):
    """The resource for these settings and arguments (the arguments win)."""
    from ..defs.resources import KnowledgeBase
    from .options import config_from_args

    config = config_from_args(args, settings.parser)
    folder = args.input or settings.drop_folder
    if not folder.is_dir():
        raise SystemExit(f"error: input folder {folder} does not exist")
    return KnowledgeBase.from_settings(settings.model_copy(update={"parser": config, "drop_folder": folder.resolve()}))


def _status(args: argparse.Namespace, settings: Settings) -> int:
    from .status import main as status_main

    return status_main(args, settings)


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    kb = _knowledge_base(args, settings)
    from ..cluster import is_celery_launcher
    from .ingest import format_outcomes, ingest_folder

    started = time.perf_counter()
    with open_instance() as instance:
        outcomes = ingest_folder(
            kb,
            instance,
            workers=settings.parse_workers,
            fork_workers=args.own_process,
        )
        on_celery = is_celery_launcher(instance.run_launcher)
    print(format_outcomes(outcomes, time.perf_counter() - started))
    home = os.environ["DAGSTER_HOME"]
    if on_celery:
        print(
            f"Dagster instance: {home} — runs, lineage and warnings in the cluster's dagster-webserver "
            "(docs/SCALING.md); not `make ui`, which would start a second daemon."
        )
    else:
        print(f"Dagster instance: {home} — `make ui` to browse runs, lineage and warnings.")
    # A document whose knowledge failed is ingested, and still something to alert on.
    return 1 if any(o.failed for o in outcomes) else 0


def _ui(args: argparse.Namespace, settings: Settings) -> int:
    """`dagster dev` on this repository's workspace; the daemon's runs execute in its run
    launcher's warm run workers (runs/warm_runs.py)."""
    import signal
    import subprocess

    command = [str(Path(sys.executable).parent / "dagster"), "dev", "-w", str(PROJECT_ROOT / "workspace.yaml")]
    command += ["-h", args.host, "-p", str(args.port)]
    # Started as a background job or under nohup, this process inherits SIGINT ignored, and so would
    # dagster dev, which maps SIGTERM to its SIGINT handling: neither signal would stop it. A handler
    # here is reset to the default at exec, so dagster dev always has its own.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    child = subprocess.Popen(command)
    # Stopped by a supervisor: stop dagster dev the way Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGINT))
    try:
        return child.wait()
    except KeyboardInterrupt:  # Ctrl-C reached dagster dev too: let it shut down its processes
        return child.wait()


def _setting_error(error: ValueError) -> str:
    """One line per setting that does not read, naming it and the value given."""
    if not isinstance(error, ValidationError):
        return str(error)
    return "; ".join(
        f"setting {'.'.join(map(str, e['loc']))} = {e['input']!r}: {e['msg']} (the KB_ variables: kb_pipeline/settings.py)"
        if "input" in e
        else f"setting {'.'.join(map(str, e['loc']))}: {e['msg']}"
        for e in error.errors()
    )


def _worker(args: argparse.Namespace, settings: Settings) -> int:
    from ..runs.celery import WorkerOptions, start_worker

    options = WorkerOptions(
        name=args.name,
        queues=args.queues,
        concurrency=args.concurrency,
        max_tasks_per_child=args.max_tasks_per_child,
        events=args.events,
        loglevel=args.loglevel,
    )
    return start_worker(settings, options)


def count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: must be at least 1")
    return value


def _shared_root(args: argparse.Namespace, settings: Settings) -> int:
    from ..cluster import NotSharedRoot, is_celery_launcher
    from ..runs.celery import claim_shared_root

    with open_instance() as instance:
        if not is_celery_launcher(instance.run_launcher):
            raise SystemExit("error: the instance is not on Celery (dagster.celery.yaml): nothing shares its data root")
        try:
            claim_shared_root(instance, settings, move=args.move)
        except NotSharedRoot as e:
            raise SystemExit(f"error: {e} (--move makes this one the shared root)") from None
    print(f"shared data root: {settings.data_dir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    code = _command(argv)
    if argv is None:  # the process is this command's own (the console script, `python -m`)
        leave_heap_to_the_system()
    return code


def _command(argv: list[str] | None) -> int:
    # The console script's own process, not a caller's: nothing has read a PDF in it, so `ingest`
    # may fork its workers from it (cli/ingest.py).
    own_process = argv is None
    # The command line's one read of the environment: every command gets these settings.
    try:
        settings = Settings.from_env()
    except ValueError as e:  # a KB_* variable that does not read (pydantic's ValidationError is one)
        print(f"kb-pipeline: {_setting_error(e)}", file=sys.stderr)
        return 2
    set_dagster_environment(settings)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        from .run import main as run_main

        return run_main(argv[1:], settings)
    if argv[:1] == ["package"]:
        from .package import main as package_main

        return package_main(argv[1:])
    if argv[:1] == ["extract"]:
        from .extract import main as extract_main

        return extract_main(argv[1:], settings)
    if argv[:1] == ["review"]:
        from .review import review_main

        return review_main(argv[1:], settings)
    if argv[:1] in (["knowledge"], ["glossary"]):  # `glossary export`: the command's older name
        from .review import knowledge_main

        return knowledge_main(argv[1:], settings, argv[0])
    from .options import add_parser_options

    parser = argparse.ArgumentParser(
        prog="kb-pipeline",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", help="ingest a folder through the Dagster asset graph")
    ingest.add_argument("--input", type=Path, default=None, help="folder of PDFs (default: data/knowledge_docs)")
    add_parser_options(ingest)
    status = sub.add_parser(
        "status",
        help="every file in the drop folder: ingested, failed, retrying, waiting, pending or skipped",
        epilog="Exit status: 0 when no document failed, 1 when at least one did (so a script or a "
        "monitor can alert), 2 on a usage error. Full file names and reasons are printed; "
        "on a terminal, long reasons wrap (--wide: one line per file).",
    )
    status.add_argument(
        "--input",
        type=Path,
        default=None,
        help="folder of PDFs (default: the drop folder, data/knowledge_docs; if it does not exist, the folder "
        "the latest ingested document came from)",
    )
    status.add_argument("--wide", action="store_true", help="one line per file, however long, no wrapping")
    add_parser_options(status)
    ui = sub.add_parser("ui", help="dagster dev (webserver, daemon, sensor); runs execute in warm run workers")
    ui.add_argument("--host", default="127.0.0.1", help="address the webserver listens on (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=3000, help="webserver port (default 3000)")
    worker = sub.add_parser("worker", help="a Celery worker: runs of an instance on Celery (docs/SCALING.md)")
    worker.add_argument("--name", default=None, help="the worker's node name before @host (default kb)")
    worker.add_argument(
        "--queues",
        "-Q",
        default=None,
        help="Celery queues to take runs from, comma-separated (default: the launcher's)",
    )
    worker.add_argument(
        "--concurrency", "-c", type=count, default=None, help="runs at once (default KB_CELERY_CONCURRENCY, 1)"
    )
    worker.add_argument(
        "--max-tasks-per-child",
        type=count,
        default=None,
        help="runs before a pool process is replaced (default KB_CELERY_MAX_TASKS_PER_CHILD, 20)",
    )
    worker.add_argument("--events", "-E", action="store_true", help="send task events, for Flower or `celery events`")
    worker.add_argument("--loglevel", "-l", default="INFO", help="Celery's log level (default INFO)")
    shared_root = sub.add_parser("shared-root", help="mark this host's data root as the one Celery workers share")
    shared_root.add_argument("--move", action="store_true", help="take over from another recorded shared root")
    sub.add_parser("run", help="the batch producer: kb-pipeline run --input DIR [--out DIR]")
    sub.add_parser("package", help="kb-pipeline package MINERU_OUTPUT_DIR [--output-dir DIR] [--shared-output DIR]")
    sub.add_parser("extract", help="kb-pipeline extract ARTIFACT_OR_DIR… [--out-dir DIR]: the knowledge payloads")
    sub.add_parser(
        "review",
        help="kb-pipeline review [--host H --allow-remote] [--port N] [--trust-proxy-header H]: the review desk; "
        "kb-pipeline review user …: its accounts",
    )
    sub.add_parser(
        "knowledge",
        help="kb-pipeline knowledge export [--format json csv tbx skos] [--lang L] [--base-iri IRI] [--out DIR]: "
        "the approved glossary, rules, formulas and briefs as files (alias: kb-pipeline glossary export); "
        "kb-pipeline knowledge score [--doc D]: the readers measured on the documents marked review complete",
    )
    args = parser.parse_args(argv)
    args.own_process = own_process
    commands = {"status": _status, "ingest": _ingest, "ui": _ui, "worker": _worker, "shared-root": _shared_root}
    from ..cluster import ClusterNotConfigured

    try:
        return commands[args.command](args, settings)
    except ClusterNotConfigured as e:  # the instance's launcher could not be built here
        print(f"kb-pipeline: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # required: MinerU starts "spawn" worker processes
    sys.exit(main())
