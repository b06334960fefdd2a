"""A private network for the cluster tests that run each worker as on a host of its own: a bridge
in the root network namespace holding the "instance host's" address, network namespaces joined to
it by veth pairs, and PostgreSQL and Redis listening only on that address, with passwords. Needs
root; everything made is removed on exit, failing or not.

The subnet is 10.213.N.0/24 (the instance host .1, hosts .11 and up) with 10.213.N+128.0/24 on
the same bridge for hosts outside it; N is claimed by creating the bridge `kbnetN`, so two test
sessions on one machine never share one."""

from __future__ import annotations

import os
import random
import shlex
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .services import MissingServer, throwaway_postgres

PREFIX = "10.213"


class NoNamespaces(Exception):
    """Network namespaces cannot be made here (not root, no `ip` or `unshare`, no privilege)."""


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def _ip_quietly(*args: str) -> None:
    # Cleanup: what is already gone (a veth goes with its namespace) is no error.
    subprocess.run(["ip", *args], capture_output=True, timeout=30)


def check_namespaces() -> None:
    """Raise `NoNamespaces` with the reason unless this process can make network namespaces."""
    if os.geteuid() != 0:
        raise NoNamespaces("network namespaces, veth pairs and bind mounts need root")
    missing = [tool for tool in ("ip", "unshare", "mount") if shutil.which(tool) is None]
    if missing:
        raise NoNamespaces(f"{', '.join(missing)} not found (iproute2, util-linux)")
    # What the test does, each undone at once: a failure past these is the test's, not a privilege.
    probe = f"kbprobe{os.getpid() % 100000}"
    for make, undo in (
        (["unshare", "--net", "--uts", "--mount", "true"], None),
        (["ip", "netns", "add", probe], ["ip", "netns", "del", probe]),
        (["ip", "link", "add", probe, "type", "bridge"], ["ip", "link", "del", probe]),
    ):
        done = subprocess.run(make, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise NoNamespaces(f"`{' '.join(make)}` failed: {done.stderr.strip()}")
        if undo:
            subprocess.run(undo, capture_output=True, timeout=30)


@dataclass
class Network:
    index: int
    bridge: str
    cleanup: ExitStack
    hosts: dict[str, str] = field(default_factory=dict)  # namespace → its address

    @property
    def gateway(self) -> str:
        """The instance host's address, where PostgreSQL and Redis listen."""
        return f"{PREFIX}.{self.index}.1"

    @property
    def subnet(self) -> str:
        return f"{PREFIX}.{self.index}.0/24"

    def add_host(self, name: str, number: int, inside: bool = True) -> str:
        """A network namespace joined to the bridge, with address .`number` in the subnet (or, not
        `inside`, in the one beside it) and its default route through the instance host; returns
        the namespace's name."""
        ns = f"{self.bridge}-{name}"
        third = self.index if inside else self.index + 128
        address = f"{PREFIX}.{third}.{number}"
        _ip_quietly("netns", "del", ns)  # a killed session's: the bridge's name is this session's now
        _ip("netns", "add", ns)
        self.cleanup.callback(_ip_quietly, "netns", "del", ns)
        _ip("link", "add", ns, "type", "veth", "peer", "name", "eth0", "netns", ns)
        self.cleanup.callback(_ip_quietly, "link", "del", ns)
        _ip("link", "set", ns, "master", self.bridge, "up")
        _ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", ns, "route", "add", "default", "via", f"{PREFIX}.{third}.1")
        self.hosts[ns] = address
        return ns

    def free_port(self) -> int:
        with socket.socket() as s:
            s.bind((self.gateway, 0))
            return s.getsockname()[1]


def _taken_subnets() -> set[int]:
    listed = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True, timeout=30).stdout
    return {int(word.split(".")[2]) % 128 for word in listed.split() if word.startswith(f"{PREFIX}.")}


@contextmanager
def private_network() -> Iterator[Network]:
    """A bridge with the instance host's two addresses (the subnet and the one beside it), removed
    on exit with every namespace and veth pair added to it."""
    with ExitStack() as cleanup:
        taken = _taken_subnets()
        for index in random.sample(range(128), 128):
            if index in taken:
                continue
            bridge = f"kbnet{index}"
            if subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], capture_output=True).returncode == 0:
                break
        else:
            raise NoNamespaces(f"no free subnet in {PREFIX}.0.0/16")
        cleanup.callback(_ip_quietly, "link", "del", bridge)
        _ip("addr", "add", f"{PREFIX}.{index}.1/24", "dev", bridge)
        _ip("addr", "add", f"{PREFIX}.{index + 128}.1/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        yield Network(index, bridge, cleanup)


def on_host(ns: str, host: str, data_root: Path, argv: list[str]) -> list[str]:
    """`argv` in network namespace `ns`, with host name `host`, and the data root bind-mounted at
    its path in a mount namespace of its own (as a worker host mounts the shared filesystem: a
    mount point of its own, so a rename into it from elsewhere fails as across NFS)."""
    root = shlex.quote(str(data_root))
    script = f'hostname {host} && mount --bind {root} {root} && exec "$0" "$@"'
    return ["ip", "netns", "exec", ns, "unshare", "--uts", "--mount", "sh", "-c", script, *argv]


@contextmanager
def postgres_on(network: Network, password: str) -> Iterator[tuple[dict[str, str], Path]]:
    """A throwaway cluster listening only on the instance host's address, no Unix socket, and a
    `pg_hba.conf` that lets in password logins (scram-sha-256) from the subnet and nothing else;
    yields the KB_PG_* variables and the server's log, which records every connection's address."""
    with throwaway_postgres(
        network.gateway,
        network.free_port(),
        password,
        pg_hba=f"host all all {network.subnet} scram-sha-256\n",
        options="-c unix_socket_directories='' -c log_connections=on",
    ) as server:
        yield server


@contextmanager
def redis_on(network: Network, password: str) -> Iterator[tuple[str, int]]:
    """A throwaway `redis-server` bound only to the instance host's address, with `requirepass`,
    nothing persisted; yields (address, port)."""
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        raise MissingServer("redis-server is not installed: `make test-services` installs it")
    port = network.free_port()
    server = subprocess.Popen(
        [binary, "--bind", network.gateway, "--port", str(port), "--requirepass", password]
        + ["--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host=network.gateway, port=port, password=password, socket_timeout=2)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
        client.close()
        yield network.gateway, port
    finally:
        server.kill()
        server.wait(timeout=20)
