"""`kb-pipeline review [--host H --allow-remote] [--port N]`: the review desk (docs/review.md) over the data root;
`kb-pipeline glossary export [--out DIR]`: the active glossary as JSON and CSV."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from ..paths import DataLayout
from ..review_desk.corpus import Corpus
from ..review_desk.export import active_entries, write_active_glossary
from ..review_desk.store import DecisionStore
from ..settings import Settings


def review_main(argv: list[str], settings: Settings) -> int:
    parser = argparse.ArgumentParser(
        prog="kb-pipeline review", description="the review desk: a web app on this machine"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines reach: the desk has no login, so anyone who reaches it can decide",
    )
    parser.add_argument(
        "--port", type=int, default=settings.review_port, help=f"port (default {settings.review_port}, KB_REVIEW_PORT)"
    )
    args = parser.parse_args(argv)
    if not _loopback(args.host) and not args.allow_remote:
        print(
            f"kb-pipeline review: refusing --host {args.host}: the desk has no login, so anyone who reaches it can "
            "record decisions under any name. Tunnel instead (ssh -L 8040:127.0.0.1:8040 host), or pass "
            "--allow-remote to accept that.",
            file=sys.stderr,
        )
        return 2
    import uvicorn

    from ..review_desk.app import create_app

    layout = DataLayout(settings.data_dir)
    store = DecisionStore.open(settings.review_database_url, layout)
    hosts = tuple(dict.fromkeys(("127.0.0.1", "localhost", args.host)))
    print(
        f"Review desk on http://{args.host}:{args.port}/ — data root {layout.root}, decisions in {store.engine.url!r}"
    )
    try:
        uvicorn.run(create_app(layout, store, hosts=hosts), host=args.host, port=args.port, log_level="warning")
    finally:
        store.close()
    return 0


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def glossary_main(argv: list[str], settings: Settings) -> int:
    parser = argparse.ArgumentParser(prog="kb-pipeline glossary", description="the active glossary (approved entries)")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="write active_glossary.json and active_glossary.csv")
    export.add_argument("--out", type=Path, default=None, help="folder (default: <data root>/review)")
    args = parser.parse_args(argv)
    layout = DataLayout(settings.data_dir)
    store = DecisionStore.open(settings.review_database_url, layout)
    try:
        entries = active_entries(store, Corpus(layout))
    finally:
        store.close()
    paths = write_active_glossary(entries, args.out or layout.review)
    orphaned = sum(e.orphaned for e in entries)
    print(f"{len(entries)} approved entries ({orphaned} orphaned) → {', '.join(map(str, paths))}")
    return 0
