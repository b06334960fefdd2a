"""`kb-pipeline ingest`: a folder through the asset graph against the Dagster instance, without a daemon.

The same partitions, assets, checks and run history as the UI and the sensor — one run per
document, with a progress line per document; a document whose artifact is already current is not
run. With `workers` > 1 (`KB_PARSE_WORKERS`) the runs go to warm run workers (runs/warm_runs.py)
started by this command, largest file first; a run whose worker died is ended as any dead run is
and run once more, as run retries do for the daemon (docs/decisions.md, "Parallel parsing").
On an instance whose runs go to Celery workers (dagster.celery.yaml) the runs are launched through
the instance's run launcher instead, at most `max_concurrent_runs` at once, and followed to the
end the same way (docs/SCALING.md).
"""

import functools
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

from ..cluster import is_celery_launcher
from ..defs.dead_runs import WORKER_DIED, end_dead_runs, worker_tags
from ..defs.history import (
    crash_reason,
    failure_reason,
    is_current,
    is_parsed,
    knowledge_failure,
    knowledge_of,
    observe_source,
    parsed_metadata,
    step_failure_reason,
)
from ..defs.names import CONTENT_TAG, INGEST_JOB, KNOWLEDGE_JOB, TABLES_JOB
from ..defs.partitions import DOCUMENTS
from ..defs.resources import KnowledgeBase, ReviewDatabase
from ..drop_folder import FolderState, Ready, largest_first, scan
from ..settings import Settings

# Step-by-step engine events stay in the instance (the UI shows them); the terminal gets one
# line per document.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
INGEST_TRIGGER = "kb-pipeline ingest"
# Dagster's tags for a run's retries (what its run-retry daemon reads and writes).
MAX_RETRIES_TAG = "dagster/max_retries"
RETRY_NUMBER_TAG = "dagster/retry_number"


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
    # Earlier attempts whose worker died, each retried: "retried after its worker died: run 1a2b3c4d".
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


def _run_tags(item: Ready, local: bool = True) -> dict[str, str]:
    return {
        "kb/source": item.source.path.name,
        CONTENT_TAG: item.content_hash[:16],
        "kb/trigger": INGEST_TRIGGER,
        # The host whose /proc tells whether a local run's worker lives (dead_runs.py).
        **(worker_tags() if local else {}),
        # The daemon's run retries re-launch a run from its code location's origin, which this
        # command's runs do not have: this command retries a run whose worker died itself, the
        # job's `dagster/max_retries` times, tagged as Dagster tags a retry (`_run_in_workers`).
        MAX_RETRIES_TAG: "0",
    }


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


