"""When steps ran, read back from the instance's event log: to check, after the fact, that the
`mineru` pool kept parses apart (the load benchmark, the Postgres test) and how often a step had
to wait for a slot."""

from dataclasses import dataclass

import dagster as dg

_POOL_WAIT = "blocked by limit for pool"


@dataclass(frozen=True)
class StepSpan:
    run_id: str
    step_key: str
    start: float
    end: float
    pid: int | None


def step_spans(instance: dg.DagsterInstance, run_ids: list[str]) -> tuple[list[StepSpan], int]:
    """Every successful step's span (STEP_START → STEP_SUCCESS), and how many times a step was
    reported waiting for a pool slot."""
    spans, pool_waits = [], 0
    for run_id in run_ids:
        starts: dict[str, tuple[float, int | None]] = {}
        ends: dict[str, float] = {}
        for entry in instance.all_logs(run_id):
            event = entry.dagster_event
            if event is None or not event.step_key:
                continue
            if event.event_type == dg.DagsterEventType.STEP_START:
                starts[event.step_key] = (entry.timestamp, event.pid)
            elif event.event_type == dg.DagsterEventType.STEP_SUCCESS:
                ends[event.step_key] = entry.timestamp
            elif event.event_type == dg.DagsterEventType.ENGINE_EVENT and _POOL_WAIT in (entry.user_message or ""):
                pool_waits += 1
        spans += [
            StepSpan(run_id, key, starts[key][0], end, starts[key][1]) for key, end in ends.items() if key in starts
        ]
    return spans, pool_waits


def peak_concurrency(spans: list[StepSpan], slack: float = 0.0) -> int:
    """The largest number of the given spans running at the same moment, not counting overlaps
    shorter than `slack` seconds (event timestamps are taken in different processes, a little
    before or after the slot they mark is claimed or freed)."""
    points = sorted([(s.start, 1) for s in spans] + [(s.end - slack, -1) for s in spans])
    level = peak = 0
    for _, delta in points:
        level += delta
        peak = max(peak, level)
    return peak
