"""The review desk with accounts (issue 28, docs/review.md "A team's desk"): sign-in, sessions,
roles, API tokens, the sign-in throttle, the proxy header, and an audit trail naming accounts.
On the shipped Indonesian standard parsed by the real MinerU (once per module) and extracted by
`kb-pipeline extract`; the security checks against `kb-pipeline review` on a real loopback
port, the browser signing in through the page."""

from __future__ import annotations

import io
import re
import sqlite3
import sys

import httpx
import pytest
import sqlalchemy as sa
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.paths import DataLayout
from kb_pipeline.review.store import DecisionStore, approved_decisions, default_path
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_HEADER

from .browser import Browser
from .deployment import review_desk
from .test_review_desk import _extract, parsed  # noqa: F401 (parsed: the module-scoped parse fixture)

PASSWORDS = {
    "Ada": "ada-admin-pass-1",
    "Rina": "rina-reviews-2",
    "Vic": "vic-only-reads-3",
    "<b>Budi & co</b>": "budi-escaped-4",
}
ROLES = {"Ada": "admin", "Rina": "reviewer", "Vic": "viewer", "<b>Budi & co</b>": "reviewer"}
_CSRF_IN_PAGE = re.compile(r'name="csrf_token" value="([^"]+)"')


def _user(monkeypatch, *argv: str, stdin: str = "") -> int:
    """`kb-pipeline review user ARGV…`, `stdin` its standard input."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return cli_main(["review", "user", *argv])


@pytest.fixture
def team(layout, parsed, monkeypatch):  # noqa: F811
    """A data root with the standard extracted and four accounts, made by the CLI."""
    terms = _extract(layout, parsed)
    for name, password in PASSWORDS.items():
        assert _user(monkeypatch, "add", name, "--role", ROLES[name], "--password-stdin", stdin=password + "\n") == 0
    store = DecisionStore.open(None, layout)
    yield layout, store, terms
    store.close()


@pytest.fixture
def server(team, tmp_path):
    """`kb-pipeline review` on a free loopback port over the team's data root (KB_DATA_DIR, which
    the `layout` fixture sets), its output in a log file."""
    log = tmp_path / "desk.log"
    with review_desk(log) as base:
        yield base, log


def _client(base: str) -> httpx.Client:
    return httpx.Client(base_url=base, follow_redirects=False, timeout=10)


def _sign_in(client: httpx.Client, name: str, password: str | None = None) -> str:
    """Signs `client` in through the sign-in form; the session's CSRF token."""
    token = _CSRF_IN_PAGE.search(client.get("/signin").text)
    assert token, "the sign-in page carries a CSRF token"
    answer = client.post(
        "/signin",
        data={"name": name, "password": password or PASSWORDS[name], "csrf_token": token.group(1), "next": "/"},
    )
    assert answer.status_code == 303, answer.text
    return client.get("/api/csrf-token").json()["token"]


@pytest.mark.services
def test_no_route_but_sign_in_and_health_answers_without_a_session(team, server):
    layout, store, terms = team
    base, log = server
    assert "accounts exist: every request signs in" in log.read_text()
    term_id = terms["PA"].term_id
    routes = sorted(
        (method, route.path)
        for route in iter_route_contexts(create_app(layout, store).routes)
        for method in route.methods or ()
        if method != "HEAD"
    )
    open_routes = {("GET", "/health"), ("GET", "/signin"), ("POST", "/signin"), ("POST", "/signout")}
    assert open_routes <= set(routes) and ("GET", "/api/docs") in routes and ("POST", "/users/add") in routes
    with _client(base) as stranger, _client(base) as forger:
        forger.cookies.set("kb_session", "forged-" + "x" * 40)
        # The sign-in page's token passes the CSRF check, so what refuses a write is the sign-in check.
        anonymous_token = _CSRF_IN_PAGE.search(stranger.get("/signin").text).group(1)  # type: ignore[union-attr]
        for method, path in routes:
            if (method, path) in open_routes:
                continue
            url = re.sub(r"\{[^}]+\}", term_id, path)
            for client in (stranger, forger):
                for headers in ({}, {CSRF_HEADER: anonymous_token}, {"Authorization": "Bearer kbr_forged"}):
                    answer = client.request(method, url, headers=headers, data={"entry_id": term_id})
                    if path.startswith("/api/"):
                        assert answer.status_code in (401, 403), (method, path, headers, answer.status_code)
                    else:
                        assert answer.status_code in (303, 403) and "PA" not in answer.text, (method, path, headers)
                        if answer.status_code == 303:
                            assert answer.headers["location"].startswith("/signin?next="), (method, path)
        assert stranger.get("/api/queue").status_code == 401
        assert stranger.get("/api/queue").headers["www-authenticate"] == "Bearer"
        assert stranger.get("/entries/x?y=1").headers["location"] == "/signin?next=/entries/x%3Fy%3D1"
        assert stranger.get("/health").json() == {"status": "ok"}
    assert store.latest() == {}


