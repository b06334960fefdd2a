"""What the desk does with a body it should not take (issue 49, items 1 and 2), sent as real bytes
to the desk app (its test client, and once `kb-pipeline review` on loopback): a JSON body holding
a lone surrogate or bytes that are not UTF-8, a form the same, a body over the cap, a huge one
that does not validate, an anonymous one. Each is refused with a short answer, and nothing is
stored; the same body made valid is stored, so the check that nothing was can fail."""

from __future__ import annotations

import os

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from kb_pipeline.review.store import DecisionStore
from kb_pipeline.review_desk.app import MAX_BODY_BYTES, create_app

from .deployment import review_desk
from .test_review_accounts import _sign_in
from .test_review_desk import parsed  # noqa: F401 (the module-scoped parse `single` needs)
from .test_review_rough_edges import accounts, single  # noqa: F401

JSON = {"content-type": "application/json"}
FORM = {"content-type": "application/x-www-form-urlencoded"}
SHORT = 600  # bytes: an answer this long at most echoes no body


def _rows(store: DecisionStore) -> int:
    """Every row of every table of the review database: what a refused request leaves as it was."""
    with store.engine.connect() as connection:
        return sum(
            connection.execute(sa.select(sa.func.count()).select_from(sa.table(name))).scalar_one()
            for name in sa.inspect(store.engine).get_table_names()
        )


def _decision(term_id: str, reviewer: bytes = b"Rina") -> bytes:
    return b'{"term_id": "%s", "decision": "approve", "reviewer": "%s"}' % (term_id.encode(), reviewer)


def test_a_json_body_that_is_not_text_gets_a_short_422_naming_the_field_and_where(single):  # noqa: F811
    layout, store, client, token, terms = single
    pa = terms["PA"]
    headers = {**JSON, "X-CSRF-Token": token}
    before = _rows(store)
    refusals = [
        ("/api/decisions", b'{"term_id": "\\ud800"}', ["body", "term_id"], "U+D800 at character 1 is a lone surrogate"),
        ("/api/decisions", _decision(pa.term_id, b"Ri\\udfffna"), ["body", "reviewer"], "U+DFFF at character 3"),
        ("/api/decisions", _decision(pa.term_id, b"Rina\xff\xfe"), ["body", "reviewer"], "byte 0xFF at character 5"),
        ("/api/decisions", b"\xff\xfe", ["body"], "byte 0xFF at character 1 is not UTF-8"),
        (
            "/api/entries",
            b'{"doc_id": "d", "kind": "term", "chunk_id": "c", "span": "\xc3\xa9t\xe9", "fields": {}}',
            ["body", "span"],
            "byte 0xE9 at character 3 is not UTF-8",
        ),
        (
            "/api/entries",
            b'{"doc_id": "d", "kind": "term", "chunk_id": "c", "span": "s", "fields": {"te\\ud800rm": "x"}}',
            ["body", "fields", "te\\ud800rm"],
            "U+D800 at character 3",
        ),
    ]
    for path, body, loc, message in refusals:
        answer = client.post(path, content=body, headers=headers)
        assert answer.status_code == 422 and len(answer.content) < SHORT, (body, answer.text)
        (error,) = answer.json()["detail"]
        assert error["loc"] == loc and message in error["msg"], (body, error)
    assert _rows(store) == before
    stored = client.post("/api/decisions", content=_decision(pa.term_id), headers=headers)
    assert stored.status_code == 200 and _rows(store) == before + 1


def test_a_form_that_is_not_utf8_is_refused_not_stored_with_other_characters(single):  # noqa: F811
    layout, store, client, token, terms = single
    pa = terms["PA"]
    form = b"entry_id=%s&decision=reject&csrf_token=%s&reason=" % (pa.term_id.encode(), token.encode())
    before = _rows(store)
    for reason, message in (
        (b"bad%FF", "reason: byte 0xFF at character 4 is not UTF-8"),  # the form parser would store U+FFFD
        (b"bad\xff\xfe", "reason: byte 0xFF at character 4 is not UTF-8"),  # ... and this as "ÿþ"
        (b"caf\xc3\xa9", "reason: U+00E9 at character 4 is not percent-encoded"),  # ... and this as "Ã©"
    ):
        answer = client.post("/decisions", content=form + reason, headers=FORM)
        assert answer.status_code == 422 and "text/html" in answer.headers["content-type"], reason
        assert message in answer.text, answer.text
    assert _rows(store) == before
    done = client.post("/decisions", content=form + b"caf%C3%A9", headers=FORM)
    assert done.status_code == 303 and store.latest()[pa.term_id].reason == "café"


