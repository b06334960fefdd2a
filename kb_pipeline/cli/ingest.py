"""`kb-pipeline ingest`: a folder through the asset graph against the Dagster instance, without a daemon.

The same partitions, assets, checks and run history as the UI and the sensor — one run per
document, with a progress line per document; a document whose artifact is already current is not
run. Every run is launched through the instance's run launcher, as the daemon launches the
sensor's: on the shipped instance in warm run workers (runs/launcher.py), `workers`
(`KB_PARSE_WORKERS`) of them started by this command, largest file first; on a cluster's instance
on its Celery workers (docs/SCALING.md). A failed run that Dagster's run retries say to retry (a
worker died, not a step failed, within the job's `dagster/max_retries`) is launched again as
Dagster's retry daemon would; the daemon cannot itself, as these runs carry this command's
settings rather than a code location's (docs/decisions.md, "One way a run is launched").
"""

import functools
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

from ..cluster import is_celery_launcher
from ..defs.dead_runs import WORKER_DIED, end_dead_runs
from ..defs.history import (
    crash_reason,
    failure_reason,
    is_current,
    is_parsed,
    knowledge_failure,
    knowledge_of,
    observe_source,
    parsed_metadata,
)
from ..defs.names import CONTENT_TAG, INGEST_JOB, KNOWLEDGE_JOB, TABLES_JOB
from ..defs.partitions import DOCUMENTS
from ..defs.resources import KnowledgeBase, ReviewDatabase
from ..drop_folder import FolderState, Ready, largest_first, scan
from ..llm.endpoint import ModelEndpoint
from ..llm.local_server import LocalServer, ModelUnavailable
from ..runs.launcher import LocalRunLauncher
from ..runs.warm_runs import preload
from ..settings import Settings

# Step-by-step engine events stay in the instance (the UI shows them); the terminal gets one
# line per document.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
INGEST_TRIGGER = "kb-pipeline ingest"
# Dagster's tags for a run's retries (what the instance and its run-retry daemon write).
RETRY_NUMBER_TAG = "dagster/retry_number"
WILL_RETRY_TAG = "dagster/will_retry"
AUTO_RETRY_RUN_ID_TAG = "dagster/auto_retry_run_id"
_WILL_RETRY_SECONDS = 5.0


@dataclass
class Outcome:
    """One document's run: the parse's outcome (`status`, `metadata`, `reason`) and, apart, its
    knowledge's — what it got (`knowledge`), or why its extraction failed (`knowledge_failure`),
    which leaves the parse's "ingested" standing."""

    doc_id: str
    name: str
    status: str  # "ingested" | "unchanged" | "failed"
    seconds: float
    metadata: dict
    reason: str = ""
    knowledge: str = ""
    knowledge_failure: str = ""
    # Earlier attempts that failed and were retried: "retried after its worker died: run 1a2b3c4d".
    retries: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.status == "failed" or bool(self.knowledge_failure)


def release_abandoned_runs(instance: dg.DagsterInstance, never_started_seconds: float) -> list[str]:
    """End the runs of this instance whose worker is dead — this command's own earlier runs
    killed with SIGKILL as much as daemon-launched runs left behind by a stopped `make ui` — and
    free their pool slots (`dead_runs.end_dead_runs`). Without it, after as many such crashes
    as the `mineru` pool allows, every later parse would wait for ever."""
    return [run_id for run_id, _reason in end_dead_runs(instance, never_started_seconds=never_started_seconds)]


def _run_tags(item: Ready) -> dict[str, str]:
    return {"kb/source": item.source.path.name, CONTENT_TAG: item.content_hash[:16], "kb/trigger": INGEST_TRIGGER}


def _outcome(instance: dg.DagsterInstance, item: Ready, run: dg.DagsterRun, seconds: float) -> Outcome:
    doc_id, name = item.source.doc_id, item.source.path.name
    if run.status == dg.DagsterRunStatus.SUCCESS:
        return _ingested(instance, item, seconds)
    if knowledge := knowledge_failure(instance, run):
        return _ingested(instance, item, seconds, knowledge)
    reason = crash_reason(instance, run) or failure_reason(instance, run, whole=True)
    return Outcome(doc_id, name, "failed", seconds, {}, reason)