@pytest.mark.services
def test_roles_sessions_csrf_and_the_audit_trail(team, server, parsed):  # noqa: F811
    layout, store, terms = team
    base, log = server
    pa, qty = terms["PA"], terms["Qty"]
    decision = {"term_id": pa.term_id, "decision": "approve", "reviewer": "Mallory"}
    with _client(base) as viewer, _client(base) as reviewer, _client(base) as admin:
        viewer_token = _sign_in(viewer, "Vic")
        # A viewer reads the queue and entries, and is refused a decision on the server.
        assert len(viewer.get("/api/queue").json()) == 3
        page = viewer.get(f"/entries/{pa.term_id}").text
        assert 'id="approve"' not in page and 'id="read-only"' in page and 'id="users-link"' not in page
        assert viewer.post("/api/decisions", json=decision, headers={CSRF_HEADER: viewer_token}).status_code == 403
        form = {"entry_id": pa.term_id, "decision": "approve", "csrf_token": viewer_token}
        assert viewer.post("/decisions", data=form).status_code == 403
        assert store.latest() == {}

        # The session cookie: HttpOnly, SameSite, an expiry; not Secure over plain http.
        before = reviewer.cookies.get("kb_session")
        token = reviewer.get("/signin").text
        signed = reviewer.post(
            "/signin",
            data={"name": "Rina", "password": PASSWORDS["Rina"], "csrf_token": _CSRF_IN_PAGE.search(token).group(1)},  # type: ignore[union-attr]
        )
        cookie = signed.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Max-Age=" in cookie and "Secure" not in cookie
        first_session = reviewer.cookies["kb_session"]
        assert before is None and first_session
        reviewer_token = reviewer.get("/api/csrf-token").json()["token"]
        assert reviewer_token != viewer_token

        # CSRF: missing, or another session's, is refused; the reviewer's own is taken.
        assert reviewer.post("/api/decisions", json=decision).status_code == 403
        assert reviewer.post("/api/decisions", json=decision, headers={CSRF_HEADER: viewer_token}).status_code == 403
        made = reviewer.post("/api/decisions", json=decision, headers={CSRF_HEADER: reviewer_token})
        assert made.status_code == 200, made.text
        # The account is recorded, never the typed label; and the document version.
        recorded = store.latest()[pa.term_id]
        assert recorded.reviewer == "Rina" and recorded.account_id is not None
        assert recorded.doc_version == parsed.content_hash and len(recorded.doc_version) == 64
        history = reviewer.get(f"/entries/{pa.term_id}").text
        assert "Mallory" not in history and '<span class="who">Rina</span>' in history
        assert f"on document version {parsed.content_hash[:12]}" in history
        assert reviewer.get(f"/api/entries/{pa.term_id}").json()["history"][0]["account_id"] == recorded.account_id

        # A reviewer cannot reach account management.
        assert reviewer.get("/users").status_code == 403
        add = {"name": "Eve", "role": "admin", "password": "eve-wants-in-5", "csrf_token": reviewer_token}
        assert reviewer.post("/users/add", data=add).status_code == 403
        assert 'id="users-link"' not in reviewer.get("/").text

        # Signing in again rotates the id and ends the old session server-side.
        _sign_in(reviewer, "Rina")
        assert reviewer.cookies["kb_session"] != first_session
        with _client(base) as replay:
            replay.cookies.set("kb_session", first_session)
            assert replay.get("/api/queue").status_code == 401

        # The admin manages accounts in the desk; names are escaped on every page.
        admin_token = _sign_in(admin, "Ada")
        users = admin.get("/users").text
        assert "&lt;b&gt;Budi &amp; co&lt;/b&gt;" in users and "<b>Budi" not in users
        for secret in PASSWORDS.values():
            assert secret not in users
        assert admin.post("/users/add", data={**add, "role": "reviewer", "csrf_token": admin_token}).status_code == 303
        budi = _client(base)
        budi_token = _sign_in(budi, "<b>Budi & co</b>")
        reject = {"term_id": qty.term_id, "decision": "reject", "reason": "wrong unit"}
        assert budi.post("/api/decisions", json=reject, headers={CSRF_HEADER: budi_token}).status_code == 200
        budi.close()
        for page in (admin.get("/").text, admin.get(f"/entries/{qty.term_id}").text):
            assert "&lt;b&gt;Budi &amp; co&lt;/b&gt;" in page and "<b>Budi" not in page

        # Disabling keeps the decisions and ends the sessions; the last admin stays.
        disable = {"name": "Rina", "csrf_token": admin_token}
        assert admin.post("/users/disable", data=disable).status_code == 303
        assert reviewer.get("/api/queue").status_code == 401
        assert store.latest()[pa.term_id].reviewer == "Rina"
        assert 'by <span class="who">Rina</span>' in admin.get(f"/entries/{pa.term_id}").text
        last = admin.post("/users/disable", data={"name": "Ada", "csrf_token": admin_token})
        assert last.status_code == 400 and "last enabled admin" in last.text

        # Signing out ends the session on the server: the cookie, replayed, is refused.
        session = admin.cookies["kb_session"]
        assert admin.post("/signout", data={"csrf_token": admin_token}).status_code == 303
        with _client(base) as replay:
            replay.cookies.set("kb_session", session)
            assert replay.get("/").headers["location"].startswith("/signin")

        # An expired session (idle too long, or past its lifetime) is refused.
        engine = sa.create_engine(f"sqlite:///{default_path(layout)}")
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE review_sessions SET seen_at = seen_at - 7200"))
        engine.dispose()
        assert viewer.get("/api/queue").status_code == 401
        _sign_in(viewer, "Vic")
        engine = sa.create_engine(f"sqlite:///{default_path(layout)}")
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE review_sessions SET created_at = created_at - 13 * 3600"))
        engine.dispose()
        assert viewer.get("/api/queue").status_code == 401

        # Wrong name and wrong password read the same.
        page = viewer.get("/signin").text
        token = _CSRF_IN_PAGE.search(page).group(1)  # type: ignore[union-attr]
        wrong_password = viewer.post("/signin", data={"name": "Vic", "password": "nope-nope", "csrf_token": token})
        wrong_name = viewer.post("/signin", data={"name": "Nobody", "password": "nope-nope", "csrf_token": token})
        assert wrong_password.status_code == wrong_name.status_code == 401
        message = re.compile(r'id="signin-message">([^<]+)<')
        assert message.search(wrong_password.text).group(1) == message.search(wrong_name.text).group(1)  # type: ignore[union-attr]

    # Passwords are in no log, page or export, and the database holds only their hashes.
    assert cli_main(["glossary", "export", "--out", str(layout.root / "export")]) == 0
    exported = "".join(p.read_text(encoding="utf-8") for p in (layout.root / "export").iterdir())
    assert "Rina" in exported
    database = default_path(layout).read_bytes()
    for secret in [*PASSWORDS.values(), add["password"]]:
        assert secret not in log.read_text() and secret not in exported and secret.encode() not in database
    assert b"$argon2id$" in database