def _run_here(job: dg.JobDefinition, instance: dg.DagsterInstance, item: Ready) -> Outcome:
    """One document's run in this process."""
    started = time.perf_counter()
    observe_source(instance, item.source.doc_id, item.content_hash)
    result = job.execute_in_process(
        run_config=QUIET,
        partition_key=item.source.doc_id,
        instance=instance,
        raise_on_error=False,
        tags=_run_tags(item),
    )
    seconds = time.perf_counter() - started
    if result.success or knowledge_failure(instance, result.dagster_run):
        return _outcome(instance, item, result.dagster_run, seconds)
    reasons = (step_failure_reason(event) for event in result.all_events if event.is_step_failure)
    reason = next((reason for reason in reasons if reason), "run failed")
    return Outcome(item.source.doc_id, item.source.path.name, "failed", seconds, {}, reason)


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
    """Runs of `job_name` for this knowledge base in processes other than this one: the
    subclass says where."""

    local = True
    capacity = sys.maxsize  # runs submitted at once; more wait in this command
    # How often `wait` looks at the runs when nothing tells it one ended (`_ended`): the warm
    # pool says when a run ends, so there the look is only a backstop. Nothing says when a worker
    # on another host ends one: a look at the run table (a Postgres query) every second, not ten
    # times a second — a run's launch and start on a worker take seconds already
    # (docs/PERFORMANCE.md), and the runs waiting for a pool slot hide the rest.
    _poll_seconds = 1.0

    def __init__(self, kb: KnowledgeBase, instance: dg.DagsterInstance):
        self.instance = instance
        self._ended = threading.Event()
        self._fields = kb.config_json()

    @functools.cached_property
    def _jobs(self) -> dict[str, Any]:
        # Builds the definitions (seconds): at the first run, after the workers have started.
        return {
            name: dg.build_reconstructable_job(__name__, job_for.__name__, reconstructable_args=(self._fields, name))  # type: ignore[arg-type]
            for name in (INGEST_JOB, KNOWLEDGE_JOB, TABLES_JOB)
        }

    def max_retries(self, job_name: str) -> int:
        """How often the job's run is retried after its worker died (its `dagster/max_retries`)."""
        return int(self._jobs[job_name].get_definition().tags.get(MAX_RETRIES_TAG, "0"))

    # The status a run is created in, and how it is started: the subclass says.
    _created_as = dg.DagsterRunStatus.NOT_STARTED

    def _start(self, run: dg.DagsterRun) -> None:
        raise NotImplementedError

    def submit(
        self,
        job_name: str,
        tags: dict[str, str],
        partition_key: str | None = None,
        retry_of: dg.DagsterRun | None = None,
    ) -> str:
        recon = self._jobs[job_name]
        if retry_of is not None:  # the run group and number the UI shows for a retry
            tags = {**tags, RETRY_NUMBER_TAG: str(int(retry_of.tags.get(RETRY_NUMBER_TAG, "0")) + 1)}
        run = self.instance.create_run_for_job(
            recon.get_definition(),
            run_config=QUIET,
            parent_run_id=retry_of.run_id if retry_of else None,
            root_run_id=(retry_of.root_run_id or retry_of.run_id) if retry_of else None,
            tags={**tags, **({"dagster/partition": partition_key} if partition_key else {})},
            job_code_origin=recon.get_python_origin(),
            status=self._created_as,
        )
        self._start(run)
        return run.run_id

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

    def close(self) -> None:
        pass


class _WarmRuns(_Runs):
    """… executed in `workers` warm run workers of this command."""

    def __init__(self, kb: KnowledgeBase, instance: dg.DagsterInstance, workers: int, fork: bool):
        from ..runs.warm_runs import WarmRunPool, preload

        super().__init__(kb, instance)
        self._pool = WarmRunPool(workers, instance, kb.layout.mineru_home, on_run_end=self._ended.set)
        if fork:
            # Forked from this process once it has MinerU imported and the definitions built
            # (`_jobs`), each worker starts with them instead of paying their imports and build
            # again (seconds of CPU apiece, on the cores the parses need; docs/PERFORMANCE.md).
            preload(str(kb.layout.mineru_home))
            self._jobs  # noqa: B018 — built here, before the fork
        # Spawned workers (a caller's process, or one with threads) import while this process
        # builds the definitions and creates the runs.
        self._pool.start_workers(fork=fork)

    # STARTING: what a launcher's run is when a worker takes it (`instance.launch_run` sets it).
    _created_as = dg.DagsterRunStatus.STARTING

    def _start(self, run: dg.DagsterRun) -> None:
        self._pool.submit(run)

    def close(self) -> None:
        self._pool.close()


class _LaunchedRuns(_Runs):
    """… launched through the instance's run launcher (Celery workers), at most the instance's
    `max_concurrent_runs` of them at once (a run of this command has no code location's origin,
    which the daemon's run queue wants: this command is its own queue)."""

    local = False

    def __init__(self, kb: KnowledgeBase, instance: dg.DagsterInstance):
        super().__init__(kb, instance)
        queue = instance.get_concurrency_config().run_queue_config
        self.capacity = queue.max_concurrent_runs if queue and queue.max_concurrent_runs > 0 else kb.parse_workers

    def _start(self, run: dg.DagsterRun) -> None:
        # The launcher needs no workspace: the run's Python origin is all a worker reconstructs it from.
        self.instance.launch_run(run.run_id, workspace=None)  # type: ignore[arg-type]


