"""The desk's rough edges (issue 36, item 3), one test each: against the desk app through its
test client, the command line in-process, or a desk on loopback (`kb-pipeline review`). The
entries decided on come from the shipped standard parsed by the real MinerU."""

from __future__ import annotations

import csv
import io
import re
import socket

import httpx
import pytest
from fastapi.testclient import TestClient

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.review.store import DecisionStore
from kb_pipeline.review.tbx import to_tbx
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.decisions import FIELD_LENGTH

from .deployment import review_desk
from .test_review_accounts import _CSRF_IN_PAGE, PASSWORDS, _sign_in, _user
from .test_review_desk import _extract, parsed  # noqa: F401 (parsed: the module-scoped parse fixture)


@pytest.fixture
def single(layout, parsed):  # noqa: F811
    """The standard extracted, no account: the single expert's desk (in-process client)."""
    terms = _extract(layout, parsed)
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1", follow_redirects=False)
    client.cookies.set("kb_reviewer", "Rina")
    token = client.get("/api/csrf-token").json()["token"]
    yield layout, store, client, token, terms
    client.close()
    store.close()


@pytest.fixture
def accounts(layout, monkeypatch):
    """Ada (admin) and Rina (reviewer), made by the CLI; the store. No document needed."""
    for name in ("Ada", "Rina"):
        role = "admin" if name == "Ada" else "reviewer"
        assert _user(monkeypatch, "add", name, "--role", role, "--password-stdin", stdin=PASSWORDS[name] + "\n") == 0
    store = DecisionStore.open(None, layout)
    yield layout, store
    store.close()


def _edit(client: TestClient, token: str, term_id: str, definition: str) -> httpx.Response:
    body = {"term_id": term_id, "decision": "edit", "definition": definition, "reviewer": "Rina"}
    return client.post("/api/decisions", json=body, headers={"X-CSRF-Token": token})


def test_xml_illegal_characters_are_refused_on_input_and_never_written_as_tbx(single, tmp_path, capsys):
    layout, store, client, token, terms = single
    pa = terms["PA"]
    refused = _edit(client, token, pa.term_id, "Parameter\x07 Alarm")
    assert refused.status_code == 422 and "U+0007 at character 10" in refused.text
    form = client.post(
        "/decisions",
        data={"entry_id": pa.term_id, "decision": "edit", "definition": "a\x0bb", "csrf_token": token},
    )
    assert (
        form.status_code == 422 and "U+000B at character 2" in form.text and "text/html" in form.headers["content-type"]
    )
    assert store.latest() == {}
    # A decision that holds one all the same (written before the check, or by another tool):
    # the export says which entry and where, one line, and writes no file.
    store.record(
        entry_id=pa.term_id,
        doc_id=pa.provenance.doc_id,
        term=pa.term,
        decision="edit",
        extracted_definition=pa.definition,
        edited_definition="Parameter\x1f Alarm",
        reviewer="Rina",
    )
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and pa.term_id in err and "U+001F at character 10" in err
    assert not out.exists()


def test_a_field_is_capped_so_the_csv_reads_with_python_s_csv_module(single, tmp_path):
    layout, store, client, token, terms = single
    too_long = _edit(client, token, terms["PA"].term_id, "x" * (FIELD_LENGTH + 1))
    assert too_long.status_code == 422 and f"more than the {FIELD_LENGTH}" in too_long.text
    longest = "y" * FIELD_LENGTH
    assert _edit(client, token, terms["PA"].term_id, longest).status_code == 200
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--format", "csv", "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO((out / "active_glossary.csv").read_text(encoding="utf-8"))))
    assert [r["definition"] for r in rows] == [longest]