@pytest.mark.services
def test_api_tokens_are_per_account_hashed_and_revocable(team, server, capsys, monkeypatch):
    layout, store, terms = team
    base, _log = server
    capsys.readouterr()
    assert _user(monkeypatch, "token", "Rina") == 0
    rina = capsys.readouterr().out.strip()
    assert _user(monkeypatch, "token", "Vic") == 0
    vic = capsys.readouterr().out.strip()
    assert rina.startswith("kbr_") and rina.encode() not in default_path(layout).read_bytes()
    decision = {"term_id": terms["PA"].term_id, "decision": "approve"}
    with _client(base) as script:
        bearer = {"Authorization": f"Bearer {rina}"}
        assert len(script.get("/api/queue", headers=bearer).json()) == 3
        made = script.post("/api/decisions", json=decision, headers=bearer)  # no CSRF token: a script's header
        assert made.status_code == 200 and made.json()["reviewer"] == "Rina"
        assert (
            script.post("/api/decisions", json=decision, headers={"Authorization": f"Bearer {vic}"}).status_code == 403
        )
        assert script.get("/api/queue", headers={"Authorization": f"Bearer {rina}x"}).status_code == 401
        assert _user(monkeypatch, "token", "Rina", "--revoke") == 0
        assert "revoked 1 token(s)" in capsys.readouterr().out
        assert script.get("/api/queue", headers=bearer).status_code == 401
    assert _user(monkeypatch, "list") == 0
    listed = capsys.readouterr().out
    assert "Rina\treviewer" in listed and "Vic\tviewer" in listed
    assert _user(monkeypatch, "set-role", "Vic", "reviewer") == 0
    assert _user(monkeypatch, "reset-password", "Vic", "--password-stdin", stdin="short\n") == 1
    assert "at least 8 characters" in capsys.readouterr().err
    assert _user(monkeypatch, "disable", "Ada") == 1  # the last admin
    assert _user(monkeypatch, "add", "rina", "--role", "viewer", "--password-stdin", stdin="whatever-9\n") == 1
    assert "an account named 'Rina' exists already" in capsys.readouterr().err


