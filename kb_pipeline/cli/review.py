"""`kb-pipeline review [--host H --allow-remote] [--port N] [--trust-proxy-header H]
[--trust-forwarded-for]`: the review desk (docs/review.md) over the data root;
`kb-pipeline review user …`: its accounts; `kb-pipeline knowledge export [--format json csv tbx
skos gold] [--lang L] [--base-iri IRI] [--out DIR] [--allow-empty]` (alias `kb-pipeline glossary
export`): the active glossary as JSON, CSV, TBX-Basic and SKOS, the approved rules, formulas and
briefs as JSON and CSV, and (gold) the documents marked review complete as the knowledge
yardstick's gold v2 files; `kb-pipeline knowledge score [--doc D]`: the readers' precision and
recall on those documents."""

from __future__ import annotations

import argparse
import errno
import getpass
import ipaddress
import json
import re
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import sqlalchemy as sa

from ..files import write_text_atomically
from ..paths import DataLayout
from ..review.accounts import ROLES, Account, Accounts
from ..review.completion import complete
from ..review.corpus import Corpus
from ..review.expert_entries import ExpertEntries
from ..review.knowledge_export import FORMATS, write_knowledge_export
from ..review.reattach import read_decisions
from ..review.score import gold_documents, ratio, score
from ..review.sessions import Sessions
from ..review.skos import DEFAULT_BASE_IRI
from ..review.store import Decision, DecisionStore
from ..settings import Settings

T = TypeVar("T")


def _accounts(store: DecisionStore) -> Accounts:
    return Accounts(store.engine, Sessions(store.engine))


def _open_store(settings: Settings, layout: DataLayout) -> DecisionStore:
    """The desk's database, its tables made if new; one that cannot be opened (no server there,
    a wrong password, a file that cannot be made) is said in one line, not a traceback."""
    try:
        return DecisionStore.open(settings.review_database_url, layout)
    except sa.exc.DBAPIError as e:
        reason = (str(e.orig).strip().splitlines() or [type(e.orig).__name__])[0]
    except OSError as e:  # SQLite's folder cannot be made
        reason = f"{e.filename}: {e.strerror or e}"
    raise SystemExit(
        "kb-pipeline review: cannot open the review database (KB_REVIEW_DATABASE_URL, else the KB_PG_* "
        f"database, else SQLite under the data root): {reason}"
    )


