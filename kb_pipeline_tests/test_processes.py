"""The one worker-process pool (kb_pipeline/processes.py) every pool of the project is built on:
its handshake, its dead-worker policy (only the task held fails, the slot is refilled) and its
recycling, with tiny tasks so the policy is what is tested (the real pools: test_parse_workers,
test_windows, test_warm_runs, test_ingest_workers)."""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
import weakref

import pytest

from kb_pipeline.processes import Worker, WorkerDied, WorkerPool, settle_heap


def _setup(greeting: str) -> str:
    return greeting


def _handle(greeting: str, task):
    if task == "fail":
        raise ValueError("this task fails")
    if task == "sleep":
        time.sleep(30)
    return f"{greeting} {task} from {os.getpid()}"


def test_a_task_runs_in_a_worker_and_its_error_comes_back_with_the_worker_alive():
    with WorkerPool(1, _setup, _handle, ("hello",)) as pool:
        first = pool.call("a")
        assert first.startswith("hello a from ") and not first.endswith(str(os.getpid()))
        with pytest.raises(ValueError, match="this task fails"):
            pool.call("fail")
        assert pool.call("b").split()[-1] == first.split()[-1], "the same worker lives on"


@pytest.mark.slow
def test_a_worker_killed_mid_task_fails_only_that_task_and_its_slot_is_refilled():
    with WorkerPool(2, _setup, _handle, ("hi",)) as pool:
        killed: list[int] = []

        def kill_the_sleeper() -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not killed:
                pid = next((p for p, held in pool.busy.items() if held == "sleeper"), None)
                if pid:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                time.sleep(0.05)

        killer = threading.Thread(target=kill_the_sleeper)
        killer.start()
        with pytest.raises(WorkerDied) as died:
            pool.call("sleep", holding="sleeper")
        killer.join()
        assert died.value.pid == killed[0] and died.value.exitcode == -signal.SIGKILL
        answers = [pool.call(str(n)) for n in range(3)]
        assert all(a.startswith("hi ") for a in answers)
        assert str(killed[0]) not in " ".join(answers)


def test_a_worker_is_replaced_after_max_tasks():
    with WorkerPool(1, _setup, _handle, ("x",), max_tasks=2) as pool:
        pids = [pool.call(str(n)).split()[-1] for n in range(4)]
    assert pids[0] == pids[1] != pids[2] == pids[3]


def test_a_worker_that_dies_in_its_setup_is_seen_as_dead():
    worker = Worker.start(_setup_fails, _handle, name="kb-test-broken")
    with pytest.raises(WorkerDied):
        worker.call("a")
    assert not worker.ready and worker.process.exitcode == 3


def _setup_fails() -> None:
    raise SystemExit(3)


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def _settle_with_garbage_and_live_objects() -> tuple[weakref.ref, _Cycle]:
    garbage, live = _Cycle(), _Cycle()
    collected = weakref.ref(garbage)
    del garbage
    settle_heap()
    return collected, live


def _heap_state(state: tuple[weakref.ref, _Cycle], _task) -> tuple[bool, bool, int, int]:
    collected, live = state
    # gc.get_objects() lists the three generations a collection walks, not the frozen objects.
    frozen = gc.is_tracked(live) and all(o is not live for o in gc.get_objects())
    return collected() is None, frozen, gc.get_freeze_count(), gc.get_threshold()[0]


def test_a_settled_heap_keeps_its_objects_out_of_later_collections_but_no_garbage():
    """settle_heap (a warm run worker's, once its imports are done): what lives then is frozen,
    what was garbage then is collected, not frozen with it; young collections are rarer."""
    worker = Worker.start(_settle_with_garbage_and_live_objects, _heap_state, name="kb-test-worker")
    try:
        garbage_collected, live_frozen, frozen, young_threshold = worker.call("state")
    finally:
        worker.stop()
        worker.join()
    assert garbage_collected, "a cycle that was garbage at settle_heap was frozen with the live objects"
    assert live_frozen and frozen > 1000, frozen
    assert young_threshold > 700, "Python's default young-collection threshold"