def test_the_throttle_engages_per_name_and_per_address_and_recovers(team):
    layout, store, _terms = team
    app = create_app(layout, store)
    now = [1000.0]
    app.state.desk.throttle.clock = lambda: now[0]

    def attempt(address: str, name: str, password: str) -> int:
        with TestClient(app, base_url="http://127.0.0.1", client=(address, 5000), follow_redirects=False) as c:
            token = _CSRF_IN_PAGE.search(c.get("/signin").text).group(1)  # type: ignore[union-attr]
            answer = c.post("/signin", data={"name": name, "password": password, "csrf_token": token})
            if answer.status_code == 429:
                assert "Too many failed sign-ins: try again in" in answer.text
            return answer.status_code

    # Per name: five failures from five addresses, then even the right password waits.
    assert [attempt(f"10.0.0.{i}", "Ada", "wrong-guess") for i in range(5)] == [401] * 5
    assert attempt("10.0.1.1", "Ada", PASSWORDS["Ada"]) == 429
    assert attempt("10.0.1.1", "Rina", PASSWORDS["Rina"]) == 303  # another name, the same address: taken
    # Per address: five failures under five names, then that address waits, another does not.
    assert [attempt("10.0.2.1", f"guess{i}", "wrong-guess") for i in range(5)] == [401] * 5
    assert attempt("10.0.2.1", "Vic", PASSWORDS["Vic"]) == 429
    assert attempt("10.0.2.2", "Vic", PASSWORDS["Vic"]) == 303
    now[0] += 61  # a minute on: both recover
    assert attempt("10.0.1.1", "Ada", PASSWORDS["Ada"]) == 303
    assert attempt("10.0.2.1", "Vic", PASSWORDS["Vic"]) == 303


def test_the_proxy_header_maps_the_proxy_s_user_to_an_account(team):
    layout, store, terms = team
    app = create_app(layout, store, proxy_header="X-Forwarded-User")
    with TestClient(app, base_url="http://127.0.0.1", follow_redirects=False) as c:
        as_rina, as_vic = {"X-Forwarded-User": "Rina"}, {"X-Forwarded-User": "Vic"}
        token = c.get("/api/csrf-token", headers=as_rina).json()["token"]
        assert c.get("/api/csrf-token", headers=as_vic).json()["token"] != token
        decision = {"term_id": terms["PA"].term_id, "decision": "approve"}
        made = c.post("/api/decisions", json=decision, headers={**as_rina, CSRF_HEADER: token})
        assert made.status_code == 200 and made.json()["reviewer"] == "Rina"
        assert c.post("/api/decisions", json=decision, headers={**as_vic, CSRF_HEADER: token}).status_code == 403
        unknown = c.get("/api/queue", headers={"X-Forwarded-User": "stranger@example.org"})
        assert unknown.status_code == 403 and "no enabled account" in unknown.json()["detail"]
        assert c.get("/api/queue").status_code == 401  # no header: a session is still needed
    # Off by default: the header means nothing.
    with TestClient(create_app(layout, store), base_url="http://127.0.0.1") as c:
        assert c.get("/api/queue", headers={"X-Forwarded-User": "Rina"}).status_code == 401