def review_main(argv: list[str], settings: Settings) -> int:
    if argv[:1] == ["user"]:
        return user_main(argv[1:], settings)
    parser = argparse.ArgumentParser(
        prog="kb-pipeline review",
        description="the review desk: a web app on this machine (`kb-pipeline review user --help`: its accounts)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines reach; refused unless accounts exist (then every request signs in)",
    )
    parser.add_argument(
        "--port", type=int, default=settings.review_port, help=f"port (default {settings.review_port}, KB_REVIEW_PORT)"
    )
    parser.add_argument(
        "--trust-proxy-header",
        metavar="HEADER",
        default=None,
        help="take the signed-in user from this header an authenticating proxy sets (e.g. X-Forwarded-User); "
        "only when the desk is reachable through that proxy alone",
    )
    parser.add_argument(
        "--trust-forwarded-for",
        action="store_true",
        help="take the client's address from X-Forwarded-For of a proxy on this machine (a TLS proxy that sets "
        "it itself; implied by --trust-proxy-header); else the address is the connection's",
    )
    args = parser.parse_args(argv)
    if not _loopback(args.host) and not args.allow_remote:
        print(
            f"kb-pipeline review: refusing --host {args.host}: other machines reach it. Tunnel instead "
            "(ssh -L 8040:127.0.0.1:8040 host), or, once the desk has accounts, pass --allow-remote "
            "(behind TLS: docs/review.md).",
            file=sys.stderr,
        )
        return 2
    layout = DataLayout(settings.data_dir)
    store = _open_store(settings, layout)
    team = _accounts(store).exist()
    if args.allow_remote and not team:
        store.close()
        print(
            "kb-pipeline review: --allow-remote is refused while the desk has no accounts: anyone who reaches it "
            "could record decisions under any name. Add one first: kb-pipeline review user add NAME --role admin",
            file=sys.stderr,
        )
        return 2
    if args.trust_proxy_header and not team:
        store.close()
        print(
            "kb-pipeline review: --trust-proxy-header maps the proxy's users to accounts: add them first",
            file=sys.stderr,
        )
        return 2
    # Bound before the URL is printed: a port taken is said, not announced and then lost.
    try:
        listener = socket.create_server(
            (args.host, args.port), family=socket.AF_INET6 if ":" in args.host else socket.AF_INET
        )
    except OSError as e:
        store.close()
        print(
            f"kb-pipeline review: cannot listen on {_url_host(args.host)}:{args.port}: {e.strerror or e}"
            + (" (another program holds the port: --port N or KB_REVIEW_PORT)" if e.errno == errno.EADDRINUSE else ""),
            file=sys.stderr,
        )
        return 2
    import uvicorn

    from ..review_desk.app import create_app

    hosts = tuple(dict.fromkeys(("127.0.0.1", "localhost", _url_host(args.host))))
    mode = (
        "accounts exist: every request signs in"
        + (f", or is the user the proxy names in {args.trust_proxy_header}" if args.trust_proxy_header else "")
        if team
        else "no accounts: single-expert mode on this machine, no sign-in (kb-pipeline review user add NAME "
        "--role admin to require one)"
    )
    print(
        f"Review desk on http://{_url_host(args.host)}:{args.port}/ — data root {layout.root}, decisions in {store.engine.url!r}"
        f"\n{mode}",
        flush=True,  # before uvicorn takes over: a service's log shows the mode at once
    )
    try:
        app = create_app(
            layout,
            store,
            hosts=hosts,
            proxy_header=args.trust_proxy_header,
            trust_forwarded_for=args.trust_forwarded_for,
        )
        # The client's address and scheme from X-Forwarded-For/-Proto are the desk's own to take
        # (app.py): uvicorn's would let any local process claim any address to the throttle.
        config = uvicorn.Config(app, log_level="warning", proxy_headers=False)
        uvicorn.Server(config).run(sockets=[listener])
    finally:
        listener.close()
        store.close()
    return 0


