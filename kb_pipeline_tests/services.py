"""Real servers on loopback for the tests and benchmarks that need them: a throwaway PostgreSQL
cluster, a throwaway `redis-server`, and a `Stack` of started processes that are all killed at the
end. A missing server binary is installed when running as root (as `make test-services` does),
else the caller fails saying how to get it: nothing skips."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .deployment import REPO_ROOT, free_port

_APT = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {}"


class MissingServer(Exception):
    """A server's binaries are not installed and cannot be installed here."""


def _install(package: str) -> None:
    command = _APT.format(package)
    if os.geteuid() != 0:
        raise MissingServer(f"{package} is not installed and this is not root; install it: sudo sh -c '{command}'")
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise MissingServer(f"installing {package} failed: {done.stderr[-2000:]}")


def pg_bin() -> Path:
    """PostgreSQL's server binaries (pg_ctl, initdb), installed when missing."""

    def find() -> Path | None:
        found = sorted(
            Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
            key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
        )
        if found:
            return found[-1].parent
        on_path = shutil.which("pg_ctl")
        return Path(on_path).resolve().parent if on_path and shutil.which("initdb") else None

    if find() is None:
        _install("postgresql")
    found = find()
    if found is None:
        raise MissingServer("postgresql is installed but no pg_ctl was found under /usr/lib/postgresql/*/bin")
    return found


@contextmanager
def postgres_server() -> Iterator[dict[str, str]]:
    """A throwaway cluster listening only on 127.0.0.1 with a `kb_dagster` database; yields the
    KB_PG_* variables dagster.postgres.yaml and dagster.celery.yaml read."""
    with throwaway_postgres("127.0.0.1", free_port(), "kb-secret") as (settings, _log):
        yield settings


@contextmanager
def throwaway_postgres(
    host: str, port: int, password: str, pg_hba: str | None = None, options: str = ""
) -> Iterator[tuple[dict[str, str], Path]]:
    """A cluster listening only on `host` (password logins, role `kb`; `pg_hba`: the whole of its
    pg_hba.conf instead of initdb's; `options`: more server settings) with a `kb_dagster`
    database; yields the KB_PG_* variables and the server's log. Stopped and removed after."""
    import psycopg2

    bin_dir = pg_bin()
    as_root = os.geteuid() == 0
    # The server refuses to run as root: as root it runs as the `postgres` user, in a dir it owns.
    root = Path(tempfile.mkdtemp(prefix="kb-pg-"))
    run_as = ["runuser", "-u", "postgres", "--"] if as_root else []
    user = pwd.getpwnam("postgres") if as_root else None
    pwfile = root / "pw"
    pwfile.write_text(password)
    if user is not None:
        for path in (root, pwfile):
            os.chown(path, user.pw_uid, user.pw_gid)
    data, log = root / "data", root / "server.log"
    try:
        initdb = subprocess.run(
            [*run_as, str(bin_dir / "initdb"), "-D", str(data), "-U", "kb", f"--pwfile={pwfile}"]
            + ["--auth=scram-sha-256", "-E", "UTF8", "--no-sync"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert initdb.returncode == 0, initdb.stderr[-2000:]
        if pg_hba is not None:
            (data / "pg_hba.conf").write_text(pg_hba)
        # Its Unix socket in its own dir (`options` may turn it off).
        settings = f"-c listen_addresses={host} -p {port} -k {root} -c fsync=off -c max_connections=200 {options}"
        start = subprocess.run(
            [*run_as, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", settings]
            + ["-w", "-t", "60", "start"],
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert start.returncode == 0, start.stdout + start.stderr + (log.read_text() if log.exists() else "")
        connection = psycopg2.connect(
            host=host, port=port, user="kb", password=password, dbname="postgres", connect_timeout=10
        )
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("CREATE DATABASE kb_dagster")
        connection.close()
        yield (
            {
                "KB_PG_HOST": host,
                "KB_PG_PORT": str(port),
                "KB_PG_USER": "kb",
                "KB_PG_PASSWORD": password,
                "KB_PG_DB": "kb_dagster",
            },
            log,
        )
    finally:
        subprocess.run(
            [*run_as, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway `redis-server` on a free loopback port, nothing persisted; yields its URL."""
    if shutil.which("redis-server") is None:
        _install("redis-server")
    port = free_port()
    server = subprocess.Popen(
        [shutil.which("redis-server") or "redis-server", "--port", str(port), "--bind", "127.0.0.1"]
        + ["--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.kill()
        server.wait(timeout=20)


class Stack:
    """Processes started for a test or a benchmark, each the leader of its own process group,
    its output in `<logs>/<name>.log`: ended with SIGKILL to the whole group (a daemon's code
    server, a worker's pool processes) by `kill` or, for all that are left, `close`."""

    def __init__(self, env: dict[str, str], logs: Path):
        self.env, self.logs = env, logs
        self.procs: dict[str, subprocess.Popen] = {}

    def start(
        self, name: str, argv: list[str], host: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        """`argv` in the stack's environment (with `env` over it), logged to <name>.log."""
        if host is not None:  # its own host name, as on a machine of its own (needs root)
            argv = ["unshare", "--uts", "sh", "-c", f'hostname {host} && exec "$0" "$@"', *argv]
        with (self.logs / f"{name}.log").open("w") as log:
            proc = subprocess.Popen(
                argv,
                env={**self.env, **(env or {})},
                cwd=REPO_ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs[name] = proc
        return proc

    def kill(self, name: str) -> None:
        proc = self.procs.pop(name)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text()[-3000:]

    def close(self) -> None:
        for name in list(self.procs):
            self.kill(name)