def _ingested(instance: dg.DagsterInstance, item: Ready, seconds: float, knowledge_failure: str = "") -> Outcome:
    doc_id = item.source.doc_id
    return Outcome(
        doc_id,
        item.source.path.name,
        "ingested",
        seconds,
        parsed_metadata(instance, doc_id),
        knowledge="" if knowledge_failure else knowledge_of(instance, doc_id),
        knowledge_failure=knowledge_failure,
    )


@functools.cache
def _definitions_for(kb_fields_json: str) -> dg.Definitions:
    """The definitions bound to this knowledge base, built once per process whatever the jobs
    asked of them (a build is ~1 s of CPU: three jobs would pay it three times)."""
    from ..definitions import build_definitions

    settings = Settings.from_env()  # the worker's one read: the environment it inherited
    kb = KnowledgeBase.from_config_json(kb_fields_json, settings)
    return build_definitions(kb, ReviewDatabase(settings.review_database_url))


@functools.cache
def job_for(kb_fields_json: str, job_name: str) -> dg.JobDefinition:
    """A job of the definitions bound to this knowledge base: what a warm run worker reconstructs
    a run of `ingest` from (`dg.build_reconstructable_job`), built once per worker. No secret
    travels in a run's origin (`KnowledgeBase.config_json`): the worker reads the keys' variables
    and the review database's URL from the environment it inherited, as the code location does."""
    return _definitions_for(kb_fields_json).resolve_job_def(job_name)