def test_an_error_shows_only_a_short_excerpt_of_what_was_sent(single):  # noqa: F811
    layout, store, client, token, terms = single
    headers = {**JSON, "X-CSRF-Token": token}
    before = _rows(store)
    missing = client.post("/api/decisions", content=b'{"reason": "%s"}' % (b"x" * 900_000), headers=headers)
    assert missing.status_code == 422 and len(missing.content) < SHORT
    assert {"type": "missing", "loc": ["body", "decision"], "msg": "Field required"} in missing.json()["detail"]
    too_long = client.post("/api/decisions", content=_decision(terms["PA"].term_id, b"R" * 500_000), headers=headers)
    assert too_long.status_code == 422 and len(too_long.content) < SHORT
    (error,) = too_long.json()["detail"]
    assert error["loc"] == ["body", "reviewer"] and error["input"] == "R" * 100 + "…"
    # An id longer than the decisions table holds: refused for its length, answered short.
    unknown = client.post("/api/decisions", content=_decision("t_" + "y" * 500_000), headers=headers)
    assert unknown.status_code == 422 and len(unknown.content) < SHORT and "at most 64 characters" in unknown.text
    page = client.post(
        "/decisions", data={"entry_id": "t_" + "z" * 500_000, "decision": "approve", "csrf_token": token}
    )
    assert page.status_code == 422 and "at most 64 characters" in page.text and "z" * 1000 not in page.text
    # An unknown id of an id's length: 404, quoting it.
    missing_id = client.post("/api/decisions", content=_decision("t_" + "y" * 60), headers=headers)
    assert missing_id.status_code == 404 and "unknown entry_id 't_yyy" in missing_id.text
    assert _rows(store) == before


def test_a_body_over_the_cap_gets_413_unread(single):  # noqa: F811
    layout, store, client, token, terms = single
    headers = {**JSON, "X-CSRF-Token": token}
    valid = _decision(terms["PA"].term_id)
    before = _rows(store)
    over = valid + b" " * (MAX_BODY_BYTES + 1 - len(valid))  # valid JSON: refused for its size alone
    answer = client.post("/api/decisions", content=over, headers=headers)
    assert answer.status_code == 413 and f"larger than {MAX_BODY_BYTES} bytes" in answer.json()["detail"]
    chunked = client.post(
        "/api/decisions", content=iter([over[:MAX_BODY_BYTES], over[MAX_BODY_BYTES:]]), headers=headers
    )
    assert chunked.status_code == 413 and "content-length" not in chunked.request.headers
    page = client.post("/decisions", data={"reason": "r" * MAX_BODY_BYTES, "csrf_token": token})
    assert page.status_code == 413 and "text/html" in page.headers["content-type"]
    assert _rows(store) == before
    at_the_cap = client.post("/api/decisions", content=over[:MAX_BODY_BYTES], headers=headers)
    assert at_the_cap.status_code == 200 and _rows(store) == before + 1


def test_an_anonymous_body_gets_the_401_of_any_anonymous_request_before_it_is_read(accounts):  # noqa: F811
    layout, store = accounts
    bad_json, too_large = b'{"term_id": "\\ud800"', b"{" * (MAX_BODY_BYTES + 1)
    with TestClient(create_app(layout, store), base_url="http://127.0.0.1", follow_redirects=False) as c:
        for body in (bad_json, too_large):
            answer = c.post("/api/decisions", content=body, headers=JSON)
            assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer", answer.text
            forged = c.post("/api/decisions", content=body, headers={**JSON, "Authorization": "Bearer forged"})
            assert forged.status_code == 401 and "unknown or revoked API token" in forged.text
        page = c.post("/decisions", content=b"entry_id=%FF&decision=approve", headers=FORM)
        assert page.status_code == 303 and page.headers["location"] == "/signin?next=/decisions"
        # The sign-in form, open to anyone, has its body read and checked.
        signin = c.post("/signin", content=b"name=Ri%FFna&password=x&csrf_token=x", headers=FORM)
        assert signin.status_code == 422 and "name: byte 0xFF at character 3 is not UTF-8" in signin.text
        # Signed in, the same body is read, and refused for what it is.
        csrf = _sign_in(c, "Rina")
        assert c.post("/api/decisions", content=bad_json, headers={**JSON, "X-CSRF-Token": csrf}).status_code == 422


@pytest.mark.services
def test_the_running_desk_answers_a_lone_surrogate_and_an_oversized_body_on_the_same_connection(layout, tmp_path):
    assert os.environ["KB_DATA_DIR"] == str(layout.root)  # the desk's data root: this test's own
    with review_desk(tmp_path / "desk.log") as base, httpx.Client(base_url=base) as c:
        headers = {**JSON, "X-CSRF-Token": c.get("/api/csrf-token").json()["token"]}
        surrogate = c.post("/api/decisions", content=b'{"term_id": "\\ud800"}', headers=headers)
        assert surrogate.status_code == 422 and "U+D800 at character 1" in surrogate.text
        oversized = c.post("/api/decisions", content=b"x" * (8 * MAX_BODY_BYTES), headers=headers)
        assert oversized.status_code == 413 and len(oversized.content) < SHORT
        assert c.get("/health").json() == {"status": "ok"}
    store = DecisionStore.open(None, layout, create=False)
    assert store.latest() == {}
    store.close()
