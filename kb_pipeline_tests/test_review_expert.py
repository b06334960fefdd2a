"""Experts add what the readers missed, and the team's own decisions score the readers (issue 36,
items 1 and 2; docs/review.md). On REAL MinerU parses of generated PDFs: a handbook of three
conditional rules and a fact the readers do not take for one, which the expert adds as a rule;
and the pump handbook's two editions (test_review_knowledge.py), whose second renumbers every
chunk, so an added entry must be found again by its text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.paths import DataLayout
from kb_pipeline.review.score import KindScore
from kb_pipeline.review.store import DecisionStore
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_HEADER

from .browser import Browser
from .deployment import review_desk
from .test_review_desk import _extract
from .test_review_knowledge import editions  # noqa: F401  (the fixture: both editions, parsed once)

DOC = "valve_rules"
RULES = (
    "If the valve leaks during a test run, then the valve is replaced at once.",
    "If the pressure exceeds the limit, then the line is closed by the operator.",
    "If the gauge shows no reading, then the gauge is sent for calibration.",
)
# No condition, no modal verb: a statement the readers do not take for a rule; the expert does.
MISSED = "Valves in standby are turned by hand once a week to keep the seals supple."
MTBF = "MTBF (Mean Time Between Failures) is reported for every pump each month."


def valve_pdf(path: Path) -> None:
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    story = [Paragraph("Valve Inspection Rules", ss["Title"]), Paragraph("1. Rules", ss["Heading1"])]
    story += [Paragraph(rule, ss["BodyText"]) for rule in RULES]
    story += [Paragraph("2. Care", ss["Heading1"]), Paragraph(MISSED, ss["BodyText"])]
    SimpleDocTemplate(str(path), title="Valve Inspection Rules", invariant=True).build(story)


@pytest.fixture(scope="module")
def valves(tmp_path_factory, parses) -> ParsedDocument:
    pdf = tmp_path_factory.mktemp("valves").resolve() / f"{DOC}.pdf"
    valve_pdf(pdf)
    return parses.run(pdf).document


def _client(layout: DataLayout) -> tuple[DecisionStore, TestClient]:
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
    return store, client


def _chunk_saying(document: ParsedDocument, text: str) -> str:
    (chunk,) = [c for c in document.chunks if text in c.text]
    return chunk.chunk_id


def _queue(client: TestClient, kind: str) -> list[dict]:
    response = client.get("/api/queue", params={"kind": kind})
    assert response.status_code == 200, response.text
    return response.json()


def _add_rule(client: TestClient, document: ParsedDocument, statement: str, **more) -> dict:
    body = {
        "doc_id": document.doc_id,
        "kind": "rule",
        "chunk_id": _chunk_saying(document, statement),
        "span": statement,
        "fields": {"statement": statement, "rule_type": "interpretation", **more},
        "reviewer": "Rina",
    }
    return client.post("/api/entries", json=body).json() | {"_body": body}


def test_score_two_approvals_one_rejection_one_added(layout, valves, capsys):
    _extract(layout, valves)
    store, client = _client(layout)
    try:
        rules = {r["item"]["text"]: r for r in _queue(client, "rule")}
        assert set(RULES) <= set(rules) and MISSED not in rules  # what the readers found, and missed
        for text, decision in zip(RULES, ("approve", "approve", "reject"), strict=True):
            body = {"id": rules[text]["entry_id"], "decision": decision, "reviewer": "Rina", "reason": "not a rule"}
            assert client.post("/api/decisions", json=body).status_code == 200
        added = _add_rule(client, valves, MISSED)
        assert added["entry_id"].startswith("r_") and added["reviewer"] == "Rina", added
        # Only a complete document and kind is scored.
        assert cli_main(["knowledge", "score"]) == 1
        mark = {"doc_id": DOC, "kind": "rule", "reviewer": "Rina"}
        assert client.post("/api/review-complete", json=mark).status_code == 200
        # The progress page shows the same figures, and marks a kind complete by its form.
        page = client.get("/").text
        assert 'id="scores"' in page and page.count("2/3 (0.67)") == 4  # the document's row and the total's
        form = {"doc_id": DOC, "kind": "term", "csrf_token": client.headers[CSRF_HEADER]}
        client.post("/reviewer", data={"name": "Rina", "csrf_token": client.headers[CSRF_HEADER]})
        assert client.post("/review-complete", data=form, follow_redirects=False).status_code == 303
        assert client.get("/api/scores").json()["totals"][1]["precision"] == [2, 3]
    finally:
        client.close()
        store.close()
    capsys.readouterr()
    assert cli_main(["knowledge", "score", "--doc", DOC]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    (row,) = [line for line in lines if line[:2] == [DOC, "rule"]]
    # approved, edited, rejected, added, pending; precision 2/3, recall 2/3
    assert row[2:7] == ["2", "0", "1", "1", "0"] and row[7:] == ["2/3", "(0.67)", "2/3", "(0.67)"], row

    assert cli_main(["knowledge", "export", "--format", "gold", "--out", str(layout.root / "out")]) == 0
    gold = json.loads((layout.root / "out" / "gold" / f"{DOC}.json").read_text(encoding="utf-8"))
    assert sorted(r["sentence"] for r in gold["rules"]) == sorted([RULES[0], RULES[1], MISSED])
    # Terms marked complete too (none approved: no claim); formulas not: no exhaustive pages.
    assert gold["claims"] == [] and "formulas" not in gold and "exhaustive_pages" not in gold


def test_an_added_rule_is_span_checked_approved_exported_and_survives_a_re_parse(layout, editions):  # noqa: F811
    first, second = editions
    _extract(layout, first)
    store, client = _client(layout)
    try:
        refused = client.post(
            "/api/entries",
            json={
                "doc_id": first.doc_id,
                "kind": "rule",
                "chunk_id": _chunk_saying(first, MTBF),
                "span": "MTBF is reported for every pump",  # not what the chunk says
                "fields": {"statement": "MTBF is reported for every pump"},
                "reviewer": "Rina",
            },
        )
        assert refused.status_code == 422 and "not verbatim" in refused.text
        added = _add_rule(client, first, MTBF)
        rule_id = added["entry_id"]
        again = client.post("/api/entries", json=added["_body"])
        assert again.status_code == 422 and "already" in again.text  # no duplicate
        row = next(r for r in _queue(client, "rule") if r["entry_id"] == rule_id)
        assert row["state"] == "approved" and row["item"]["origin"] == "expert" and row["item"]["added_by"] == "Rina"
        exported = json.loads(client.get("/api/entries/" + rule_id).content)
        assert exported["entry"]["provenance"]["chunk_id"] == _chunk_saying(first, MTBF)

        # The second edition renumbers every chunk: the rule is found again by its text.
        _extract(layout, second)
        assert _chunk_saying(second, MTBF) != _chunk_saying(first, MTBF)
        row = next(r for r in _queue(client, "rule") if r["entry_id"] == rule_id)
        assert row["state"] == "approved"
        entry = client.get("/api/entries/" + rule_id).json()
        assert entry["entry"]["provenance"]["chunk_id"] == _chunk_saying(second, MTBF)
    finally:
        client.close()
        store.close()
    out = layout.root / "out"
    assert cli_main(["knowledge", "export", "--out", str(out)]) == 0
    (knowledge,) = [k for k in json.loads((out / "active_knowledge.json").read_text()) if k["id"] == rule_id]
    assert knowledge["origin"] == "expert" and not knowledge["orphaned"] and knowledge["reviewer"] == "Rina"
    assert rule_id in (out / "active_knowledge.csv").read_text()


def test_the_document_page_and_the_add_form(layout, valves):
    """The document page lists the chunks in reading order beside the page; its form adds an
    entry (refused when not verbatim); the entry page shows its chunk with the same form."""
    _extract(layout, valves)
    store, client = _client(layout)
    try:
        page = client.get(f"/documents/{DOC}")
        assert page.status_code == 200 and 'id="add-form"' in page.text
        ids = [c.chunk_id for c in valves.chunks]
        assert [page.text.index(f'data-chunk-id="{i}"') for i in ids] == sorted(
            page.text.index(f'data-chunk-id="{i}"') for i in ids
        )
        image = client.get(f"/documents/{DOC}/pages/0.png")
        assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
        assert client.get(f"/documents/{DOC}/pages/9.png").status_code == 404
        token = client.headers[CSRF_HEADER]
        client.post("/reviewer", data={"name": "Rina", "csrf_token": token})
        form = {"csrf_token": token, "doc_id": DOC, "kind": "term", "chunk_id": _chunk_saying(valves, MISSED)}
        refused = client.post("/entries/add", data={**form, "span": "seals", "term": "seal", "definition": "a ring"})
        assert refused.status_code == 422 and "not verbatim" in refused.text
        made = client.post(
            "/entries/add",
            data={**form, "span": MISSED, "term": "standby", "definition": MISSED},
            follow_redirects=False,
        )
        assert made.status_code == 303 and made.headers["location"].startswith("/entries/t_")
        entry = client.get(made.headers["location"])
        assert entry.status_code == 200 and "added by an expert" in entry.text and 'class="chunk-text"' in entry.text
        assert store.latest()[made.headers["location"].removeprefix("/entries/")].reviewer == "Rina"
    finally:
        client.close()
        store.close()


@pytest.mark.services
def test_browser_adds_a_rule_from_a_selection_with_the_keyboard(layout, valves, tmp_path):
    _extract(layout, valves)
    # KB_SCREENSHOT_DIR: keep docs/review.md's pictures of the document page and the scores.
    shots = Path(os.environ["KB_SCREENSHOT_DIR"]) if "KB_SCREENSHOT_DIR" in os.environ else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    chunk_id = _chunk_saying(valves, MISSED)
    with review_desk(tmp_path / "desk.log", {**os.environ, "KB_DATA_DIR": str(layout.root)}) as base:
        browser = Browser(tmp_path / "chromium-profile")
        try:
            browser.goto(f"{base}/documents/{DOC}")
            browser.name_the_reviewer("Rina")
            browser.wait_for(
                "(() => { const i = document.getElementById('page-image'); return i && i.complete && i.naturalWidth > 0; })()"
            )
            # The sentence selected in its chunk (a person's drag or Shift+arrows), then Shift+R.
            browser.evaluate(
                f"(() => {{ const c = document.querySelector('[data-chunk-id=\"{chunk_id}\"]'); c.focus();"
                f" const t = c.firstChild, at = t.data.indexOf({json.dumps(MISSED)});"
                f" const r = document.createRange(); r.setStart(t, at); r.setEnd(t, at + {len(MISSED)});"
                " const s = getSelection(); s.removeAllRanges(); s.addRange(r); })()"
            )
            shift_r = {"key": "R", "code": "KeyR", "windowsVirtualKeyCode": 82, "text": "R", "modifiers": 8}  # 8: Shift
            browser.send("Input.dispatchKeyEvent", type="keyDown", **shift_r)
            browser.send("Input.dispatchKeyEvent", type="keyUp", **{k: v for k, v in shift_r.items() if k != "text"})
            browser.wait_for(
                "!document.getElementById('add-form').hidden && document.activeElement.name === 'condition'"
            )
            assert browser.evaluate("document.querySelector('#add-form [name=statement]').value") == MISSED
            browser.press("Tab")  # condition → consequence: none; the type stays interpretation
            if shots:
                browser.screenshot(shots / "review-document.png")
            ctrl_enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "modifiers": 2}  # 2: Ctrl
            browser.send("Input.dispatchKeyEvent", type="keyDown", **ctrl_enter)
            browser.send("Input.dispatchKeyEvent", type="keyUp", **ctrl_enter)
            browser.wait_for("location.pathname.startsWith('/entries/r_') && document.readyState === 'complete'")
            rule_id = browser.evaluate("document.querySelector('.entry').dataset.entryId")
            if shots:
                browser.screenshot(shots / "review-added.png")

            # In the queue, approved; in the exports.
            browser.goto(f"{base}/?kind=rule")
            state = browser.evaluate(
                f"document.querySelector('#queue tr[data-entry-id=\"{rule_id}\"] .state').textContent"
            )
            assert state == "approved"
            # Two of the readers' rules approved from the queue (j moves past the added one, a
            # approves and moves on); the document's rules marked complete: the scores.
            browser.press("j")
            for row in (1, 2):
                browser.press("a")
                browser.wait_for(
                    f"document.querySelectorAll('#queue tbody tr .state')[{row}].textContent === 'approved'"
                )
            browser.evaluate(
                f"document.querySelector('#progress tr[data-doc=\"{DOC}\"] form input[name=kind][value=rule]')"
                ".form.requestSubmit()"
            )
            # One of the readers' rules still pending: the desk asks first.
            browser.wait_for(
                "document.readyState === 'complete' && document.getElementById('pending-warning') !== null"
            )
            assert "1 rule is still pending" in browser.evaluate(
                "document.getElementById('pending-warning').textContent"
            )
            browser.evaluate("document.getElementById('confirm-complete-button').click()")
            browser.wait_for("document.readyState === 'complete' && document.getElementById('scores') !== null")
            figures = browser.evaluate(
                f"[...document.querySelectorAll('#scores tr[data-doc=\"{DOC}\"] td')].map(td => td.textContent)"
            )
            # approved, edited, rejected, added, pending, pending when marked; precision, recall
            assert figures[1:] == ["rule", "2", "0", "0", "1", "1", "1", "2/2 (1.00)", "2/3 (0.67)"], figures
            if shots:
                browser.evaluate("document.getElementById('progress').scrollIntoView()")
                browser.screenshot(shots / "review-scores.png")
        finally:
            browser.close()
    out = tmp_path / "exports"
    assert cli_main(["knowledge", "export", "--out", str(out)]) == 0
    (added,) = [k for k in json.loads((out / "active_knowledge.json").read_text()) if k["id"] == rule_id]
    assert added["text"] == MISSED and added["origin"] == "expert" and added["reviewer"] == "Rina"
    assert rule_id in (out / "active_knowledge.csv").read_text()


def test_a_later_extraction_of_the_same_entry_joins_the_experts(layout, valves):
    """A reader that later proposes the added rule (its statement; under another id, as a reader
    of another version would number it) joins it: one rule with that text in the queue, the
    reader's, approved by the expert's approval re-attached; exported once. The payload is
    written by hand: it isolates the join from which reader finds what."""
    _extract(layout, valves)
    store, client = _client(layout)
    try:
        added = _add_rule(client, valves, MISSED)
        pack_path = layout.knowledge / DOC / "interpretation_pack.json"
        pack = json.loads(pack_path.read_text(encoding="utf-8"))
        chunk_id = _chunk_saying(valves, MISSED)
        found = {
            "rule_id": "r_reader00001",
            "rule_type": "interpretation",
            "statement": MISSED,
            "provenance": {"doc_id": DOC, "span": MISSED, "page": 0, "chunk_id": chunk_id},
        }
        pack_path.write_text(json.dumps([*pack, found]), encoding="utf-8")
        rows = [r for r in _queue(client, "rule") if r["item"] and r["item"]["text"] == MISSED]
        assert [(r["entry_id"], r["state"], r["item"]["origin"]) for r in rows] == [
            ("r_reader00001", "approved", "reader")
        ]
        assert store.latest()["r_reader00001"].reattached_from == added["entry_id"]
        again = client.post("/api/entries", json=added["_body"])
        assert again.status_code == 422  # the desk has it: decide it in the queue
    finally:
        client.close()
        store.close()
    out = layout.root / "out"
    assert cli_main(["knowledge", "export", "--out", str(out)]) == 0
    knowledge = json.loads((out / "active_knowledge.json").read_text(encoding="utf-8"))
    assert [k["id"] for k in knowledge if k["text"] == MISSED] == ["r_reader00001"]


def test_an_experts_own_entry_counts_for_recall_once_it_stands_and_never_for_precision():
    """The counting alone (no desk): an entry the readers never proposed says nothing of their
    precision, whatever the expert later decided on it."""
    counts = KindScore(doc_id="d", kind="rule")
    for state, expert in [("approved", False), ("rejected", False), ("approved", True), ("rejected", True)]:
        counts.count(state, expert)
    counts.count("pending", True)
    assert (counts.approved, counts.rejected, counts.added, counts.pending) == (1, 1, 1, 0)
    assert counts.precision == (1, 2) and counts.recall == (1, 2)
