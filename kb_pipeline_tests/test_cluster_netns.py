"""The Celery cluster closer to separate hosts than test_celery_cluster.py's loopback: each
`kb-pipeline worker` runs in a network namespace of its own (`ip netns`: its own address on a
veth pair joined to a bridge the test makes, 10.213.N.0/24), with a host name of its own and the
shared data root bind-mounted at its path in a mount namespace of its own (`unshare --uts
--mount`). PostgreSQL and Redis listen only on the instance host's address on that bridge, with
passwords (scram-sha-256, `requirepass`), and `pg_hba.conf` lets in that subnet only. The daemon
and `kb-pipeline ingest` stay in the root namespace, as on the instance's host.

It asserts what the loopback test asserts of `ingest` — runs on both workers, never more MinerU
parses at once across them than the `mineru` pool's limit, a worker killed with SIGKILL mid-parse
and every document still ingested, no run left unfinished, the pool's slots free, the chunks
those of a one-machine run — and: a worker started with a wrong Redis password, and one on a
host outside `pg_hba.conf`'s subnet, each exit at once with a one-line reason; the servers saw
connections from the test's addresses only, the workers' among them.

Four two-page PDFs, one pool process per worker and a pool limit of 1: parses across the two
workers still wait for the one slot. Needs root; skipped, saying why, where network namespaces
cannot be made. Everything it starts or makes is killed or removed at the end, failing or not.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.defs.run_timeline import StepSpan, peak_concurrency
from kb_pipeline.runs.celery import WORKER_TAG
from kb_pipeline_tests.samples import long_pdf

from .cluster_stack import (
    PARSE,
    assert_ingest_survived_a_killed_worker,
    assert_same_chunks,
    kb,
    kill_mid_parse,
    wait_until_slots_free,
)
from .conftest import REPO_ROOT
from .deployment import make_deployment
from .netns import NoNamespaces, check_namespaces, on_host, postgres_on, private_network, redis_on
from .services import MissingServer, Stack

pytestmark = [pytest.mark.slow, pytest.mark.services]
DOCS = [f"doc{i}" for i in range(4)]
WORKERS = {"worker-a": 11, "worker-b": 12}  # host name → its address's last byte
POOL_LIMIT = 1


@pytest.fixture
def network():
    try:
        check_namespaces()
        with private_network() as network:
            yield network
    except NoNamespaces as e:
        pytest.skip(f"network namespaces cannot be made here: {e}")


@dataclass(frozen=True)
class Services:
    postgres: dict[str, str]  # the KB_PG_* variables
    postgres_log: Path
    redis_host: str
    redis_port: int
    redis_password: str

    @property
    def broker(self) -> str:
        return f"redis://:{self.redis_password}@{self.redis_host}:{self.redis_port}/0"


@pytest.fixture
def services(network):
    """PostgreSQL and Redis on the instance host's address of `network`, each with a password."""
    redis_password = secrets.token_hex(12)
    try:
        with (
            postgres_on(network, secrets.token_hex(12)) as (postgres, log),
            redis_on(network, redis_password) as (host, port),
        ):
            yield Services(postgres, log, host, port, redis_password)
    except MissingServer as e:
        pytest.fail(str(e))


def _refusals(stack: Stack, procs: dict[str, subprocess.Popen], since: float, seconds: float = 120) -> dict:
    """Workers that must refuse to start: each exited non-zero within `seconds` of `since`, their
    start. Name → (seconds it took, the lines it printed)."""
    took: dict[str, float] = {}
    while len(took) < len(procs):
        for name, proc in procs.items():
            if name not in took and proc.poll() is not None:
                took[name] = round(time.monotonic() - since, 1)
                assert proc.returncode != 0, stack.log(name)
        running = [name for name in procs if name not in took]
        assert time.monotonic() < since + seconds, f"still running {seconds} s after their start: {running}"
        time.sleep(0.1)
    return {name: (took[name], [line for line in stack.log(name).splitlines() if line.strip()]) for name in procs}


