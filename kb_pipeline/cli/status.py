"""`kb-pipeline status`: every file in the drop folder in exactly one state, read from the
Dagster instance — the same truth the UI shows.

    ingested  its artifact is current for the file's present bytes (version, chunks), and what
              knowledge it got — or "knowledge failed: <reason>" (a model outage is not the
              parse's failure: the exit status says it, and `kb-pipeline ingest` retries only it)
    failed    the latest run for its present bytes failed (the reason; "failed (run worker died)"
              when its worker process died and no retry is left)
    retrying  its run's worker died and the daemon retries it (or the retry is under way)
    waiting   modified within the last sensor interval: probably still being written
    pending   not ingested yet for its present bytes (new, changed, or config/code changed)
    skipped   not a PDF, a symlink, or not a regular file (the reason)

Then, per document with two versions kept or more (the review desk's, docs/review.md), how many of
its entries are pending because of its latest version: those the latest changed against the last
reviewed version whose decision, made on an earlier version, is pending again, plus those new in
it not decided yet (review/version_diff.py). It reads the decisions with the
re-attachments a re-parse calls for applied, as the desk would record them, and never writes to
the database (a read-only one, or one an older desk made, is read all the same).

Without --input the folder is the drop folder or, when there is none, the one the latest
ingested document came from (`kb-pipeline ingest --input DIR`), as the instance recorded it.
"""

import argparse
import shutil
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import sqlalchemy as sa

from ..defs import history
from ..defs.dead_runs import check_worker
from ..defs.names import CONTENT_TAG, MINERU_RAW_OUTPUT
from ..defs.resources import KnowledgeBase
from ..paths import DataLayout
from ..pipeline import content_hash_of
from ..review.corpus import Corpus
from ..review.expert_entries import ExpertEntries
from ..review.reattach import read_decisions
from ..review.store import DecisionStore
from ..review.version_diff import VersionDiff, version_diffs
from ..settings import Settings
from ..sources import list_pdfs
from .instance import open_instance
from .options import config_from_args

_RETRY_NUMBER, _MAX_RETRIES, _WILL_RETRY = "dagster/retry_number", "dagster/max_retries", "dagster/will_retry"

STATES = ("ingested", "failed", "retrying", "waiting", "pending", "skipped")


@dataclass
class FileStatus:
    name: str
    doc_id: str
    state: str
    detail: str
    # An ingested document whose knowledge extraction failed: something failed all the same.
    knowledge_failed: bool = False

    @property
    def failed(self) -> bool:
        return self.state == "failed" or self.knowledge_failed


def _retries_left(run: dg.DagsterRun) -> bool:
    try:
        return int(run.tags.get(_RETRY_NUMBER, 0)) < int(run.tags.get(_MAX_RETRIES, 0))
    except ValueError:
        return False


def _latest_run(instance: dg.DagsterInstance, doc_id: str, content_hash: str) -> dg.DagsterRun | None:
    # `ingest_documents`, or `extract_knowledge` re-run alone: the runs tagged with the content.
    runs = instance.get_runs(dg.RunsFilter(tags={"dagster/partition": doc_id, CONTENT_TAG: content_hash[:16]}), limit=1)
    return runs[0] if runs else None


def _knowledge(instance: dg.DagsterInstance, kb: KnowledgeBase, doc_id: str, content_hash: str) -> tuple[str, bool]:
    """What an ingested document's knowledge is, and whether its extraction failed."""
    if history.is_current(instance, kb, doc_id, content_hash):
        summary = history.knowledge_of(instance, doc_id)
        return f"knowledge: {summary}" if summary else "knowledge extracted", False
    run = _latest_run(instance, doc_id, content_hash)
    failure = history.knowledge_failure(instance, run) if run is not None and run.is_finished else None
    if failure:
        return failure.splitlines()[0], True
    return "knowledge pending", False