class _Runs:
    """This knowledge base's runs, launched through the instance's run launcher — as the daemon
    launches the sensor's and a backfill's — and followed to their end: on the shipped instance
    in the launcher's warm run workers, `workers` of them started in this process (forked from
    it when `fork`); on a cluster's instance on its Celery workers; with Dagster's in-memory
    launcher (an ephemeral instance, the tests') in this process."""

    def __init__(self, kb: KnowledgeBase, instance: dg.DagsterInstance, workers: int, fork: bool):
        self.instance = instance
        launcher = instance.run_launcher
        if type(launcher) is dg.DefaultRunLauncher:
            raise SystemExit(
                "error: this Dagster instance's run launcher is Dagster's DefaultRunLauncher, which "
                "launches a run only through a code server (the daemon's or the webserver's); "
                "`kb-pipeline ingest` launches its runs itself: set `run_launcher` to "
                "kb_pipeline.runs.launcher's LocalRunLauncher, as the shipped dagster.yaml does"
            )
        self.capacity = sys.maxsize  # runs launched at once; more wait in this command
        self._ended = threading.Event()
        # How often `wait` looks at the run table when nothing tells it a run ended: the warm pool
        # says when one does (`_ended`), so there the look is only a backstop. Nothing says when
        # a worker on another host ends one: a look (a Postgres query) every second, not ten
        # times a second — a run's launch and start on a worker take seconds already
        # (docs/PERFORMANCE.md).
        self._poll_seconds = 1.0
        self._model_server: LocalServer | None = None
        self._fields = kb.config_json()
        if isinstance(launcher, LocalRunLauncher):
            self._start_model_server(kb.settings.llm)
            if fork:
                # Forked from this process once it has MinerU imported and the definitions built
                # (`_jobs`), each worker starts with them instead of paying their imports and build
                # again (seconds of CPU apiece, on the cores the parses need; docs/PERFORMANCE.md).
                preload(str(kb.layout.mineru_home))
            self._fields = self._with_model_server(kb).config_json()
            if fork:
                self._jobs  # noqa: B018 — built here, before the fork
            # Spawned workers (a caller's process, or one with threads) import while this process
            # builds the definitions and creates the runs.
            launcher.start_workers(workers, fork=fork, on_run_end=self._ended.set)
            self.where = f"{workers} at a time"
        elif is_celery_launcher(launcher):
            # At most the instance's `max_concurrent_runs`, as its run queue would launch them:
            # this command's runs have no code location's origin, which the queue wants.
            queue = instance.get_concurrency_config().run_queue_config
            self.capacity = queue.max_concurrent_runs if queue and queue.max_concurrent_runs > 0 else workers
            self.where = "on the instance's Celery workers"
        else:
            # Dagster's in-memory launcher returns once the run has ended: one at a time, so each
            # document's line is printed as its run ends.
            self.capacity = 1
            self.where = f"by the instance's {type(launcher).__name__}"

    def _start_model_server(self, endpoint: ModelEndpoint | None) -> None:
        """Begin loading the embedded model in a server of this command, which every run's
        knowledge step asks (`ModelEndpoint.server_url`) rather than each loading its own
        (~0.6 s of CPU a document): it loads while this process imports MinerU."""
        if endpoint is None or not endpoint.embedded or endpoint.server_url:
            return
        server = LocalServer(endpoint.model_file())
        try:
            server.start()
        except ModelUnavailable:
            return  # each knowledge step meets the same reason and records it
        self._model_server = server

    def _with_model_server(self, kb: KnowledgeBase) -> KnowledgeBase:
        endpoint, server = kb.settings.llm, self._model_server
        if endpoint is None or server is None:
            return kb
        try:
            url = server.ensure_started()
        except ModelUnavailable:
            self.close()
            return kb
        llm = endpoint.model_copy(update={"server_url": url})
        return KnowledgeBase.from_settings(kb.settings.model_copy(update={"llm": llm}))

    def close(self) -> None:
        server, self._model_server = self._model_server, None
        if server is not None:
            server.stop()

    @functools.cached_property
    def _jobs(self) -> dict[str, Any]:
        # Builds the definitions (seconds): at the first run, after the workers have started.
        return {
            name: dg.build_reconstructable_job(__name__, job_for.__name__, reconstructable_args=(self._fields, name))  # type: ignore[arg-type]
            for name in (INGEST_JOB, KNOWLEDGE_JOB, TABLES_JOB)
        }

    def submit(
        self,
        job_name: str,
        tags: dict[str, str],
        partition_key: str | None = None,
        retry_of: dg.DagsterRun | None = None,
    ) -> str:
        """Create the run and launch it; `retry_of`: as Dagster's retry daemon makes a retry (the
        run group, the retry's number, the failed run tagged with its retry)."""
        recon = self._jobs[job_name]
        job = recon.get_definition()
        if retry_of is not None:
            _root, group = self.instance.get_run_group(retry_of.run_id) or (None, [retry_of])
            tags = {**tags, RETRY_NUMBER_TAG: str(len(list(group)))}
        run = self.instance.create_run_for_job(
            job,
            run_config=QUIET,
            parent_run_id=retry_of.run_id if retry_of else None,
            root_run_id=(retry_of.root_run_id or retry_of.run_id) if retry_of else None,
            # The job's tags (its `dagster/max_retries`) as the daemon's launch gives them.
            tags={**job.run_tags, **tags, **({"dagster/partition": partition_key} if partition_key else {})},
            job_code_origin=recon.get_python_origin(),
            status=dg.DagsterRunStatus.NOT_STARTED,
        )
        if retry_of is not None:
            self.instance.add_run_tags(retry_of.run_id, {AUTO_RETRY_RUN_ID_TAG: run.run_id})
        # The launcher needs no workspace: the run's Python origin is all a worker reconstructs it from.
        self.instance.launch_run(run.run_id, workspace=None)  # type: ignore[arg-type]
        return run.run_id

    def will_retry(self, run: dg.DagsterRun) -> bool:
        """Whether Dagster's run retries retry this failed run: the `dagster/will_retry` tag the
        instance gives a failed run when run retries are on (dagster.yaml's `run_retries`) — not
        after a step failed, and within the job's `dagster/max_retries`. The process that
        recorded the failure adds it just after: a moment is allowed for it."""
        if not self.instance.run_retries_enabled:
            return False
        deadline = time.monotonic() + _WILL_RETRY_SECONDS
        while WILL_RETRY_TAG not in run.tags and time.monotonic() < deadline:
            time.sleep(0.1)
            run = self.instance.get_run_by_id(run.run_id) or run
        return run.tags.get(WILL_RETRY_TAG) == "true"

    def wait(self, run_ids: list[str]) -> list[dg.DagsterRun]:
        """Those of the runs that have finished, as soon as one has: each document's line is
        printed when its run ends, and a freed place is filled at once."""
        while True:
            self._ended.clear()  # before the look: a run ending after it wakes the wait below
            records = self.instance.get_run_records(dg.RunsFilter(run_ids=run_ids))
            finished = [r.dagster_run for r in records if r.dagster_run.is_finished]
            if finished:
                return finished
            self._ended.wait(self._poll_seconds)


