"""Is a run's worker process still alive? — and ending the runs whose worker died.

Dagster records the pid of a run's worker when it starts: the code server's "Started process
for run (pid: N)" engine event for runs it spawned a process for, the RUN_START event's pid for
runs executed in process (`kb-pipeline ingest`); the warm run workers (`runs/warm_runs.py`) record the
launching process while a run waits for one, then the worker that took it. It does not record
the machine, so whoever starts a run tags it with its host and boot id (`worker_tags`; the run
launcher in `runs/launcher.py` and `kb-pipeline ingest`). A run's worker is dead when, on that same host:

- the machine booted since (other boot id): every process of the old boot is gone;
- no process has that pid, or it is a zombie;
- the process with that pid started after the pid was recorded: the pid was reused;
- or no pid was ever recorded and the run was launched more than `never_started_seconds` ago
  (the worker writes its pid a few seconds after it is spawned, before it loads any code).

On another host nothing can be told from here, and a run without the tags (made before this
existed) is left alone: "unknown" never ends a run.

Only Linux's /proc is read; elsewhere every verdict is "unknown".
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from ..settings import DEFAULT_NEVER_STARTED_SECONDS

HOST_TAG = "kb/worker_host"
BOOT_TAG = "kb/worker_boot"
# Pids are recorded by the worker itself, slightly after its process started.
_PID_RECORD_SLACK_SECONDS = 2.0
# A worker writes its pid within seconds of being spawned (before it loads any code), so a run
# with none after `Settings.never_started_seconds` (KB_NEVER_STARTED_SECONDS, passed in by the
# callers) is dead. Ending a live one that took longer costs a retry, no more: a worker that
# finds its run already ended does not run it.
UNFINISHED = (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING)
WORKER_DIED = "run worker died"
# The engine events that record a run's process: Dagster's own run worker, and the warm run
# workers (`runs/warm_runs.py`) — the launching process while the run waits, then the worker.
RUN_WAITING = "Waiting for a warm run worker in process (pid: "
RUN_TAKEN = "Taken by warm run worker (pid: "
_PID_MESSAGES = ("Started process for run (pid: ", RUN_WAITING, RUN_TAKEN)


def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def worker_tags() -> dict[str, str]:
    """Tags naming the machine (and its boot) a run's worker runs on."""
    return {HOST_TAG: socket.gethostname(), BOOT_TAG: boot_id()}


def _boot_time() -> float:
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    raise OSError("no btime in /proc/stat")


def process_started_at(pid: int) -> float | None:
    """When process `pid` of this machine started (epoch seconds); None if there is none or it is
    a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if fields[0] in ("Z", "X"):
            return None
        return _boot_time() + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def event_message(entry: dg.EventLogEntry) -> str:
    """An event's text: Dagster's own events carry it on the event, user logs on the entry."""
    return (entry.dagster_event.message if entry.dagster_event else None) or entry.user_message or ""


def _pid_after(message: str, prefix: str) -> int:
    return int(message[len(prefix) :].split(")")[0])


def events_marked(instance: dg.DagsterInstance, run_id: str, prefix: str) -> list[tuple[float, int]]:
    """(timestamp, pid) of each engine event of the run whose message starts with `prefix`
    (`RUN_WAITING`, `RUN_TAKEN`)."""
    return [
        (entry.timestamp, _pid_after(event_message(entry), prefix))
        for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.ENGINE_EVENT)
        if event_message(entry).startswith(prefix)
    ]


@dataclass(frozen=True)
class WorkerRecord:
    pid: int
    recorded_at: float


def worker_record(instance: dg.DagsterInstance, run_id: str) -> WorkerRecord | None:
    """The pid Dagster recorded for this run's worker, latest first (a resumed run has several)."""
    found = None
    for entry in instance.all_logs(run_id, of_type={dg.DagsterEventType.ENGINE_EVENT, dg.DagsterEventType.RUN_START}):
        event = entry.dagster_event
        if event is None:
            continue
        if event.event_type == dg.DagsterEventType.ENGINE_EVENT:
            message = event_message(entry)
            prefix = next((p for p in _PID_MESSAGES if message.startswith(p)), None)
            if prefix is None:
                continue
            pid = _pid_after(message, prefix)
        elif event.pid:
            pid = event.pid
        else:
            continue
        found = WorkerRecord(pid, entry.timestamp)
    return found


