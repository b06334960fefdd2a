"""Adding a missed entry forgives a typo (issue 49, item 7; docs/review.md): a field the chunk does
not say is still refused — the span check holds for experts as for readers — but the refusal
names every field refused and offers the chunk's words nearest to what was typed, and the add
form keeps the page: the form, the selection and what was typed stay, the field is marked, and
the fix is made there. On the REAL MinerU parse of test_review_expert's valve handbook."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kb_pipeline.review.expert_entries import ExpertEntries
from kb_pipeline.review.nearest_words import nearest_words
from kb_pipeline.review.store import DecisionStore
from kb_pipeline.review_desk.dependencies import CSRF_HEADER

from .browser import Browser
from .deployment import review_desk
from .test_review_desk import _extract
from .test_review_expert import DOC, MISSED, _chunk_saying, _client, valves

valves = valves  # the valve handbook, parsed once for this module

CONDITION, CONDITION_TYPO = "Valves in standby", "Valves in stanby"
CONSEQUENCE, CONSEQUENCE_TYPO = "turned by hand once a week", "turned by hand once a weak"


def test_nearest_words_are_the_chunks_own_words_closest_to_what_was_typed():
    text = "If the seal leaks during a test run, then the pump\nis taken out of service (at once)."
    assert nearest_words("the seal leaks durng a test run", text) == ["the seal leaks during a test run"]
    # Whitespace runs read as one space; the comma and parenthesis at an edge are not what was typed.
    assert nearest_words("the pump is takn out", text) == ["the pump is taken out"]
    assert nearest_words("at onse", text) == ["at once"]
    assert nearest_words("test run,", text)[0] == "test run,"  # typed with its comma: kept
    # Distinct places, best first; nothing close, nothing offered.
    assert nearest_words("the valve", "the valve leaks; the valves are shut; a value") == [
        "the valve",
        "the valves",
        "a value",
    ]
    assert nearest_words("completely unrelated words", text) == [] and nearest_words("  ", text) == []


def test_a_refused_field_is_named_with_the_nearest_words_and_the_fix_is_stored_verbatim(layout, valves):
    _extract(layout, valves)
    store, client = _client(layout)
    try:
        body = {
            "doc_id": DOC,
            "kind": "rule",
            "chunk_id": _chunk_saying(valves, MISSED),
            "span": MISSED,
            "fields": {
                "statement": MISSED,
                "condition": CONDITION_TYPO,
                "consequence": CONSEQUENCE_TYPO,
                "rule_type": "interpretation",
            },
            "reviewer": "Rina",
        }
        refused = client.post("/api/entries", json=body)
        assert refused.status_code == 422, refused.text
        # Both typos at once, each in FastAPI's shape of a field's error, with the chunk's words.
        errors = refused.json()["detail"]
        assert [(e["loc"], e["input"], e["ctx"]["nearest"]) for e in errors] == [
            (["body", "fields", "condition"], CONDITION_TYPO, [CONDITION]),
            (["body", "fields", "consequence"], CONSEQUENCE_TYPO, [CONSEQUENCE]),
        ]
        assert all("not verbatim" in e["msg"] for e in errors)
        assert ExpertEntries(store).all() == [] and store.latest() == {}  # nothing kept of a refusal

        # The form's own route (no script): the same refusal read as sentences, not as data.
        token = client.headers[CSRF_HEADER]
        client.post("/reviewer", data={"name": "Rina", "csrf_token": token})
        form = {"csrf_token": token, **{k: v for k, v in body.items() if k not in ("fields", "reviewer")}}
        page = client.post("/entries/add", data={**form, **body["fields"]})
        assert page.status_code == 422 and "condition is not verbatim" in page.text
        assert f"nearest words: “{CONDITION}”" in page.text and "&#39;loc&#39;" not in page.text

        # Fixed with the words offered: stored, each field as the chunk writes it.
        fixed = {**body["fields"], "condition": CONDITION, "consequence": CONSEQUENCE}
        added = client.post("/api/entries", json={**body, "fields": fixed})
        assert added.status_code == 200, added.text
        (entry,) = ExpertEntries(store).all()
        assert entry.fields == fixed and all(v in MISSED for k, v in entry.fields.items() if k != "rule_type")

        # A refusal of the entry as a whole (its id taken) stays a sentence.
        again = client.post("/api/entries", json={**body, "fields": fixed})
        assert again.status_code == 422 and isinstance(again.json()["detail"], str) and "already" in again.text
        # A missing text is a field refused too, with nothing to offer.
        (missing,) = client.post(
            "/api/entries", json={**body, "fields": {"condition": CONDITION, "statement": " "}}
        ).json()["detail"]
        assert missing["loc"] == ["body", "fields", "statement"] and missing["ctx"]["nearest"] == []
    finally:
        client.close()
        store.close()


@pytest.mark.services
def test_browser_fixes_a_typo_on_the_add_form_without_leaving_the_page(layout, valves, tmp_path):
    _extract(layout, valves)
    # KB_SCREENSHOT_DIR: keep docs/review.md's picture of a refused field and its offer.
    shots = Path(os.environ["KB_SCREENSHOT_DIR"]) if "KB_SCREENSHOT_DIR" in os.environ else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    chunk_id = _chunk_saying(valves, MISSED)
    with review_desk(tmp_path / "desk.log", {**os.environ, "KB_DATA_DIR": str(layout.root)}) as base:
        browser = Browser(tmp_path / "chromium-profile")
        try:
            page = f"{base}/documents/{DOC}"
            browser.goto(page)
            browser.name_the_reviewer("Rina")
            # The sentence selected in its chunk, then Shift+R: the form opens on the condition.
            browser.evaluate(
                f"(() => {{ const c = document.querySelector('[data-chunk-id=\"{chunk_id}\"]'); c.focus();"
                f" const t = c.firstChild, at = t.data.indexOf({json.dumps(MISSED)});"
                f" const r = document.createRange(); r.setStart(t, at); r.setEnd(t, at + {len(MISSED)});"
                " const s = getSelection(); s.removeAllRanges(); s.addRange(r); })()"
            )
            shift_r = {"key": "R", "code": "KeyR", "windowsVirtualKeyCode": 82, "text": "R", "modifiers": 8}
            browser.send("Input.dispatchKeyEvent", type="keyDown", **shift_r)
            browser.send("Input.dispatchKeyEvent", type="keyUp", **{k: v for k, v in shift_r.items() if k != "text"})
            browser.wait_for(
                "!document.getElementById('add-form').hidden && document.activeElement.name === 'condition'"
            )
            browser.type(CONDITION_TYPO)
            browser.press("Tab")
            browser.type(CONSEQUENCE_TYPO)
            ctrl_enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "modifiers": 2}
            browser.send("Input.dispatchKeyEvent", type="keyDown", **ctrl_enter)
            browser.send("Input.dispatchKeyEvent", type="keyUp", **ctrl_enter)

            # Refused: the same page, the form and the selection as they were, both fields marked,
            # each with the chunk's nearest words offered; the condition focused.
            browser.wait_for("document.querySelectorAll('#add-form .refused').length === 2")
            state = browser.evaluate(
                "(() => { const f = document.getElementById('add-form'), v = (n) => f.elements[n].value;"
                " return { href: location.href, hidden: f.hidden, selection: document.getElementById('add-selection').textContent,"
                " span: v('span'), statement: v('statement'), condition: v('condition'), consequence: v('consequence'),"
                " marked: [...f.querySelectorAll('[aria-invalid=true]')].map((e) => e.name),"
                " offers: [...f.querySelectorAll('.refused')].map((n) => [...n.querySelectorAll('button.nearest')].map((b) => b.textContent)),"
                " focused: document.activeElement.name,"
                " said: document.getElementById('add-refusal').textContent }; })()"
            )
            assert state == {
                "href": page,
                "hidden": False,
                "selection": MISSED,
                "span": MISSED,
                "statement": MISSED,
                "condition": CONDITION_TYPO,
                "consequence": CONSEQUENCE_TYPO,
                "marked": ["condition", "consequence"],
                "offers": [[CONDITION], [CONSEQUENCE]],
                "focused": "condition",
                "said": "Not added: fix the marked fields",
            }, state
            if shots:
                browser.screenshot(shots / "review-add-typo.png")
            # The fix, by keyboard: Tab to the offer, Enter puts it in the field (the mark goes);
            # Tab, Tab: the consequence's offer, Enter; Ctrl+Enter adds.
            browser.press("Tab")
            browser.press("Enter")
            browser.wait_for(
                "document.getElementById('add-form').elements.condition.value === " + json.dumps(CONDITION)
            )
            assert browser.evaluate("document.querySelector('#add-form [name=condition]').ariaInvalid") is None
            browser.press("Tab")
            browser.press("Tab")
            browser.press("Enter")
            browser.wait_for(
                "document.getElementById('add-form').elements.consequence.value === " + json.dumps(CONSEQUENCE)
            )
            browser.send("Input.dispatchKeyEvent", type="keyDown", **ctrl_enter)
            browser.send("Input.dispatchKeyEvent", type="keyUp", **ctrl_enter)
            browser.wait_for("location.pathname.startsWith('/entries/r_') && document.readyState === 'complete'")
            rule_id = browser.evaluate("document.querySelector('.entry').dataset.entryId")
        finally:
            browser.close()
    store = DecisionStore.open(None, layout)
    try:
        (entry,) = ExpertEntries(store).all()
        assert entry.entry_id == rule_id and entry.reviewer == "Rina"
        assert entry.fields == {
            "statement": MISSED,
            "condition": CONDITION,
            "consequence": CONSEQUENCE,
            "rule_type": "interpretation",
        }
        assert store.latest()[rule_id].decision == "approve"
    finally:
        store.close()