def _run_all(instance: dg.DagsterInstance, runs: _Runs, items: list[Ready], jobs: dict[str, str], done) -> None:
    """`items` as `runs`, largest file first (so the last one to finish is a short one);
    `done(item, outcome)` as each ends, then the corpus tables are refreshed if a document was
    ingested. A failed run that Dagster's run retries retry (`_Runs.will_retry`) is launched again
    as a new run of the whole job (complete cache entries make the finished steps quick); each
    failed attempt is named in the document's outcome."""
    submitted: dict[str, Ready] = {}
    attempts: dict[str, list[str]] = {}  # a document's failed attempts, oldest first

    def submit(item: Ready, retry_of: dg.DagsterRun | None = None) -> str:
        observe_source(instance, item.source.doc_id, item.content_hash)
        run_id = runs.submit(jobs[item.source.doc_id], _run_tags(item), item.source.doc_id, retry_of)
        submitted[run_id] = item
        return run_id

    waiting, pending = largest_first(items), list[str]()

    def fill() -> None:
        while waiting and len(pending) < runs.capacity:
            pending.append(submit(waiting.pop(0)))

    fill()
    ingested = False
    while pending:
        for run in runs.wait(pending):
            pending.remove(run.run_id)
            item = submitted[run.run_id]
            stats = instance.get_run_stats(run.run_id)  # the run's own time, not its wait for a worker
            outcome = _outcome(
                instance, item, run, (stats.end_time or 0.0) - (stats.start_time or stats.end_time or 0.0)
            )
            tried = attempts.setdefault(item.source.doc_id, [])
            if outcome.status == "failed" and runs.will_retry(run):
                why = "its worker died" if WORKER_DIED in outcome.reason else "it failed"
                tried.append(f"retried after {why}: run {run.run_id[:8]}")
                pending.append(submit(item, retry_of=run))
                continue
            outcome.retries = tried
            ingested |= outcome.status == "ingested"
            done(item, outcome)
        fill()
    if ingested:
        runs.wait([runs.submit(TABLES_JOB, {"kb/trigger": INGEST_TRIGGER})])