def folder_status(kb: KnowledgeBase, instance: dg.DagsterInstance, now: float | None = None) -> list[FileStatus]:
    """Every file of the drop folder in one state. The knowledge base's settings give the
    sensor's interval (a file younger than one tick is `waiting`) and the dead-worker limit."""
    now = time.time() if now is None else now
    settings = kb.settings
    sources, skipped = list_pdfs(kb.folder)
    statuses = [FileStatus(path.name, "", "skipped", reason) for path, reason in skipped]
    for source in sources:
        name, doc_id = source.path.name, source.doc_id
        try:
            content_hash = content_hash_of(source.path)
        except Exception as e:  # noqa: BLE001 — vanished or unreadable: say so, do not crash the listing
            statuses.append(FileStatus(name, doc_id, "failed", f"cannot read: {e}"))
            continue
        if history.is_parsed(instance, kb, doc_id, content_hash):
            meta = history.parsed_metadata(instance, doc_id)
            ocr = f", {meta['ocr']}" if meta.get("ocr") else ""
            knowledge, knowledge_failed = _knowledge(instance, kb, doc_id, content_hash)
            statuses.append(
                FileStatus(
                    name,
                    doc_id,
                    "ingested",
                    f"version {meta.get('version')}, {meta.get('chunks')} chunks, {meta.get('warnings')} warnings{ocr}; "
                    + knowledge,
                    knowledge_failed,
                )
            )
            continue
        run = _latest_run(instance, doc_id, content_hash)
        if run is not None and run.status in (dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED):
            crash = history.crash_reason(instance, run)
            if crash is None:
                statuses.append(FileStatus(name, doc_id, "failed", history.failure_reason(instance, run)))
            elif run.tags.get(_WILL_RETRY) == "true":
                statuses.append(FileStatus(name, doc_id, "retrying", f"{crash}; the daemon retries it"))
            else:
                statuses.append(
                    FileStatus(
                        name, doc_id, "failed", f"{crash}; not retried (no retry left, or no daemon retries this run)"
                    )
                )
        elif run is not None and not run.is_finished:
            verdict = (
                check_worker(instance, run, never_started_seconds=settings.never_started_seconds)
                if run.status != dg.DagsterRunStatus.QUEUED
                else None
            )
            attempt = f"retry {run.tags[_RETRY_NUMBER]}: " if _RETRY_NUMBER in run.tags else ""
            if verdict is not None and verdict.dead:
                state = "retrying" if _retries_left(run) else "failed"
                statuses.append(
                    FileStatus(
                        name,
                        doc_id,
                        state,
                        f"{attempt}{verdict.reason}; the daemon or `kb-pipeline ingest` ends the run",
                    )
                )
            elif attempt:
                statuses.append(
                    FileStatus(name, doc_id, "retrying", f"{attempt}run {run.run_id[:8]} is {run.status.value.lower()}")
                )
            else:
                statuses.append(
                    FileStatus(name, doc_id, "pending", f"run {run.run_id[:8]} is {run.status.value.lower()}")
                )
        elif now - source.mtime_ns / 1e9 < settings.drop_settle_seconds:
            statuses.append(
                FileStatus(name, doc_id, "waiting", "modified moments ago; picked up once it stops changing")
            )
        else:
            statuses.append(FileStatus(name, doc_id, "pending", "not ingested for its current content yet"))
    return sorted(statuses, key=lambda s: s.name)


_NAME_COLUMN_MAX = 48


def format_status(statuses: list[FileStatus], folder: Path, *, width: int | None = None) -> str:
    """One entry per file, nothing cut: a name longer than its column gets a line of its own,
    and a long reason wraps under its column (`width` None: no wrapping, one line per file)."""
    column = min(max([len(s.name) for s in statuses] + [4]), _NAME_COLUMN_MAX)
    indent = " " * (column + 11)
    lines = [f"{folder}", f"{'file':{column}} {'state':9} detail"]
    for s in statuses:
        if len(s.name) > column:
            lines.append(s.name)
        head = f"{s.name if len(s.name) <= column else '':{column}} {s.state:9} "
        if width is None:
            lines.append(head + s.detail)
        else:
            lines += textwrap.wrap(
                s.detail,
                width=max(width, column + 40),
                initial_indent=head,
                subsequent_indent=indent,
                break_on_hyphens=False,
            ) or [head.rstrip()]
    counts = {state: sum(s.state == state for s in statuses) for state in STATES}
    knowledge_failed = sum(s.knowledge_failed for s in statuses)
    lines.append(
        f"{len(statuses)} files: "
        + ", ".join(f"{n} {state}" for state, n in counts.items())
        + (f" ({knowledge_failed} ingested without knowledge: its extraction failed)" if knowledge_failed else "")
    )
    return "\n".join(lines)


