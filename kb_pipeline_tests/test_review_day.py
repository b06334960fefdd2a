"""A reviewer's day at the desk (docs/review.md): bulk decisions on the queue's selected entries,
edits shown where the entry is shown, the warning before a kind is marked review complete with
entries pending, and where you are (the queue's summary, pages, each reviewer's counts, the keys).
On the shipped Indonesian standard parsed by the real MinerU and extracted by `kb-pipeline
extract` (test_review_desk.py's fixtures); then the same in a headless Chromium, by keyboard."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kb_pipeline.review.completion import complete, pending_when_marked
from kb_pipeline.review_desk import pages
from kb_pipeline.review_desk.dependencies import CSRF_HEADER

from .browser import Browser
from .deployment import review_desk
from .test_review_desk import STANDARD, _decide, desk, parsed  # noqa: F401  (the fixtures)


def _rows(client: TestClient) -> list[dict]:
    return client.get("/api/queue").json()


def _named(client: TestClient) -> None:
    """The single expert's name, typed once (the pages' forms record it)."""
    client.post("/reviewer", data={"name": "Rina", "csrf_token": client.headers[CSRF_HEADER]})


def _bulk(client: TestClient, rows: list[dict], decision: str, **more: str):
    form: dict[str, str | list[str]] = {"decision": decision, "back": "/?kind=term", **more}
    form |= {"csrf_token": client.headers[CSRF_HEADER], "ids": [r["entry_id"] for r in rows]}
    form |= {f"seen.{r['entry_id']}": r["item"]["text"] or "" for r in rows}
    return client.post("/decisions/bulk", data=form, follow_redirects=False)


def test_the_selected_entries_are_decided_at_once_each_its_own_decision(desk):  # noqa: F811
    _layout, store, client, _terms = desk
    _named(client)
    rows = _rows(client)
    assert len(rows) == 3
    # A rejection asks one reason for all, in a sentence; nothing is decided without it.
    refused = _bulk(client, rows[:2], "reject")
    assert refused.status_code == 422 and "A rejection needs a reason." in refused.text
    assert "validation error" not in refused.text and store.latest() == {}

    response = _bulk(client, rows[:2], "reject", reason="not a definition")
    assert response.status_code == 303 and response.headers["location"] == "/?kind=term"
    latest = store.latest()
    assert {latest[r["entry_id"]].decision for r in rows[:2]} == {"reject"}
    assert all(len(store.history(r["entry_id"])) == 1 for r in rows[:2])  # one decision per entry

    # Undone one by one: the first entry's rejection withdrawn (pending again, the history kept),
    # the second's replaced by an approval.
    _decide(client, rows[0]["entry_id"], "withdraw")
    assert rows[0]["entry_id"] not in store.latest()
    assert [d.decision for d in store.history(rows[0]["entry_id"])] == ["reject", "withdraw"]
    (first,) = [r for r in _rows(client) if r["entry_id"] == rows[0]["entry_id"]]
    assert first["state"] == "pending" and first["since"] is None
    again = client.post(
        "/api/decisions", json={"term_id": rows[0]["entry_id"], "decision": "withdraw", "reviewer": "Rina"}
    )
    assert again.status_code == 422 and "no decision to withdraw" in again.text
    _decide(client, rows[1]["entry_id"], "approve")
    assert [d.decision for d in store.history(rows[1]["entry_id"])] == ["reject", "approve"]

    # An entry whose text changed since the queue showed it is left alone, and listed.
    stale = dict(rows[2], item=dict(rows[2]["item"], text="what the queue showed before a re-extraction"))
    left = _bulk(client, [stale], "approve")
    assert left.status_code == 200 and 'id="left"' in left.text and rows[2]["entry_id"] in left.text
    assert rows[2]["entry_id"] not in store.latest()


def test_an_edit_is_shown_in_the_queue_the_search_and_the_entry_page(desk):  # noqa: F811
    _layout, _store, client, _terms = desk
    row = _rows(client)[0]
    extracted = row["item"]["text"]
    edited = "Edited wording: the share of time the unit is ready to operate."
    _decide(client, row["entry_id"], "edit", definition=edited)

    queue = client.get("/").text
    assert edited in queue and 'class="edited-mark"' in queue
    assert row["entry_id"] in client.get("/", params={"q": "share of time the unit"}).text  # search finds the edit

    page = client.get(f"/entries/{row['entry_id']}").text
    shown = page.split('id="definition">', 1)[1].split("</dd>", 1)[0]
    assert shown.startswith(edited) and f"extracted: {extracted}" in shown  # the extracted value beside
    textarea = page.split('name="definition"', 1)[1].split("</textarea>", 1)[0]
    assert textarea.endswith(edited)  # the form starts from the current value


def test_review_complete_with_entries_pending_asks_first_and_keeps_the_count(desk):  # noqa: F811
    _layout, store, client, _terms = desk
    _named(client)
    back = "/?kind=term&state=pending"
    form = {"doc_id": STANDARD, "kind": "term", "back": back, "csrf_token": client.headers[CSRF_HEADER]}
    warning = client.post("/review-complete", data=form, follow_redirects=False)
    assert warning.status_code == 200 and "3 terms are still pending" in warning.text
    assert complete(store) == set()  # nothing marked until confirmed

    confirmed = client.post("/review-complete", data={**form, "confirmed": "true"}, follow_redirects=False)
    assert confirmed.status_code == 303 and confirmed.headers["location"] == back + "#progress"
    assert pending_when_marked(store) == {(STANDARD, "term"): 3}
    scores = client.get("/").text.split('id="scores"', 1)[1]
    assert '<td class="pending-when-marked">3</td>' in scores

    # Withdrawn and marked again with nothing pending: no question asked.
    client.post("/review-complete", data={**form, "complete": "false"})
    for row in _rows(client):
        _decide(client, row["entry_id"], "approve")
    assert client.post("/review-complete", data=form, follow_redirects=False).status_code == 303
    assert pending_when_marked(store) == {(STANDARD, "term"): 0}


def test_where_you_are_summary_pages_reviewers_and_errors_as_sentences(desk, monkeypatch):  # noqa: F811
    _layout, _store, client, _terms = desk
    rows = _rows(client)
    _decide(client, rows[0]["entry_id"], "approve")
    page = client.get("/").text
    assert '<span data-kind="term">terms <b>1</b> / 3 decided</span>' in page
    assert '<tr data-reviewer="Rina"><td>Rina</td><td>1</td><td>0</td><td>0</td><td class="total">1</td></tr>' in page

    monkeypatch.setattr(pages, "QUEUE_PAGE_SIZE", 2)
    second = client.get("/", params={"page": 2}).text
    numbers = [cell.split("<td>", 1)[1].split("</td>", 1)[0] for cell in second.split('form="bulk-form"></td>')[1:]]
    assert numbers == ["3"] and "page 2 of 2" in second  # the rows go on counting from the first page

    _named(client)
    form = {"entry_id": rows[1]["entry_id"], "decision": "reject", "csrf_token": client.headers[CSRF_HEADER]}
    refused = client.post("/decisions", data=form)
    assert refused.status_code == 422 and "A rejection needs a reason." in refused.text
    assert "validation error for" not in refused.text


@pytest.fixture
def review_server(desk, tmp_path):  # noqa: F811
    layout = desk[0]
    with review_desk(tmp_path / "desk.log", {**os.environ, "KB_DATA_DIR": str(layout.root)}) as base:
        assert urllib.request.urlopen(f"{base}/api/queue", timeout=2).status == 200
        yield base


@pytest.mark.services
def test_browser_bulk_approves_three_entries_by_keyboard_after_the_review_complete_warning(
    desk,  # noqa: F811
    review_server,
    tmp_path,
):
    _layout, store, client, _terms = desk
    # docs/review.md's screenshots, when asked for.
    shots = Path(os.environ["KB_SCREENSHOT_DIR"]) if "KB_SCREENSHOT_DIR" in os.environ else None
    browser = Browser(tmp_path / "chromium-profile")
    try:
        browser.goto(f"{review_server}/")
        browser.name_the_reviewer("Rina", then="document.querySelector('#queue tbody tr.selected') !== null")
        # "?" lists the page's keys; Escape closes it.
        browser.press("?")
        assert browser.wait_for("document.getElementById('keys-help').open")
        assert "select" in browser.evaluate("document.getElementById('keys-help').textContent")
        browser.press("Escape")
        browser.wait_for("!document.getElementById('keys-help').open")

        # Marking the terms complete with all three pending asks first; cancel returns to the queue.
        browser.evaluate("document.querySelector('#progress form button').click()")
        browser.wait_for("document.getElementById('pending-warning') !== null && document.readyState === 'complete'")
        assert "3 terms are still pending" in browser.evaluate("document.getElementById('pending-warning').textContent")
        if shots:
            browser.screenshot(shots / "review-complete-warning.png")
        browser.evaluate("document.getElementById('cancel-complete').click()")
        browser.wait_for("document.readyState === 'complete' && document.getElementById('queue') !== null")
        assert complete(store) == set()

        for _ in range(3):  # x selects the row and moves on
            browser.press("x")
        assert browser.wait_for("document.getElementById('bulk-count').textContent") == "3 selected"
        if shots:
            browser.screenshot(shots / "review-selected.png")
        browser.press("a")
        browser.wait_for(
            "document.readyState === 'complete' && document.querySelectorAll('#queue .state.approved').length === 3"
        )
        latest = store.latest()
        assert len(latest) == 3 and {(d.decision, d.reviewer) for d in latest.values()} == {("approve", "Rina")}

        # An edit: the entry page shows the value as it stands, the extracted one beside it.
        first = next(iter(latest))
        _decide(client, first, "edit", definition="Edited wording: the share of time the unit is ready to operate.")
        browser.goto(f"{review_server}/entries/{first}")
        assert browser.evaluate("document.querySelector('#definition .extracted') !== null")
        if shots:
            browser.screenshot(shots / "review-edited.png")
        browser.press("u")  # the edit undone: the entry pending again
        browser.wait_for(f"location.pathname !== '/entries/{first}' && document.readyState === 'complete'")
        assert first not in store.latest() and store.history(first)[-1].decision == "withdraw"
    finally:
        browser.close()