def _run_in_workers(instance: dg.DagsterInstance, runs: _Runs, items: list[Ready], jobs: dict[str, str], done) -> None:
    """`items` as `runs`, largest file first (so the last one to finish is a short one);
    `done(item, outcome)` as each ends, then the corpus tables are refreshed if a document was
    ingested. A run whose worker died is retried up to its job's `dagster/max_retries` times, as
    a new run of the whole job (complete cache entries make the finished steps quick) recorded as
    Dagster records a retry; each failed attempt is named in the document's outcome."""
    try:
        submitted: dict[str, Ready] = {}
        died: dict[str, list[str]] = {}  # a document's attempts whose worker died, oldest first

        def submit(item: Ready, retry_of: dg.DagsterRun | None = None) -> str:
            observe_source(instance, item.source.doc_id, item.content_hash)
            job_name = jobs[item.source.doc_id]
            run_id = runs.submit(job_name, _run_tags(item, runs.local), item.source.doc_id, retry_of)
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
                attempts = died.setdefault(item.source.doc_id, [])
                if (
                    outcome.status == "failed"
                    and WORKER_DIED in outcome.reason
                    and len(attempts) < runs.max_retries(jobs[item.source.doc_id])
                ):
                    attempts.append(f"retried after its worker died: run {run.run_id[:8]}")
                    pending.append(submit(item, retry_of=run))
                    continue
                outcome.retries = attempts
                ingested |= outcome.status == "ingested"
                done(item, outcome)
            fill()
        if ingested:
            runs.wait(
                [runs.submit(TABLES_JOB, {"kb/trigger": INGEST_TRIGGER, **(worker_tags() if runs.local else {})})]
            )
    finally:
        runs.close()


def ingest_folder(
    kb: KnowledgeBase,
    instance: dg.DagsterInstance,
    progress=None,
    workers: int = 1,
    review_db: ReviewDatabase | None = None,
    fork_workers: bool = False,
) -> list[Outcome]:
    """Every new or changed PDF of the folder through `ingest_documents`, one run per document —
    or, when only its knowledge is not current (its extraction failed), through
    `extract_knowledge`; `workers` > 1 runs them in as many warm run workers (a persistent
    instance only: an ephemeral one lives in this process). One outcome per PDF, in folder order.
    `fork_workers`: the workers are forked from this process, which must be the command's own
    (`kb-pipeline ingest`): in a caller's process that has parsed a PDF, MinerU refuses to parse
    in a forked child ("Inherited PDFium font runtime"), so a caller's workers are spawned."""
    progress = progress or sys.stderr
    on_celery = is_celery_launcher(instance.run_launcher)
    if on_celery:  # this host's data root must be the one the workers share
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
    workers = min(workers, len(to_run)) if instance.is_persistent else 1
    if on_celery and to_run:
        print(f"{len(to_run)} documents to run on the instance's Celery workers", file=progress, flush=True)
        _run_in_workers(instance, _LaunchedRuns(kb, instance), to_run, jobs, done)
    elif workers > 1:
        print(f"{len(to_run)} documents to run, {workers} at a time", file=progress, flush=True)
        _run_in_workers(instance, _WarmRuns(kb, instance, workers, fork_workers), to_run, jobs, done)
    elif to_run:
        from ..definitions import build_definitions

        defs = build_definitions(kb, review_db)
        for item in to_run:
            print(f"{labels[item.source.doc_id]} …", file=progress, flush=True)
            done(item, _run_here(defs.resolve_job_def(jobs[item.source.doc_id]), instance, item))
        if any(o.status == "ingested" for o in outcomes.values()):
            defs.resolve_job_def(TABLES_JOB).execute_in_process(
                run_config=QUIET, instance=instance, raise_on_error=False
            )
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
        + (f", {len(retried)} retried after a worker died" if retried else "")
        + f" in {seconds:.1f} s"
    )
    return "\n".join(lines)