def _wait_until_ready(stack: Stack, hosts: list[str], seconds: float = 300) -> None:
    """Celery's "ready." line in each worker's log: its pool is up and it consumes the queue."""
    deadline = time.monotonic() + seconds
    for host in hosts:
        while f"kb@{host} ready." not in (stack.logs / f"{host}.log").read_text():
            assert stack.procs[host].poll() is None, stack.log(host)
            assert time.monotonic() < deadline, stack.log(host)
            time.sleep(0.5)


def test_workers_in_network_namespaces_reach_postgres_and_redis_over_the_network(
    tmp_path, network, services, monkeypatch
):
    started = time.monotonic()
    namespaces = {host: network.add_host(host[-1], number) for host, number in WORKERS.items()}
    outsider = network.add_host("x", 2, inside=False)
    subnet = ipaddress.ip_network(network.subnet)
    made = {network.gateway, *network.hosts.values()}  # every address the test made
    redis_host, redis_port, redis_password = services.redis_host, services.redis_port, services.redis_password
    config = (REPO_ROOT / "dagster.celery.yaml").read_text()
    config = config.replace("default_limit: 2", f"default_limit: {POOL_LIMIT}")
    # One pool process per worker (KB_CELERY_CONCURRENCY below), and, as docs/SCALING.md advises,
    # no more runs at once than that: a killed worker holds no run it had taken but not started,
    # so the shipped start timeout stays (the loopback test's two pool processes need 60 s).
    config = config.replace("max_concurrent_runs: 4", f"max_concurrent_runs: {len(WORKERS)}")
    deployment = make_deployment(tmp_path, config)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in DOCS:
        # As in the loopback test: a table across two pages (MinerU renders it in child processes
        # of the worker's pool process), a title of its own each.
        long_pdf(inbox / f"{name}.pdf", 2, lines_per_page=30, seams={1: "table"}, title=f"Pump handbook {name}")
    broker = services.broker
    env = {
        **os.environ,
        **deployment.env,
        **services.postgres,
        "PYTHONPATH": str(REPO_ROOT),
        "KB_CELERY_BROKER_URL": broker,
        "KB_CELERY_CONCURRENCY": "1",
        "KB_LLM": "off",
    }
    for key in ("KB_CELERY_BROKER_URL", "KB_LLM", *deployment.env, *services.postgres):
        monkeypatch.setenv(key, env[key])
    stack = Stack(env, tmp_path)

    def start_worker(host: str, name: str | None = None, **kwargs) -> subprocess.Popen:
        return stack.start(name or host, on_host(namespaces[host], host, deployment.data, kb("worker")), **kwargs)

    try:
        one_machine = stack.start(
            "one-machine",
            kb("run", "--input", str(inbox), "--out", str(tmp_path / "alone")),
            env={"KB_DATA_DIR": str(tmp_path / "alone-data"), "KB_PARSE_WORKERS": "1"},
        )
        with dg.DagsterInstance.get() as instance:
            for pool in ("mineru", "llm"):  # created before two runs race to create them (test_postgres.py)
                instance.event_log_storage.initialize_concurrency_limit_to_default(pool)
        claimed = subprocess.run(kb("shared-root"), env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        assert claimed.returncode == 0, claimed.stderr[-2000:]
        stack.start("daemon", [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w", "workspace.yaml"])
        for host in WORKERS:
            start_worker(host)
        # Launched while the workers start (they take the runs once up), as in the loopback test.
        ingest_started = time.monotonic()
        ingest = stack.start("ingest", kb("ingest", "--input", str(inbox)))
        killed: list[StepSpan] = []

        def kill_worker_b_mid_parse() -> None:
            with dg.DagsterInstance.get() as instance:
                span = kill_mid_parse(stack, instance, {WORKER_TAG: "kb@worker-b"}, lambda: ingest.poll() is not None)
            if span:
                killed.append(span)
                start_worker("worker-b")  # as a supervisor would, on its host

        killer = threading.Thread(target=kill_worker_b_mid_parse, daemon=True)
        killer.start()

        # Refused at once, in one line, meanwhile: a wrong Redis password on a host of the subnet,
        # and the right credentials from a host outside it.
        wrong = broker.replace(redis_password, "not-the-password")
        refused_at = time.monotonic()
        refused = {
            "wrong-password": start_worker("worker-a", "wrong-password", env={"KB_CELERY_BROKER_URL": wrong}),
            "outsider": stack.start("outsider", on_host(outsider, "outsider", deployment.data, kb("worker"))),
        }
        refusals = _refusals(stack, refused, refused_at)
        assert refusals["wrong-password"][1] == [
            f"error: cannot connect to the Celery broker at redis://:**@{redis_host}:{redis_port}/0: invalid "
            "username-password pair or user is disabled. (the run launcher's config in $DAGSTER_HOME/dagster.yaml, "
            "KB_CELERY_*)"
        ], refusals
        [outsider_error] = refusals["outsider"][1]
        assert outsider_error.startswith("error: cannot connect to the Dagster instance's database: "), outsider_error
        assert f'no pg_hba.conf entry for host "{network.hosts[outsider]}"' in outsider_error, outsider_error

        ingest.wait(timeout=420)
        killer.join(timeout=10)
        output = stack.log("ingest")
        assert ingest.returncode == 0, output + stack.log("daemon")[-1500:]
        assert f"{len(DOCS)} ingested, 0 unchanged, 0 failed" in output, output
        assert killed, "worker-b never parsed: " + stack.log("worker-b")
        ingest_seconds = time.monotonic() - ingest_started

        with dg.DagsterInstance.get() as instance:
            spans = assert_ingest_survived_a_killed_worker(instance, killed[0].run_id, DOCS, WORKERS)
            parses = [span for span in spans if span.step_key == PARSE] + killed
            peak = peak_concurrency(parses, slack=0.25)
            assert peak <= POOL_LIMIT, f"{peak} MinerU parses overlapped; the `mineru` pool allows {POOL_LIMIT}"
            wait_until_slots_free(instance)

        # Both workers up (worker-b started again), each seeing the data root as a mount of its own
        # at the shared path.
        _wait_until_ready(stack, list(WORKERS))
        for host in WORKERS:
            mounts = Path(f"/proc/{stack.procs[host].pid}/mountinfo").read_text().splitlines()
            assert any(line.split()[4] == str(deployment.data) for line in mounts), mounts
        # Traffic stayed on the test's addresses: every connection Postgres logged, and every client
        # Redis has now, came from one of them, the workers' own among them.
        redis_clients = _redis_client_addresses(redis_host, redis_port, redis_password)
        pg_clients = set(re.findall(r"connection received: host=([0-9a-f.:]+)", services.postgres_log.read_text()))
        for server, clients in (("PostgreSQL", pg_clients), ("Redis", redis_clients)):
            assert clients <= made, (server, clients - made)
            assert {network.hosts[namespaces[host]] for host in WORKERS} <= clients, (server, clients)
        assert network.hosts[outsider] in pg_clients  # refused by pg_hba.conf, not by the network
        assert all(ipaddress.ip_address(address) in subnet for address in redis_clients), redis_clients
        cluster_seconds = time.monotonic() - started

        assert one_machine.wait(timeout=300) == 0, stack.log("one-machine")
        assert_same_chunks(deployment.data, tmp_path / "alone-data", DOCS)
    finally:
        stack.close()
    print(
        f"\nnetns: {len(DOCS)} documents on {len(WORKERS)} workers in network namespaces, peak {peak} parses, "
        f"killed worker-b mid-parse ({ingest_seconds:.1f} s ingest), refused in "
        f"{refusals['wrong-password'][0]} s (wrong Redis password) and {refusals['outsider'][0]} s (outside "
        f"pg_hba.conf's subnet), {cluster_seconds:.1f} s cluster, "
        f"{time.monotonic() - started:.1f} s in all"
    )


def _redis_client_addresses(host: str, port: int, password: str) -> set[str]:
    """The addresses of Redis's clients right now, but this one's own look."""
    import redis

    client = redis.Redis(host=host, port=port, password=password, socket_timeout=5)
    try:
        return {
            entry["addr"].rsplit(":", 1)[0] for entry in client.client_list() if entry["id"] != str(client.client_id())
        }
    finally:
        client.close()