@dataclass(frozen=True)
class Verdict:
    dead: bool | None  # None: cannot tell from here
    reason: str


def check_worker(
    instance: dg.DagsterInstance,
    run: dg.DagsterRun,
    now: float | None = None,
    never_started_seconds: float = DEFAULT_NEVER_STARTED_SECONDS,
) -> Verdict:
    """Whether this unfinished run's worker is dead, and why, in words a person can act on."""
    now = time.time() if now is None else now
    host, boot = run.tags.get(HOST_TAG), run.tags.get(BOOT_TAG)
    if not host or not Path("/proc/stat").exists():
        return Verdict(None, "no worker host recorded")
    if host != socket.gethostname():
        return Verdict(None, f"its worker runs on {host}, not here")
    record = worker_record(instance, run.run_id)
    where = f"pid {record.pid} on {host}" if record else f"on {host}"
    if boot and boot_id() and boot != boot_id():
        return Verdict(True, f"{WORKER_DIED}: {host} restarted since the worker ({where}) started")
    if record is None:
        stats = instance.get_run_stats(run.run_id)
        launched = stats.launch_time or stats.start_time
        if launched is not None and now - launched > never_started_seconds:
            return Verdict(
                True,
                f"{WORKER_DIED}: no worker process recorded {now - launched:.0f} s after launch "
                f"on {host} (the stack was killed or the worker never started)",
            )
        return Verdict(None, "worker starting")
    started = process_started_at(record.pid)
    if started is None:
        return Verdict(
            True,
            f"{WORKER_DIED}: process {record.pid} on {host} is gone (killed, out of memory, "
            "or the whole stack was stopped)",
        )
    if started > record.recorded_at + _PID_RECORD_SLACK_SECONDS:
        return Verdict(
            True, f"{WORKER_DIED}: process {record.pid} on {host} is gone (the pid now belongs to another process)"
        )
    return Verdict(False, f"worker {where} is running")


def end_dead_run(instance: dg.DagsterInstance, run: dg.DagsterRun, reason: str) -> bool:
    """End a run whose worker died and free its pool slots. A run that was being canceled ends
    canceled (what was asked for; not retried); any other ends failed, which run retries (see
    dagster.yaml) may retry: the failure is not a step's, so `retry_on_asset_or_op_failure: false`
    does not stop it. Returns False if the run ended meanwhile."""
    current = instance.get_run_by_id(run.run_id)
    if current is None or current.status != run.status:
        return False
    if current.status == dg.DagsterRunStatus.CANCELING:
        instance.report_run_canceled(current, f"{reason}; the run was being canceled, so it ends canceled")
    else:
        # No failure reason recorded (Dagster's own run monitor's is not public): run retries treat a
        # run without one as a crash, never as a step's failure.
        instance.report_run_failed(current, reason)
    # Not public either: the run monitor frees slots only after `free_slots_after_run_end_seconds`;
    # freeing them now lets the retry claim the slot at once (test_dagster_internals.py).
    instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
    return True


def end_dead_runs(
    instance: dg.DagsterInstance, statuses=UNFINISHED, never_started_seconds: float = DEFAULT_NEVER_STARTED_SECONDS
) -> list[tuple[str, str]]:
    """End every run in `statuses` whose worker is dead; (run id, reason) for each."""
    ended = []
    for record in instance.get_run_records(dg.RunsFilter(statuses=list(statuses))):
        run = record.dagster_run
        verdict = check_worker(instance, run, never_started_seconds=never_started_seconds)
        if verdict.dead and end_dead_run(instance, run, verdict.reason):
            ended.append((run.run_id, verdict.reason))
    return ended