def _url_host(host: str) -> str:
    """The host as a URL and a Host header write it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def user_main(argv: list[str], settings: Settings) -> int:
    parser = argparse.ArgumentParser(
        prog="kb-pipeline review user",
        description="the review desk's accounts: once one exists, every request to the desk signs in",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="a new account (password prompted, or --password-stdin)")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, required=True)
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    add.add_argument(
        "--no-password", action="store_true", help="no password: signs in only through --trust-proxy-header"
    )
    sub.add_parser("list", help="every account, its role and state")
    disable = sub.add_parser("disable", help="an account signs in no more (its decisions keep its name)")
    disable.add_argument("name")
    enable = sub.add_parser("enable", help="a disabled account signs in again (its old sessions and tokens stay ended)")
    enable.add_argument("name")
    set_role = sub.add_parser("set-role", help="change an account's role")
    set_role.add_argument("name")
    set_role.add_argument("role", choices=ROLES)
    reset = sub.add_parser("reset-password", help="a new password (its sessions end)")
    reset.add_argument("name")
    reset.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    token = sub.add_parser("token", help="a new API token for the account, printed once (--revoke: end all its tokens)")
    token.add_argument("name")
    token.add_argument("--revoke", action="store_true", help="revoke every token of the account")
    args = parser.parse_args(argv)
    store = _open_store(settings, DataLayout(settings.data_dir))
    accounts = _accounts(store)
    try:
        if args.command == "add":
            account = accounts.add(args.name, args.role, None if args.no_password else _password(args.password_stdin))
            print(f"added {account.name} ({account.role})")
        elif args.command == "list":
            for a in accounts.all():
                state = f"disabled {a.disabled_at}" if a.disabled_at else f"last sign-in {a.last_login_at or 'never'}"
                print(f"{a.name}\t{a.role}\tcreated {a.created_at}\t{state}")
        elif args.command == "disable":
            print(f"disabled {accounts.disable(args.name).name}")
        elif args.command == "enable":
            print(f"enabled {accounts.enable(args.name).name}")
        elif args.command == "set-role":
            account = accounts.set_role(args.name, args.role)
            print(f"{account.name} is now {account.role}{_stays_disabled(account)}")
        elif args.command == "reset-password":
            account = accounts.reset_password(args.name, _password(args.password_stdin))
            print(f"new password for {account.name}{_stays_disabled(account)}")
        elif args.revoke:
            print(f"revoked {accounts.revoke_tokens(args.name)} token(s) of {args.name}")
        else:
            print(accounts.issue_token(args.name))
    except ValueError as e:  # AccountError, or a password too short
        print(f"kb-pipeline review user {args.command}: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


def _stays_disabled(account: Account) -> str:
    return "" if account.enabled else f" (still disabled: kb-pipeline review user enable {account.name})"


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    password = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != password:
        raise ValueError("the two passwords differ")
    return password


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# BCP 47's shape (language, then subtags): what xml:lang and an RDF literal's tag accept.
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")


def _language_tag(value: str) -> str:
    if not _LANGUAGE_TAG.fullmatch(value):
        raise argparse.ArgumentTypeError(f"not a BCP 47 language tag: {value!r} (e.g. en, id, de-CH)")
    return value


# An absolute IRI's scheme, and an end after which a term_id reads as the IRI's last part.
_BASE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*[/#:]")


def _base_iri(value: str) -> str:
    if not _BASE_IRI.fullmatch(value):
        raise argparse.ArgumentTypeError(
            f"not a base IRI: {value!r} (an absolute IRI ending in /, # or :, e.g. https://kb.example.org/terms/)"
        )
    return value


def knowledge_main(argv: list[str], settings: Settings, command: str = "knowledge") -> int:
    """`kb-pipeline knowledge export`; `command` "glossary" for its older name, the same command."""
    parser = argparse.ArgumentParser(
        prog=f"kb-pipeline {command}", description="the active knowledge: the approved entries of every kind"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser(
        "export",
        help="write the approved knowledge: json and csv = active_glossary.* (terms) and active_knowledge.* "
        "(rules, formulas, briefs); tbx = active_glossary.tbx (TBX-Basic); skos = active_glossary.ttl (SKOS)",
    )
    export.add_argument("--out", type=Path, default=None, help="folder (default: <data root>/review)")
    export.add_argument(
        "--format",
        nargs="+",
        action="extend",
        choices=(*FORMATS, "gold"),
        default=None,
        help="one or more of json csv tbx skos, the option repeatable (default: all four); gold: the documents "
        "marked review complete as the knowledge yardstick's gold v2 files, gold/<doc_id>.json",
    )
    export.add_argument(
        "--lang",
        type=_language_tag,
        default="und",
        help="the documents' language for the TBX and the SKOS labels (BCP 47; default und: undetermined)",
    )
    export.add_argument(
        "--base-iri",
        type=_base_iri,
        default=DEFAULT_BASE_IRI,
        help=f"the SKOS IRIs' prefix: concept <base><term_id>, scheme <base>glossary (default {DEFAULT_BASE_IRI})",
    )
    export.add_argument(
        "--allow-empty",
        action="store_true",
        help="write the files even when nothing is approved (else: say so and exit 1)",
    )
    score_parser = sub.add_parser(
        "score",
        help="the readers' precision and recall on the documents and kinds a reviewer marked review complete",
    )
    score_parser.add_argument("--doc", default=None, help="one document (its doc_id)")
    args = parser.parse_args(argv)
    layout = DataLayout(settings.data_dir)
    if args.command == "score":
        return _score(settings, layout, args.doc)
    formats = args.format or FORMATS
    if "gold" in formats:
        if len(set(formats)) > 1:  # gold is the desk's labels, not the approved knowledge: apart
            print(f"kb-pipeline {command} export: --format gold is written on its own", file=sys.stderr)
            return 2
        return _gold_export(settings, layout, args.out or layout.review, command)
    out = args.out or layout.review
    if out.exists() and not out.is_dir():
        print(f"kb-pipeline {command} export: --out {out} is a file, not a folder", file=sys.stderr)
        return 2
    # A reader: no database made or altered by an export (none yet reads as no decisions).
    store = DecisionStore.open(settings.review_database_url, layout, create=False)
    try:
        written = write_knowledge_export(
            store,
            Corpus(layout, ExpertEntries(store)),
            out,
            formats,
            args.lang,
            args.base_iri,
            allow_empty=args.allow_empty,
        )
    except OSError as e:  # a folder that cannot be made or written (permissions, a file in the path)
        print(f"kb-pipeline {command} export: cannot write under {out}: {e.strerror or e}", file=sys.stderr)
        return 1
    except ValueError as e:  # nothing to export, or a text no TBX can hold
        print(f"kb-pipeline {command} export: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    orphaned = sum(e.orphaned for e in written.entries)
    no_tbx = " (no TBX: no approved term)" if "tbx" in written.files and not written.files["tbx"] else ""
    print(
        f"{len(written.entries)} approved entries ({orphaned} orphaned), {len(written.knowledge)} approved rules, "
        f"formulas, briefs → {', '.join(map(str, written.paths))}{no_tbx}"
    )
    return 0


def _labels(
    settings: Settings, layout: DataLayout, read: Callable[[Corpus, dict[str, Decision], set[tuple[str, str]]], T]
) -> T:
    """`read` of the decisions (re-attachments applied, not recorded) and the review-complete
    marks, with the store open while it reads (the corpus reads the experts' entries from it)."""
    store = DecisionStore.open(settings.review_database_url, layout, create=False)
    try:
        corpus = Corpus(layout, ExpertEntries(store))
        return read(corpus, read_decisions(corpus, store), complete(store))
    finally:
        store.close()


def _score(settings: Settings, layout: DataLayout, doc: str | None) -> int:
    scores = _labels(settings, layout, lambda corpus, decisions, marked: score(corpus, decisions, marked, doc))
    if not scores.documents:
        where = f"document {doc!r}" if doc else f"document under {layout.knowledge}"
        print(
            f"kb-pipeline knowledge score: no {where} is marked review complete (the desk's progress page)",
            file=sys.stderr,
        )
        return 1
    print(
        f"{'doc_id':40s} {'kind':8s} {'approved':>8s} {'edited':>6s} {'rejected':>8s} {'added':>5s} "
        f"{'pending':>7s}  {'precision':14s} recall"
    )
    for s in [*scores.documents, *scores.totals]:
        print(
            f"{s.doc_id:40s} {s.kind:8s} {s.approved:8d} {s.edited:6d} {s.rejected:8d} {s.added:5d} "
            f"{s.pending:7d}  {ratio(s.precision):14s} {ratio(s.recall)}"
        )
    return 0


def _gold_export(settings: Settings, layout: DataLayout, out: Path, command: str) -> int:
    gold = _labels(settings, layout, gold_documents)
    if not gold:
        print(f"kb-pipeline {command} export: no document is marked review complete: no gold to write", file=sys.stderr)
        return 1
    try:
        for doc_id, document in gold.items():
            write_text_atomically(
                out / "gold" / f"{doc_id}.json", json.dumps(document, ensure_ascii=False, indent=2) + "\n"
            )
    except OSError as e:
        print(f"kb-pipeline {command} export: cannot write under {out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"{len(gold)} gold v2 files → {out / 'gold'}")
    return 0