def test_allow_remote_is_refused_without_accounts(layout, capsys):
    assert cli_main(["review", "--host", "0.0.0.0", "--allow-remote"]) == 2
    assert "--allow-remote is refused while the desk has no accounts" in capsys.readouterr().err


def test_a_decisions_table_from_before_accounts_is_read_and_extended(tmp_path):
    """A database the desk made before accounts: a reader (the exports, `kb-pipeline status`)
    reads it as it is, the desk adds its columns (nullable), renames its key, and keeps every row."""
    layout = DataLayout(tmp_path)
    path = default_path(layout)
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as old:
        old.execute(
            "CREATE TABLE review_decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, term_id VARCHAR(64) NOT NULL, "
            "doc_id VARCHAR(512) NOT NULL, term TEXT NOT NULL, decision VARCHAR(16) NOT NULL, extracted_definition "
            "TEXT, edited_definition TEXT, reason TEXT, reviewer VARCHAR(200) NOT NULL, decided_at VARCHAR(32) NOT NULL)"
        )
        old.execute(
            "INSERT INTO review_decisions (term_id, doc_id, term, decision, extracted_definition, reviewer, decided_at)"
            " VALUES ('t_1', 'doc', 'PA', 'approve', 'PA is availability.', 'Rina', '2026-01-01T00:00:00+00:00')"
        )
    reader = DecisionStore.open(None, layout, create=False)
    assert [d.definition for d in approved_decisions(reader.latest().values())] == ["PA is availability."]
    reader.close()
    desk = DecisionStore.open(None, layout)
    (old_row,) = desk.history("t_1")
    assert old_row.reviewer == "Rina" and old_row.account_id is None and old_row.doc_version is None
    desk.record(
        entry_id="t_1",
        doc_id="doc",
        term="PA",
        decision="reject",
        extracted_definition=None,
        reviewer="Ada",
        account_id=1,
    )
    assert [d.account_id for d in desk.history("t_1")] == [None, 1]
    desk.close()


@pytest.mark.services
def test_browser_signs_in_through_the_page_and_decides_as_the_account(team, server, tmp_path):
    layout, store, _terms = team
    base, _log = server
    browser = Browser(tmp_path / "chromium-profile")
    try:
        browser.send("Page.navigate", url=f"{base}/")
        browser.wait_for("location.pathname === '/signin' && document.readyState === 'complete'")
        browser.evaluate("document.getElementById('signin-name').focus()")
        browser.type("Rina")
        browser.evaluate("document.getElementById('signin-password').focus()")
        browser.type(PASSWORDS["Rina"])
        browser.press("Enter")
        browser.wait_for(
            "location.pathname === '/' && document.readyState === 'complete'"
            " && document.querySelector('#queue tbody tr.selected') !== null"
        )
        assert "Signed in as Rina (reviewer)" in browser.evaluate("document.getElementById('account').textContent")
        assert browser.evaluate("document.getElementById('reviewer-name')") is None  # no typed name with accounts
        first = browser.evaluate("document.querySelector('#queue tbody tr.selected').dataset.entryId")
        browser.press("a")  # approve in the queue, through the API with the session's CSRF token
        browser.wait_for("document.querySelector('#queue tbody tr .state').textContent === 'approved'")
        assert store.latest()[first].reviewer == "Rina" and store.latest()[first].account_id is not None
        browser.evaluate("document.getElementById('signout').click()")
        browser.wait_for("location.pathname === '/signin' && document.readyState === 'complete'")
        cookies = browser.send("Network.getAllCookies")["cookies"]
        assert not [c for c in cookies if c["name"] == "kb_session"]
    finally:
        browser.close()