def review_versions(layout: DataLayout, database_url: str | None) -> dict[str, VersionDiff]:
    """Every document with versions to compare: its latest against the last reviewed one."""
    corpus = Corpus(layout)
    if not corpus.versioned():
        return {}  # nothing kept: no database to reach
    store = DecisionStore.open(database_url, layout, create=False)
    corpus.added = ExpertEntries(store)
    try:
        decisions = read_decisions(corpus, store)
        return version_diffs(corpus, store, decisions, corpus.queue(decisions, "all"))
    finally:
        store.close()


def version_lines(layout: DataLayout, database_url: str | None) -> list[str]:
    """The review desk's line per document with versions to compare (none without); a line
    saying so when the decisions cannot be read (the files' states above stand regardless)."""
    try:
        diffs = review_versions(layout, database_url)
    except sa.exc.SQLAlchemyError as e:
        return [
            f"review: the decisions cannot be read ({type(e).__name__}): no count of what a new version left pending"
        ]
    return format_versions(diffs)


def format_versions(diffs: dict[str, VersionDiff]) -> list[str]:
    """A heading and a line per document, the pending count split into changed and new."""
    if not diffs:
        return []
    lines = ["review: entries pending because of a new version (changed since decided on an earlier one, or new)"]
    for doc_id, diff in sorted(diffs.items()):
        assert diff.latest is not None and diff.base is not None  # version_diffs: two versions or more
        changed = sum(c.pending_for_version for c in diff.changed)
        against = "the last reviewed" if diff.base_reviewed else "the previous, none reviewed"
        lines.append(
            f"  {doc_id}: {diff.pending_for_version} ({changed} changed, {diff.pending_for_version - changed} new) "
            f"in version {diff.latest.short} against {diff.base.short}, {against}"
        )
    return lines


def recorded_folder(instance: dg.DagsterInstance) -> Path | None:
    """The folder the latest ingested document was read from: its raw output's materialisation
    records the source's path, whoever ran it (`ingest --input`, the sensor, the UI)."""
    records = instance.fetch_materializations(dg.AssetKey(MINERU_RAW_OUTPUT), limit=1).records
    source = history.metadata_values(records[0] if records else None).get("source_path")
    return Path(source).parent if source else None


def status_folder(drop_folder: Path, instance: dg.DagsterInstance) -> Path:
    """The folder to list when none is given: the drop folder; when it does not exist, the
    recorded one (`recorded_folder`); when neither does, an error saying what to pass. A note on
    stderr whenever the recorded folder is another, so that neither listing passes for the other."""
    recorded = recorded_folder(instance)
    found = recorded if recorded is not None and recorded.is_dir() else None
    if drop_folder.is_dir():
        if found is not None and found != drop_folder:
            print(f"note: the latest ingested document came from {found}: --input {found} lists it", file=sys.stderr)
        return drop_folder
    if found is not None:
        print(f"note: {drop_folder} does not exist: listing {found}, the latest ingested document's", file=sys.stderr)
        return found
    why = (
        f"nor does {recorded}, where the latest ingested document came from"
        if recorded
        else "and the Dagster instance records no ingested document"
    )
    raise SystemExit(
        f"error: the drop folder {drop_folder} does not exist, {why}: "
        "pass --input DIR (the folder `kb-pipeline ingest --input DIR` read) or set KB_DROP_FOLDER"
    )


def main(args: argparse.Namespace, settings: Settings) -> int:
    """`kb-pipeline status`, its arguments parsed by cli/main.py: 1 when a document failed."""
    if args.input is not None and not args.input.is_dir():
        raise SystemExit(f"error: input folder {args.input} does not exist")
    with open_instance() as instance:
        folder = args.input or status_folder(settings.drop_folder, instance)
        config = config_from_args(args, settings.parser)
        kb = KnowledgeBase.from_settings(
            settings.model_copy(update={"parser": config, "drop_folder": folder.resolve()})
        )
        statuses = folder_status(kb, instance)
    width = None if args.wide or not sys.stdout.isatty() else shutil.get_terminal_size().columns
    print(format_status(statuses, kb.folder, width=width))
    for line in version_lines(kb.layout, settings.review_database_url):
        print(line)
    return 1 if any(s.failed for s in statuses) else 0