def ingest_folder(
    kb: KnowledgeBase,
    instance: dg.DagsterInstance,
    progress=None,
    workers: int = 1,
    fork_workers: bool = False,
) -> list[Outcome]:
    """Every new or changed PDF of the folder through `ingest_documents`, one run per document —
    or, when only its knowledge is not current (its extraction failed), through
    `extract_knowledge` — launched by the instance's run launcher (`_Runs`), `workers` at once
    where the launcher is this machine's. One outcome per PDF, in folder order. `fork_workers`:
    the warm run workers are forked from this process, which must be the command's own
    (`kb-pipeline ingest`): in a caller's process that has parsed a PDF, MinerU refuses to parse
    in a forked child ("Inherited PDFium font runtime"), so a caller's workers are spawned."""
    progress = progress or sys.stderr
    if is_celery_launcher(instance.run_launcher):  # this host's data root must be the one the workers share
        from ..cluster import NotSharedRoot
        from ..runs.celery import claim_shared_root

        try:
            claim_shared_root(instance, kb.settings)
        except NotSharedRoot as e:
            raise SystemExit(f"error: {e}") from None
    for run_id in release_abandoned_runs(instance, kb.settings.never_started_seconds):
        print(f"released run {run_id[:8]}: its worker process was gone", file=progress)
    changes, _state = scan(kb.folder, FolderState(), kb.processing_identity, require_stable=False)
    for path, reason in changes.newly_skipped:
        print(f"skipping {path.name}: {reason}", file=progress)
    ready = changes.ready
    new_keys = sorted({r.source.doc_id for r in ready} - set(instance.get_dynamic_partitions(DOCUMENTS)))
    if new_keys:
        instance.add_dynamic_partitions(DOCUMENTS, new_keys)
    labels = {item.source.doc_id: f"[{n}/{len(ready)}] {item.source.path.name}" for n, item in enumerate(ready, 1)}
    outcomes: dict[str, Outcome] = {}

    def done(item: Ready, outcome: Outcome) -> None:
        outcomes[item.source.doc_id] = outcome
        label, meta = labels[item.source.doc_id], outcome.metadata
        if outcome.status == "ingested":
            line = f"ingested: {meta.get('chunks')} chunks, {meta.get('warnings')} warnings, {_knowledge_note(outcome)}, {outcome.seconds:.1f} s"
        else:
            line = outcome.status if outcome.status == "unchanged" else f"FAILED {outcome.reason}"
        retries = "".join(f" ({retry})" for retry in outcome.retries)
        print(f"{label} {line}{retries}", file=progress, flush=True)

    to_run, jobs = [], {}
    for item in ready:
        started = time.perf_counter()
        doc_id = item.source.doc_id
        if is_current(instance, kb, doc_id, item.content_hash):
            meta = parsed_metadata(instance, doc_id)
            knowledge = knowledge_of(instance, doc_id)
            done(
                item,
                Outcome(
                    doc_id, item.source.path.name, "unchanged", time.perf_counter() - started, meta, knowledge=knowledge
                ),
            )
        else:
            to_run.append(item)
            # A current artifact whose knowledge failed: only the knowledge step runs again.
            jobs[doc_id] = KNOWLEDGE_JOB if is_parsed(instance, kb, doc_id, item.content_hash) else INGEST_JOB
    if to_run:
        runs = _Runs(kb, instance, min(workers, len(to_run)), fork_workers)
        try:
            print(f"{len(to_run)} documents to run, {runs.where}", file=progress, flush=True)
            _run_all(instance, runs, to_run, jobs, done)
        finally:
            runs.close()
    return [outcomes[item.source.doc_id] for item in ready]


def _knowledge_note(outcome: Outcome) -> str:
    return outcome.knowledge_failure or outcome.knowledge or "no knowledge payloads"


def format_outcomes(outcomes: list[Outcome], seconds: float) -> str:
    lines = [f"{'document':40} {'status':9} {'version':>7} {'pages':>5} {'chunks':>6} {'warn':>4} {'sec':>6}  note"]
    for o in outcomes:
        m = o.metadata
        if o.status == "failed":
            lines.append(
                f"{o.doc_id[:40]:40} {'FAILED':9} {'':>7} {'':>5} {'':>6} {'':>4} {o.seconds:>6.1f}  {o.reason[:110]}"
            )
        else:
            lines.append(
                f"{o.doc_id[:40]:40} {o.status:9} {m.get('version', ''):>7} {m.get('pages', ''):>5} "
                f"{m.get('chunks', ''):>6} {m.get('warnings', ''):>4} {o.seconds:>6.1f}  {_knowledge_note(o)[:110]}"
            )
    counts = {s: sum(o.status == s for o in outcomes) for s in ("ingested", "unchanged", "failed")}
    knowledge_failed = sum(bool(o.knowledge_failure) for o in outcomes)
    retried = [f"{o.doc_id}: {retry}" for o in outcomes for retry in o.retries]
    lines += retried
    lines.append(
        f"{counts['ingested']} ingested, {counts['unchanged']} unchanged, {counts['failed']} failed"
        + (f", {knowledge_failed} knowledge failed" if knowledge_failed else "")
        + (f", {len(retried)} retried" if retried else "")
        + f" in {seconds:.1f} s"
    )
    return "\n".join(lines)