def test_an_export_of_nothing_says_so_and_never_writes_an_empty_tbx(layout, tmp_path, capsys):
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--out", str(out)]) == 1  # an empty (or mistyped) data root
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing found: no knowledge payloads under" in err and not out.exists()
    assert cli_main(["knowledge", "export", "--out", str(out), "--allow-empty"]) == 0
    assert "no TBX: no approved term" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == [
        "active_glossary.csv",
        "active_glossary.json",
        "active_glossary.ttl",
        "active_knowledge.csv",
        "active_knowledge.json",
    ]
    with pytest.raises(ValueError, match="at least one conceptEntry"):
        to_tbx([], None)  # type: ignore[arg-type]


def test_export_out_errors_are_one_line(layout, tmp_path, capsys):
    existing = tmp_path / "glossary.tbx"
    existing.write_text("mine")
    assert cli_main(["knowledge", "export", "--allow-empty", "--out", str(existing)]) == 2
    assert capsys.readouterr().err == f"kb-pipeline knowledge export: --out {existing} is a file, not a folder\n"
    assert existing.read_text() == "mine"
    # /proc takes no new folder, whoever asks (root too).
    assert cli_main(["knowledge", "export", "--allow-empty", "--out", "/proc/kb-export"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kb-pipeline knowledge export: cannot write under /proc/kb-export:") and err.count("\n") == 1


def test_a_setting_that_does_not_read_is_one_line(layout, monkeypatch, capsys):
    monkeypatch.setenv("KB_REVIEW_PORT", "abc")
    assert cli_main(["review"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "review_port = 'abc'" in err and "Traceback" not in err


def test_a_port_taken_is_said_before_any_url(layout, capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert cli_main(["review", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert "Review desk on" not in out
    assert f"cannot listen on 127.0.0.1:{port}" in err and "another program holds the port" in err


@pytest.mark.services
def test_review_on_ipv6_loopback_prints_a_bracketed_url_and_answers_its_host(layout, tmp_path):
    log = tmp_path / "desk.log"
    with review_desk(log, host="::1") as base:
        assert base.startswith("http://[::1]:")
        assert f"Review desk on {base}/" in log.read_text()
        assert httpx.get(f"{base}/health").json() == {"status": "ok"}
        assert httpx.get(f"{base}/").status_code == 200  # the queue, to the Host [::1]:port
        other = httpx.get(f"{base}/health", headers={"Host": "evil.example"})
        assert other.status_code == 400


def test_a_disabled_account_is_enabled_again_and_changes_to_it_say_it_stays_disabled(accounts, monkeypatch, capsys):
    layout, store = accounts
    assert _user(monkeypatch, "disable", "Rina") == 0
    capsys.readouterr()
    assert _user(monkeypatch, "add", "rina", "--role", "viewer", "--password-stdin", stdin="whatever-9\n") == 1
    assert "user enable Rina" in capsys.readouterr().err
    assert _user(monkeypatch, "set-role", "Rina", "viewer") == 0
    assert capsys.readouterr().out == "Rina is now viewer (still disabled: kb-pipeline review user enable Rina)\n"
    assert _user(monkeypatch, "reset-password", "Rina", "--password-stdin", stdin="rina-new-pass-5\n") == 0
    assert "(still disabled: kb-pipeline review user enable Rina)" in capsys.readouterr().out
    assert _user(monkeypatch, "enable", "Rina") == 0
    assert capsys.readouterr().out == "enabled Rina\n"
    with TestClient(create_app(layout, store), base_url="http://127.0.0.1", follow_redirects=False) as c:
        _sign_in(c, "Rina", "rina-new-pass-5")
    assert _user(monkeypatch, "set-role", "Rina", "reviewer") == 0
    assert capsys.readouterr().out == "Rina is now reviewer\n"


def test_a_revoked_token_s_post_answers_401(accounts, monkeypatch, capsys):
    layout, store = accounts
    capsys.readouterr()
    assert _user(monkeypatch, "token", "Rina") == 0
    token = capsys.readouterr().out.strip()
    assert _user(monkeypatch, "token", "Rina", "--revoke") == 0
    with TestClient(create_app(layout, store), base_url="http://127.0.0.1") as c:
        answer = c.post(
            "/api/decisions",
            json={"term_id": "t_x", "decision": "approve"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
        assert "revoked" in answer.json()["detail"]


def test_the_throttle_s_address_is_the_socket_s_unless_the_proxy_is_trusted(accounts):
    layout, store = accounts

    def attempts(app) -> list[int]:
        """Six failed sign-ins from one loopback socket, each under a new name and a new X-Forwarded-For."""
        codes = []
        with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 5000), follow_redirects=False) as c:
            token = _CSRF_IN_PAGE.search(c.get("/signin").text).group(1)  # type: ignore[union-attr]
            for i in range(6):
                answer = c.post(
                    "/signin",
                    data={"name": f"guess{i}", "password": "wrong-guess", "csrf_token": token},
                    headers={"X-Forwarded-For": f"203.0.113.{i}"},
                )
                codes.append(answer.status_code)
                if answer.status_code == 429:
                    assert 1 <= int(answer.headers["retry-after"]) <= 60
        return codes

    assert attempts(create_app(layout, store)) == [401] * 5 + [429]
    assert attempts(create_app(layout, store, trust_forwarded_for=True)) == [401] * 6


def test_a_page_s_invalid_query_is_a_page(single):
    _layout, _store, client, _token, _terms = single
    bogus = client.get("/?kind=bogus")
    assert bogus.status_code == 422 and "text/html" in bogus.headers["content-type"] and "kind:" in bogus.text
    api = client.get("/api/queue?kind=bogus")
    assert api.status_code == 422 and api.headers["content-type"] == "application/json"


def test_an_empty_password_on_the_sign_in_page_is_said_on_the_page(accounts):
    layout, store = accounts
    with TestClient(create_app(layout, store), base_url="http://127.0.0.1", follow_redirects=False) as c:
        token = _CSRF_IN_PAGE.search(c.get("/signin").text).group(1)  # type: ignore[union-attr]
        empty = c.post("/signin", data={"name": "Ada", "password": "", "csrf_token": token})
        assert empty.status_code == 422 and "text/html" in empty.headers["content-type"]
        assert "Enter your name and your password." in empty.text


def test_authenticated_answers_are_not_cached(single):
    _layout, _store, client, _token, terms = single
    for path in ("/", f"/entries/{terms['PA'].term_id}", "/api/queue", "/api/csrf-token"):
        assert client.get(path).headers["cache-control"] == "no-store", path
    assert "cache-control" not in client.get("/static/desk.css").headers


def test_an_admin_issues_and_revokes_api_tokens_and_enables_accounts_on_the_users_page(accounts, monkeypatch):
    layout, store = accounts
    assert _user(monkeypatch, "disable", "Rina") == 0
    with TestClient(create_app(layout, store), base_url="http://127.0.0.1", follow_redirects=False) as admin:
        csrf = _sign_in(admin, "Ada")
        page = admin.get("/users").text
        assert 'action="/users/enable"' in page and 'action="/users/token"' in page
        assert admin.post("/users/enable", data={"name": "Rina", "csrf_token": csrf}).status_code == 303
        issued = admin.post("/users/token", data={"name": "Rina", "csrf_token": csrf})
        assert issued.status_code == 200 and issued.headers["cache-control"] == "no-store"
        token = re.search(r"<code>(kbr_[^<]+)</code>", issued.text).group(1)  # type: ignore[union-attr]
        bearer = {"Authorization": f"Bearer {token}"}
        with TestClient(create_app(layout, store), base_url="http://127.0.0.1") as script:
            assert script.get("/api/queue", headers=bearer).status_code == 200
            assert admin.post("/users/revoke-tokens", data={"name": "Rina", "csrf_token": csrf}).status_code == 303
            assert script.get("/api/queue", headers=bearer).status_code == 401
        assert token not in admin.get("/users").text  # shown once
