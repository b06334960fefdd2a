"""The review desk for all the knowledge (issue 27, docs/review.md): rules, formulas and briefs
queued, shown beside their page and decided like terms; the full name in the queue and an
expansion asked as a confirmation; decisions re-attached after a re-parse renumbers the chunks;
progress and search. On REAL MinerU parses of a generated English handbook, in two editions:
the second adds a leading section, which renumbers every chunk after it and so moves the rules'
ids (contract §1: a rule_id hashes its chunk and offset)."""

from __future__ import annotations

import json
import os
import re
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.paths import DataLayout
from kb_pipeline.review.corpus import Corpus
from kb_pipeline.review.reattach import reattach
from kb_pipeline.review.status import Decided, entry_status
from kb_pipeline.review.store import Decision, DecisionStore, Kind, advisory_lock_key, approved_decisions
from kb_pipeline.review.word_diff import word_diff
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_HEADER
from kb_pipeline.settings import Settings

from . import test_postgres
from .browser import Browser
from .deployment import review_desk
from .test_review_desk import _extract

DOC = "pump_handbook"
PURPOSE = "This handbook describes the inspection of pumps and how their availability is measured."
SEAL_RULE = "If the seal leaks during a test run, then the pump is taken out of service at once."
LOW_RULE = "If the availability is below 80%, then the pump is sent to maintenance."
FORMULA = "Availability = Operating Hours / Scheduled Hours x 100%"
CONFLICT = "conflicting definitions — expert decision required"
postgres = test_postgres.postgres  # a throwaway PostgreSQL server on a free loopback port
# A revised edition's (test_review_versions.py): the definition and formula reworded, the
# maintenance rule replaced.
AVAILABILITY = "Availability is the share of scheduled hours in which the pump can run."
REVISED_AVAILABILITY = "Availability is the share of scheduled hours in which the pump is ready to run."
REVISED_FORMULA = "Availability = Operating Hours / Calendar Hours x 100%"
VIBRATION_RULE = "If the pump vibrates above the limit, then the pump is stopped for inspection."


def handbook_pdf(path: Path, foreword: bool, revised: bool = False) -> None:
    """A pump handbook: a purpose, an abbreviation with its expansion only, a defined term with
    its formula, two rules. The second edition adds "1. Foreword" in front and renumbers the
    sections after it; their text is the same. A revised one (`revised`) rewords the definition
    and the formula and replaces the maintenance rule."""
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    n = 1 if foreword else 0
    story = [Paragraph("Pump Inspection Handbook", ss["Title"])]
    if foreword:
        story += [
            Paragraph("1. Foreword", ss["Heading1"]),
            Paragraph("This edition adds a foreword; the text below is unchanged.", ss["BodyText"]),
        ]
    story += [
        Paragraph(f"{1 + n}. Purpose", ss["Heading1"]),
        Paragraph(PURPOSE, ss["BodyText"]),
        Paragraph(f"{2 + n}. Terms", ss["Heading1"]),
        Paragraph("MTBF (Mean Time Between Failures) is reported for every pump each month.", ss["BodyText"]),
        Paragraph(f"{2 + n}.1. Availability", ss["Heading2"]),
        Paragraph(f"{REVISED_AVAILABILITY if revised else AVAILABILITY} It is computed as follows:", ss["BodyText"]),
        Paragraph(REVISED_FORMULA if revised else FORMULA, ss["Code"]),
        Paragraph(f"{3 + n}. Rules", ss["Heading1"]),
        Paragraph(SEAL_RULE, ss["BodyText"]),
        Paragraph(f"{4 + n}. Maintenance", ss["Heading1"]),
        Paragraph(VIBRATION_RULE if revised else LOW_RULE, ss["BodyText"]),
    ]
    SimpleDocTemplate(str(path), title="Pump Inspection Handbook", invariant=True).build(story)


@pytest.fixture(scope="module")
def editions(parses, tmp_path_factory) -> tuple[ParsedDocument, ParsedDocument]:
    """Both editions parsed once by the real MinerU (the session's parse cache, which the page
    images are rendered from), under the same file name, hence the same doc_id."""
    parsed = []
    for name, foreword in (("first", False), ("second", True)):
        pdf = tmp_path_factory.mktemp(name).resolve() / f"{DOC}.pdf"
        handbook_pdf(pdf, foreword)
        parsed.append(parses.run(pdf).document)
    first, second = parsed
    assert first.doc_id == second.doc_id == DOC and len(second.chunks) == len(first.chunks) + 1
    return first, second


@pytest.fixture
def desk(layout, editions):
    _extract(layout, editions[0])
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
    yield layout, store, client
    client.close()
    store.close()


def _queue(client: TestClient, kind: str, **params) -> list[dict]:
    response = client.get("/api/queue", params={"kind": kind, **params})
    assert response.status_code == 200, response.text
    return response.json()


def _by_text(client: TestClient, kind: str) -> dict[str, dict]:
    return {r["item"]["text"]: r for r in _queue(client, kind)}


def _decide(client: TestClient, entry_id: str, decision: str, **fields) -> dict:
    response = client.post("/api/decisions", json={"id": entry_id, "decision": decision, "reviewer": "Rina", **fields})
    assert response.status_code == 200, response.text
    return response.json()


def test_every_kind_is_queued_and_decided_through_the_api(desk):
    layout, store, client = desk
    assert [r["term"] for r in _queue(client, "term")] == ["Availability", "MTBF"]  # the default: terms
    rules = _by_text(client, "rule")
    assert {SEAL_RULE, LOW_RULE} <= set(rules) and {r["kind"] for r in rules.values()} == {"rule"}
    (formula,) = _queue(client, "formula")
    (brief,) = _queue(client, "brief")
    assert formula["item"]["text"] == FORMULA and brief["item"]["text"] == PURPOSE
    # Unverified against the parser's markup (the flash tier gives none): the desk says so.
    assert formula["item"]["review_reason"].startswith("formula not found in the parser's markup")
    assert len(_queue(client, "all")) == 2 + len(rules) + 2

    seal = rules[SEAL_RULE]
    entry = client.get(f"/api/entries/{seal['entry_id']}").json()
    assert entry["kind"] == "rule" and entry["entry"]["condition"] == "If the seal leaks during a test run"
    approved = _decide(client, seal["entry_id"], "approve")
    assert (approved["kind"], approved["extracted_definition"]) == ("rule", SEAL_RULE)
    edited = _decide(
        client,
        formula["entry_id"],
        "edit",
        fields={"formula_latex": "Availability = Operating Hours / Scheduled Hours"},
    )
    assert edited["edited_fields"] == {"formula_latex": "Availability = Operating Hours / Scheduled Hours"}
    assert edited["edited_definition"] == "Availability = Operating Hours / Scheduled Hours"
    assert edited["extracted_definition"] == FORMULA  # kept beside the edit
    rejected = _decide(client, brief["entry_id"], "reject", reason="the purpose is the foreword's")
    assert rejected["kind"] == "brief"
    for bad in (
        {"fields": {"latex_verification": "verified"}},  # the markup check's, never a person's
        {"fields": {"rule_type": "guess"}},
        {"fields": {"statement": LOW_RULE}},  # nothing changed
        {"definition": "  "},
    ):
        answer = client.post(
            "/api/decisions", json={"id": rules[LOW_RULE]["entry_id"], "decision": "edit", "reviewer": "Rina", **bad}
        )
        assert answer.status_code == 422, (bad, answer.text)
    states = {r["entry_id"]: r["state"] for r in _queue(client, "all")}
    assert states[seal["entry_id"]] == "approved" and states[formula["entry_id"]] == "edited"
    assert states[brief["entry_id"]] == "rejected" and states[rules[LOW_RULE]["entry_id"]] == "pending"
    assert {d.kind for d in store.latest().values()} == {"rule", "formula", "brief"}

    # The pages: the entry beside its page, the span highlighted; the form's edit of a rule.
    page = client.get(f"/entries/{rules[LOW_RULE]['entry_id']}")
    assert page.status_code == 200 and "Span highlighted" in page.text and 'name="rule_type"' in page.text
    image = client.get(f"/entries/{rules[LOW_RULE]['entry_id']}/page.png")
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    client.post("/reviewer", data={"name": "Budi", "csrf_token": client.headers[CSRF_HEADER]})
    form = {
        "entry_id": rules[LOW_RULE]["entry_id"],
        "decision": "edit",
        "statement": LOW_RULE,
        "condition": "If the availability is below 80%",
        "consequence": "then the pump is sent to maintenance at once",
        "rule_type": "interpretation",
        "seen_definition": LOW_RULE,
        "csrf_token": client.headers[CSRF_HEADER],
    }
    assert client.post("/decisions", data=form, follow_redirects=False).status_code == 303
    latest = store.latest()[rules[LOW_RULE]["entry_id"]]
    assert latest.edited_fields == {"consequence": "then the pump is sent to maintenance at once"}
    assert latest.reviewer == "Budi" and latest.definition == LOW_RULE  # the statement itself unchanged


def test_a_formulas_variables_meanings_are_editable(desk, tmp_path):
    """Each variable's meaning is set under `variables.<symbol>`: through the API and the entry
    page's form, refused for a symbol the formula has not, kept in the history and the export."""
    layout, store, client = desk
    (formula,) = _queue(client, "formula")
    formula_id = formula["entry_id"]
    variables = client.get(f"/api/entries/{formula_id}").json()["entry"]["variables"]
    assert [v["symbol"] for v in variables] == ["Operating Hours", "Scheduled Hours"]
    edited = _decide(client, formula_id, "edit", fields={"variables.Operating Hours": "hours the pump ran"})
    assert edited["edited_fields"] == {"variables.Operating Hours": "hours the pump ran"}
    assert edited["edited_definition"] == FORMULA  # the formula itself as extracted
    rule_id = _queue(client, "rule")[0]["entry_id"]
    for entry_id, key, message in (
        (
            formula_id,
            "variables.Downtime",
            "has no variable 'Downtime' (its variables: Operating Hours, Scheduled Hours)",
        ),
        (formula_id, "variables.operating hours", "has no variable 'operating hours'"),  # a symbol is exact
        (rule_id, "variables.Operating Hours", "(its variables: none)"),
    ):
        answer = client.post(
            "/api/decisions", json={"id": entry_id, "decision": "edit", "reviewer": "Rina", "fields": {key: "x"}}
        )
        assert answer.status_code == 422 and message in answer.json()["detail"], answer.text

    # The entry page: one input per variable in the edit form, after the formula's own fields.
    page = client.get(f"/entries/{formula_id}").text
    names = re.findall(
        r'<(?:input|textarea|select) name="([^"]+)"', page.split('id="edit-form"')[1].split("</form>")[0]
    )
    assert names == ["name", "formula_latex", "unit", "variables.Operating Hours", "variables.Scheduled Hours"]
    assert "variables.Operating Hours: hours the pump ran" in page  # the history shows the edit
    token = client.headers[CSRF_HEADER]
    client.post("/reviewer", data={"name": "Budi", "csrf_token": token})
    form = {
        "entry_id": formula_id,
        "decision": "edit",
        "name": "Availability",
        "formula_latex": FORMULA,
        "unit": "",
        "variables.Operating Hours": "",
        "variables.Scheduled Hours": "hours the pump was planned to run",
        "seen_definition": FORMULA,
        "csrf_token": token,
    }
    assert client.post("/decisions", data=form, follow_redirects=False).status_code == 303
    latest = store.latest()[formula_id]
    assert latest.edited_fields == {"variables.Scheduled Hours": "hours the pump was planned to run"}
    assert latest.reviewer == "Budi" and [d.decision for d in store.history(formula_id)] == ["edit", "edit"]
    refused = client.post("/decisions", data={**form, "variables.Downtime": "x"}, follow_redirects=False)
    assert refused.status_code == 422 and "has no variable" in refused.text

    out = tmp_path / "export"
    assert cli_main(["glossary", "export", "--format", "json", "csv", "--out", str(out)]) == 0
    (exported,) = json.loads((out / "active_knowledge.json").read_text(encoding="utf-8"))
    assert exported["edited_fields"] == latest.edited_fields and exported["text"] == FORMULA
    assert "variables.Scheduled Hours" in (out / "active_knowledge.csv").read_text(encoding="utf-8")


def test_approved_rules_and_formulas_are_the_active_knowledge_the_next_extraction_is_diffed_against(desk, editions):
    layout, store, client = desk
    rules, (formula,) = _by_text(client, "rule"), _queue(client, "formula")
    assert {r["item"]["diff_status"] for r in rules.values()} == {"new"}
    _decide(client, rules[SEAL_RULE]["entry_id"], "approve")
    _decide(client, formula["entry_id"], "approve")
    _extract(layout, editions[0])  # the same document again
    assert _by_text(client, "rule")[SEAL_RULE]["item"]["diff_status"] == "duplicate"
    # The formula's line changes in the payload: a conflict with the approved one, first, pending.
    path = layout.knowledge / DOC / "formulas.json"
    formulas = json.loads(path.read_text(encoding="utf-8"))
    formulas[0]["formula_latex"] = "Availability = Operating Hours / Calendar Hours x 100%"
    path.write_text(json.dumps(formulas), encoding="utf-8")
    (changed,) = _queue(client, "formula")
    assert changed["item"]["diff_status"] == "conflicting" and changed["item"]["review_reason"] == CONFLICT
    assert changed["state"] == "pending" and changed["decision"]["decision"] == "approve"
    assert client.get(f"/api/entries/{changed['entry_id']}").json()["item"]["diff_status"] == "conflicting"
    page = client.get(f"/entries/{changed['entry_id']}").text
    assert "diff: <b>conflicting</b>" in page
    # What changed since the decision, word by word.
    assert changed["since"] == "changed" and "<del>Scheduled</del> <ins>Calendar</ins>" in page
    assert '<td class="changed">1</td>' in client.get("/", params={"kind": "all"}).text


def test_the_queue_shows_the_full_name_and_asks_an_expansion_as_a_confirmation(desk):
    layout, store, client = desk
    rows = {r["term"]: r for r in _queue(client, "term")}
    mtbf = rows["MTBF"]["item"]
    assert mtbf["full_name"] == "Mean Time Between Failures" and mtbf["text"] is None
    assert mtbf["question"] == "confirm the expansion: MTBF = Mean Time Between Failures"
    assert mtbf["review_reason"] == "term found but no definition in document"  # the contract's string kept
    assert rows["Availability"]["item"]["question"] is None
    page = client.get("/").text
    assert "<th>Full name</th>" in page and "confirm the expansion: MTBF = Mean Time Between Failures?" in page
    entry = client.get(f"/entries/{rows['MTBF']['entry_id']}").text
    assert 'id="full-name">Mean Time Between Failures<' in entry and 'id="question"' in entry
    _decide(client, rows["MTBF"]["entry_id"], "approve")
    assert {r["term"]: r["state"] for r in _queue(client, "term")}["MTBF"] == "approved"


def test_progress_per_document_and_kind_and_search(desk):
    layout, store, client = desk
    rules = _by_text(client, "rule")
    _decide(client, rules[SEAL_RULE]["entry_id"], "approve")
    progress = client.get("/api/progress").json()[DOC]
    assert progress["rule"] == [1, len(rules)] and progress["term"] == [0, 2] and progress["brief"] == [0, 1]
    assert [r["item"]["text"] for r in _queue(client, "all", q="SEAL LEAKS")] == [SEAL_RULE]
    assert [r["term"] for r in _queue(client, "all", q="between failures")] == ["MTBF"]  # the full name
    page = client.get("/", params={"kind": "rule", "q": "seal"}).text
    assert page.count('<tr data-entry-id="r_') == 1 and f"1 / {len(rules)}" in page


def _hostile(name: str) -> str:
    return f'<script>alert("{name}")</script>'


def _escaped(name: str) -> str:
    return f"&lt;script&gt;alert(&#34;{name}&#34;)&lt;/script&gt;"


# A document id is a folder's name: no "/", so its markup is an image tag's.
HOSTILE_DOC = 'pump<img src=x onerror=alert("doc")>'
ESCAPED_DOC = "pump&lt;img src=x onerror=alert(&#34;doc&#34;)&gt;"


@pytest.fixture(scope="module")
def hostile_pages(editions, tmp_path_factory) -> dict[str, str]:
    """Every page and JSON answer of the desk over the handbook with markup in every field a
    person reads there (one marker per field), and in the decisions' reviewer, reason, edited
    fields and the text decided on; fetched once for the parametrised test below."""
    layout = DataLayout(tmp_path_factory.mktemp("hostile").resolve())
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KB_DATA_DIR", str(layout.root))
        _extract(layout, editions[0])
    folder = layout.knowledge / DOC

    def rewrite(name: str, change) -> None:
        path = folder / name
        payload = json.loads(path.read_text(encoding="utf-8"))
        change(payload)
        path.write_text(json.dumps(payload), encoding="utf-8")

    def rules(pack: list[dict]) -> None:
        # Three rules: the first's fields hostile, and two to decide on (a copy of the second
        # under another id: the handbook states two, its formula's lead-in being no rule).
        pack.append({**pack[1], "rule_id": "r_" + "".join(reversed(pack[1]["rule_id"][2:]))})
        pack[0].update(statement=_hostile("statement"), condition=_hostile("condition"))
        pack[0].update(consequence=_hostile("consequence"))
        hostile_rule.append(pack[0]["rule_id"])

    hostile_rule: list[str] = []

    def formulas(entries: list[dict]) -> None:
        entries[0].update(name=_hostile("name"), formula_latex=_hostile("formula_latex"), unit=_hostile("unit"))
        entries[0]["variables"][0].update(symbol=_hostile("symbol"), meaning=_hostile("meaning"))

    def glossary(entries: list[dict]) -> None:
        for entry in entries:
            if entry["term"] == "MTBF":
                entry["full_name"] = _hostile("expansion")
            else:
                entry.update(full_name=_hostile("full_name"), definition=_hostile("definition"))

    def queue(rows: list[dict]) -> None:
        for row in rows:
            row["definition"] = None if row["term"] == "MTBF" else _hostile("definition")

    rewrite("interpretation_pack.json", rules)
    rewrite("formulas.json", formulas)
    rewrite("glossary.json", glossary)
    rewrite("review_queue.json", queue)
    rewrite("brief_context.json", lambda b: b.update(title=_hostile("title"), purpose=_hostile("purpose")))
    rewrite("brief_context.json", lambda b: b.update(key_parameters=[_hostile("key_parameters")]))
    folder.rename(layout.knowledge / HOSTILE_DOC)

    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    token = client.get("/api/csrf-token").json()["token"]
    client.headers[CSRF_HEADER] = token
    client.post("/reviewer", data={"name": _hostile("typed name"), "csrf_token": token})  # the header's
    ids = {r["term"] if r["kind"] == "term" else r["kind"]: r["entry_id"] for r in _queue(client, "all")}
    rule_ids = [r["entry_id"] for r in _queue(client, "rule")]
    decided, edited = [r for r in rule_ids if r not in hostile_rule]
    reviewer = _hostile("reviewer")
    store.record(  # decided on a text the rule no longer says: the page shows the word diff
        entry_id=decided,
        doc_id=HOSTILE_DOC,
        term="r",
        decision="approve",
        extracted_definition=_hostile("decided"),
        reviewer=reviewer,
        kind="rule",
    )
    for body in (
        {"id": edited, "decision": "edit", "fields": {"consequence": _hostile("edited")}},
        {"id": ids["formula"], "decision": "edit", "fields": {f"variables.{_hostile('symbol')}": _hostile("edited")}},
        {"id": ids["brief"], "decision": "reject", "reason": _hostile("reason")},
    ):
        answer = client.post("/api/decisions", json={**body, "reviewer": reviewer})
        assert answer.status_code == 200, answer.text
    refused = client.post(
        "/decisions",
        data={
            "entry_id": ids["formula"],
            "decision": "edit",
            "variables.x" + _hostile("error"): "y",
            "csrf_token": token,
        },
    )
    assert refused.status_code == 422
    urls = {
        "queue": "/?kind=all",
        "rules": "/?kind=rule",
        "terms": "/?kind=term",
        "rule": f"/entries/{hostile_rule[0]}",
        "diff": f"/entries/{decided}",
        "edited": f"/entries/{edited}",
        "formula": f"/entries/{ids['formula']}",
        "brief": f"/entries/{ids['brief']}",
        "term": f"/entries/{ids['Availability']}",
        "expansion": f"/entries/{ids['MTBF']}",
        "bulk": f"/documents/{quote(HOSTILE_DOC)}/approve-routine",
        "unknown": f"/entries/{quote(_hostile('unknown'))}",
        "api queue": "/api/queue?kind=all",
        "api formula": f"/api/entries/{ids['formula']}",
        "api brief": f"/api/entries/{ids['brief']}",
        "api rule": f"/api/entries/{hostile_rule[0]}",
    }
    pages = {name: client.get(url) for name, url in urls.items()}
    assert all(pages[n].status_code == 200 for n in urls if n != "unknown") and pages["unknown"].status_code == 404
    assert all(pages[n].headers["content-type"].startswith("application/json") for n in urls if n.startswith("api"))
    client.close()
    store.close()
    return {"error": refused.text, **{name: page.text for name, page in pages.items()}}


# A rule's rule_type is not here: it is one of the contract's two values (the payload's model and
# the edit refuse any other), so it can carry no markup.
@pytest.mark.parametrize(
    ("marker", "shown_on"),
    [
        ("statement", ["queue", "rules", "rule", "bulk", "api queue", "api rule"]),
        ("condition", ["rule", "api rule"]),
        ("consequence", ["rule", "api rule"]),
        ("name", ["queue", "formula", "api formula"]),
        ("formula_latex", ["queue", "formula", "api formula"]),
        ("symbol", ["formula", "api formula"]),  # the variable's symbol, and its edit's key in the history
        ("meaning", ["formula", "api formula"]),
        ("unit", ["formula", "api formula"]),
        ("title", ["queue", "brief", "api brief"]),
        ("purpose", ["queue", "brief", "api brief"]),
        ("key_parameters", ["brief", "api brief"]),
        ("full_name", ["queue", "terms", "term", "bulk", "api queue"]),  # the full-name column
        ("expansion", ["terms", "expansion", "api queue"]),  # the confirmation asked
        ("definition", ["terms", "term", "bulk", "api queue"]),
        ("decided", ["diff", "api queue"]),  # the word diff's struck words
        ("edited", ["edited", "formula", "api formula"]),  # an edit's stored fields in the history
        ("reviewer", ["queue", "rules", "diff", "edited", "formula", "brief"]),  # a decision's
        ("typed name", ["queue", "rule", "bulk", "error", "unknown"]),  # the single expert's, in the header
        ("reason", ["brief", "api brief"]),  # a rejection's
        ("error", ["error"]),  # an unknown variable's 422, echoing the key sent
        ("unknown", ["unknown"]),  # an unknown id's 404, echoing it
    ],
)
def test_every_field_with_markup_is_shown_as_text(hostile_pages, marker, shown_on):
    """A `<script>` in any field, decision or request echoed is escaped on every page (text and
    attributes) and never a tag; the JSON API gives it as it is, as data."""
    for name in shown_on:
        page = hostile_pages[name]
        if name.startswith("api"):
            assert _hostile(marker).replace('"', '\\"') in page, name
        else:
            assert _escaped(marker) in page, name
    for name, page in hostile_pages.items():
        if not name.startswith("api"):
            assert "<script>alert" not in page and "<img src=x" not in page, name


def test_a_document_id_with_markup_is_shown_as_text(hostile_pages):
    """The queue's document column, filter and progress table, an entry's line, the bulk page."""
    for name in ("queue", "rules", "rule", "formula", "brief", "bulk"):
        assert ESCAPED_DOC in hostile_pages[name], name
    # The progress table: the name as text, its versions link with the name percent-encoded.
    versions = f"/documents/{urllib.parse.quote(HOSTILE_DOC)}/versions"
    assert (
        f'<tr data-doc="{ESCAPED_DOC}"><td><a href="{versions}" title="its versions">{ESCAPED_DOC}</a></td>'
        in (hostile_pages["queue"])
    )


def test_roles_apply_to_every_kind(desk):
    layout, store, client = desk
    rule_id = _queue(client, "rule")[0]["entry_id"]
    accounts = client.app.state.desk.accounts
    accounts.add("vera", "viewer", None)
    accounts.add("rina", "reviewer", None)
    for name, may_decide in (("vera", False), ("rina", True)):
        with TestClient(client.app, base_url="http://127.0.0.1") as scripted:
            scripted.headers["Authorization"] = f"Bearer {accounts.issue_token(name)}"
            assert scripted.get("/api/queue", params={"kind": "rule"}).status_code == 200
            assert scripted.get(f"/api/entries/{rule_id}").status_code == 200
            answer = scripted.post("/api/decisions", json={"id": rule_id, "decision": "approve"})
            assert answer.status_code == (200 if may_decide else 403), answer.text
    with TestClient(client.app, base_url="http://127.0.0.1") as stranger:
        assert stranger.get("/api/queue", params={"kind": "rule"}).status_code == 401
    assert store.latest()[rule_id].reviewer == "rina"


def test_decisions_are_reattached_when_a_reparse_renumbers_the_chunks(desk, editions):
    """The second edition's leading section renumbers every chunk: each rule's id moves, and
    one old id now names the other rule. Each decision follows its rule's text, recorded as
    re-attached with both ids; the audit trail keeps the original rows."""
    layout, store, client = desk
    before = _by_text(client, "rule")
    seal, low = before[SEAL_RULE]["entry_id"], before[LOW_RULE]["entry_id"]
    _decide(client, low, "approve")
    _decide(client, seal, "reject", reason="the seal is checked by the vendor")
    terms = {r["term"]: r["entry_id"] for r in _queue(client, "term")}
    _decide(client, terms["Availability"], "approve")

    _extract(layout, editions[1])
    after = _by_text(client, "rule")
    moved_seal, moved_low = after[SEAL_RULE]["entry_id"], after[LOW_RULE]["entry_id"]
    assert moved_seal != seal and moved_low != low  # the ids moved with the chunks
    assert (after[LOW_RULE]["state"], after[SEAL_RULE]["state"]) == ("approved", "rejected")
    assert after[LOW_RULE]["decision"]["reattached_from"] == low
    assert after[SEAL_RULE]["decision"]["reattached_from"] == seal
    assert after[SEAL_RULE]["decision"]["reason"] == "the seal is checked by the vendor"
    assert after[SEAL_RULE]["decision"]["reviewer"] == "Rina"
    assert not [r for r in _queue(client, "all") if r["state"] == "orphaned"]
    # Decided on the first edition, whose text the second still says: carried over.
    assert editions[0].content_hash != editions[1].content_hash
    assert after[LOW_RULE]["since"] == after[SEAL_RULE]["since"] == "carried"
    assert "carried over" in client.get(f"/entries/{moved_low}").text
    assert {r["term"]: r["state"] for r in _queue(client, "term")}["Availability"] == "approved"  # id unchanged
    history = store.history(moved_low)
    assert [d.reattached_from for d in history][-1] == low and store.history(low)[0].decision == "approve"
    page = client.get(f"/entries/{moved_low}").text
    assert f"re-attached from {low}" in page
    # Nothing is moved twice: another read records nothing.
    revision = store.revision()
    _queue(client, "all")
    assert store.revision() == revision
    # Decided again on their new ids, the moved decisions stay off their old ids (one now the
    # other rule's, one in no payload): nothing orphaned, no second approval of a rule.
    _decide(client, moved_low, "reject", reason="superseded by the new edition")
    _decide(client, moved_seal, "approve")
    assert not [r for r in _queue(client, "all") if r["state"] == "orphaned"]
    assert {d.entry_id: d.decision for d in store.latest().values() if d.extracted_definition == LOW_RULE} == {
        moved_low: "reject"
    }
    assert LOW_RULE not in [d.extracted_definition for d in approved_decisions(store.latest().values())]


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgres", marks=[pytest.mark.services])])
def test_two_reads_at_once_record_a_reattachment_once(desk, editions, database, request, monkeypatch):
    """Every read re-attaches: two requests (a connection each) that both read the decisions
    before either moved one record the move once; one that read before a reviewer decided the
    target records nothing over that decision. On Postgres the two wait on an advisory lock
    keyed by the id's sha256 (`advisory_lock_key`), not Postgres's internal `hashtext`."""
    layout, store, client = desk
    if database == "postgres":
        for key, value in request.getfixturevalue("postgres").items():
            monkeypatch.setenv(key, value)
        store = DecisionStore.open(Settings.from_env().review_database_url, layout)
        client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    try:
        _race(layout, store, client, editions, database)
    finally:
        if database == "postgres":
            client.close()
            store.close()


def _race(layout: DataLayout, store: DecisionStore, client: TestClient, editions, database: str) -> None:
    client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
    rules = _by_text(client, "rule")
    low, seal = rules[LOW_RULE]["entry_id"], rules[SEAL_RULE]["entry_id"]
    _decide(client, low, "approve")
    _decide(client, seal, "approve")
    _extract(layout, editions[1])  # renumbers the chunks: both rules' ids move
    read_before = store.latest()  # as each request reads, before either re-attaches
    moved_seal = next(f.item.id for f in Corpus(layout).items({}) if f.item.text == SEAL_RULE)
    _decide(client, moved_seal, "reject", reason="decided on the new edition meanwhile")
    stores = [DecisionStore.open(store.url, layout) for _ in range(2)]
    barrier = threading.Barrier(2)
    statements: list[str] = []

    def hold(connection, cursor, statement, *args) -> None:
        # Each insert's transaction stays open a while, so the two requests' writes overlap.
        statements.append(statement)
        if statement.lstrip().upper().startswith("INSERT"):
            time.sleep(0.15)

    for own in stores:
        sa.event.listen(own.engine, "after_cursor_execute", hold)

    def read(own: DecisionStore) -> int:
        barrier.wait()
        return reattach(Corpus(layout), own, read_before)

    try:
        with ThreadPoolExecutor(2) as pool:
            assert list(pool.map(read, stores)) == [2, 2]  # both found both moves
    finally:
        for own in stores:
            own.close()
    latest = store.latest()
    (moved_low,) = [d for d in latest.values() if d.reattached_from == low]
    assert len(store.history(moved_low.entry_id)) == 1 and moved_low.decision == "approve"
    assert latest[moved_seal].decision == "reject"  # not overwritten by the move read before it
    assert not [d for d in store.history(moved_seal) if d.reattached_from]
    assert store.revision().startswith("4.")  # two approvals, the rejection, one move
    locks = [s for s in statements if "pg_advisory_xact_lock" in s]
    assert len(locks) == (4 if database == "postgres" else 0)  # each store, each move
    assert not [s for s in statements if "hashtext" in s]


def test_the_advisory_lock_key_is_the_ids_sha256_as_a_signed_bigint():
    """The same key in every process, release and Postgres version (two desks of different
    releases at once still exclude each other): the first 8 bytes of the id's sha256."""
    assert advisory_lock_key("r_2b75f52fba") == 0x4A6E80FBE04E7B1D  # sha256: 4a6e80fbe04e7b1d…
    keys = [advisory_lock_key(f"r_{i:010x}") for i in range(200)]
    assert all(-(2**63) <= k < 2**63 for k in keys) and len(set(keys)) == 200 and min(keys) < 0 < max(keys)
    assert advisory_lock_key("t_Verfügbarkeit") != advisory_lock_key("t_Verfugbarkeit")


def test_a_decision_with_no_entry_or_two_entries_saying_its_text_stays_orphaned(desk):
    layout, store, client = desk
    rules = _by_text(client, "rule")
    low, seal = rules[LOW_RULE]["entry_id"], rules[SEAL_RULE]["entry_id"]
    _decide(client, low, "approve")
    _decide(client, seal, "approve")
    path = layout.knowledge / DOC / "interpretation_pack.json"
    pack = json.loads(path.read_text(encoding="utf-8"))
    kept = [r for r in pack if r["statement"] not in (LOW_RULE, SEAL_RULE)]
    # The low rule gone; the seal rule under two new ids: which one was decided on is unknown.
    twins = [{**r, "rule_id": f"r_twin{i}"} for r in pack if r["statement"] == SEAL_RULE for i in (1, 2)]
    path.write_text(json.dumps(kept + twins), encoding="utf-8")
    orphaned = [r["entry_id"] for r in _queue(client, "rule") if r["state"] == "orphaned"]
    assert sorted(orphaned) == sorted([low, seal])
    assert not [d for d in store.latest().values() if d.reattached_from]
    page = client.get(f"/entries/{low}")
    assert page.status_code == 200 and "No rule has this id any more" in page.text


@pytest.fixture
def review_server(desk, tmp_path):
    with review_desk(tmp_path / "desk.log", {**os.environ, "KB_DATA_DIR": str(desk[0].root)}) as base:
        yield base


@pytest.mark.services
def test_browser_reviews_rules_and_a_formula_with_the_keyboard_and_approves_in_bulk(desk, review_server, tmp_path):
    layout, store, _client = desk
    # KB_SCREENSHOT_DIR: keep docs/review.md's pictures of the formula's edit and the bulk page.
    shots = Path(os.environ["KB_SCREENSHOT_DIR"]) if "KB_SCREENSHOT_DIR" in os.environ else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    browser = Browser(tmp_path / "chromium-profile")
    try:
        browser.goto(f"{review_server}/?kind=rule")
        browser.name_the_reviewer("Rina", then="document.querySelector('#queue tbody tr.selected') !== null")
        rows = browser.evaluate("[...document.querySelectorAll('#queue tbody tr')].map(r => r.dataset.entryId)")
        assert rows and all(r.startswith("r_") for r in rows)  # back on the rules' queue
        browser.press("Enter")
        browser.wait_for(f"location.pathname === '/entries/{rows[0]}' && document.readyState === 'complete'")
        image = browser.wait_for(
            "(() => { const i = document.getElementById('page-image');"
            " return i && i.complete && i.naturalWidth > 0 && +i.dataset.highlights; })()"
        )
        assert image >= 1
        browser.press("a")  # approve: the next pending rule opens
        browser.wait_for(
            f"location.pathname.startsWith('/entries/r_') && location.pathname !== '/entries/{rows[0]}'"
            " && document.readyState === 'complete'"
        )
        assert store.latest()[rows[0]].decision == "approve" and store.latest()[rows[0]].kind == "rule"
        second = browser.evaluate("document.querySelector('.entry').dataset.entryId")
        browser.press("e")  # the edit's first field, the statement; Ctrl+Enter saves
        browser.wait_for("document.activeElement && document.activeElement.name === 'statement'")
        browser.evaluate(
            "(() => { const f = document.querySelector('#edit-form [name=consequence]');"
            " f.focus(); f.setSelectionRange(f.value.length, f.value.length); })()"
        )
        browser.type(" (edited)")
        ctrl_enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "modifiers": 2}  # 2: Ctrl
        browser.send("Input.dispatchKeyEvent", type="keyDown", **ctrl_enter)
        browser.send("Input.dispatchKeyEvent", type="keyUp", **ctrl_enter)
        browser.wait_for(f"location.pathname !== '/entries/{second}' && document.readyState === 'complete'")
        decision = store.latest()[second]
        assert decision.decision == "edit" and decision.edited_fields
        assert decision.edited_fields["consequence"].endswith("(edited)")

        # A formula: its entry, the edit's first field with e, Tab on to a variable's meaning,
        # Ctrl+Enter saves; then its queue, a in place.
        browser.goto(f"{review_server}/?kind=formula")
        formula = browser.evaluate("document.querySelector('#queue tbody tr.selected').dataset.entryId")
        assert formula.startswith("f_")
        browser.goto(f"{review_server}/entries/{formula}")
        browser.press("e")
        browser.wait_for("document.activeElement && document.activeElement.name === 'name'")
        for _ in range(3):  # name → formula_latex → unit → the first variable's meaning
            browser.press("Tab")
        browser.wait_for("document.activeElement.name === 'variables.Operating Hours'")
        browser.type("hours the pump ran")
        if shots:
            browser.screenshot(shots / "review-formula.png")
        browser.send("Input.dispatchKeyEvent", type="keyDown", **ctrl_enter)
        browser.send("Input.dispatchKeyEvent", type="keyUp", **ctrl_enter)
        browser.wait_for(f"location.pathname !== '/entries/{formula}' && document.readyState === 'complete'")
        assert store.latest()[formula].edited_fields == {"variables.Operating Hours": "hours the pump ran"}
        browser.goto(f"{review_server}/?kind=formula")
        browser.press("a")
        browser.wait_for("document.querySelector('#queue tbody tr .state').textContent === 'approved'")
        assert store.latest()[formula].kind == "formula"

        # Bulk: the document's routine confirmations, listed, then approved with one click.
        browser.goto(f"{review_server}/?kind=all&doc={DOC}")
        browser.evaluate("document.getElementById('bulk-link').click()")
        browser.wait_for("location.pathname.endsWith('/approve-routine') && document.readyState === 'complete'")
        listed = browser.evaluate("[...document.querySelectorAll('#bulk tbody tr')].map(r => r.dataset.entryId)")
        if shots:
            browser.screenshot(shots / "review-bulk.png")
        assert listed and rows[0] not in listed  # decided already: not listed again
        browser.evaluate("document.getElementById('bulk-approve').click()")
        browser.wait_for("location.pathname === '/' && document.readyState === 'complete'")
        assert all(store.latest()[i].decision == "approve" and store.latest()[i].reviewer == "Rina" for i in listed)
    finally:
        browser.close()


def test_approve_every_routine_confirmation_of_a_document_after_a_confirmation_step(desk):
    layout, store, client = desk
    token = client.headers[CSRF_HEADER]
    client.post("/reviewer", data={"name": "Rina", "csrf_token": token})
    assert "Approve every routine confirmation of this document" in client.get("/", params={"doc": DOC}).text
    page = client.get(f"/documents/{DOC}/approve-routine")
    assert page.status_code == 200
    routine = {r["entry_id"] for r in _queue(client, "all") if r["item"]["review_reason"] == "routine confirmation"}
    shown = set(re.findall(r'name="ids" value="([^"]+)"', page.text))
    assert shown == routine and len(shown) >= 4  # the defined term, the rules, the brief; not MTBF, not the formula
    answer = client.post(
        f"/documents/{DOC}/approve-routine", data={"ids": sorted(shown), "csrf_token": token}, follow_redirects=False
    )
    assert answer.status_code == 303
    latest = store.latest()
    assert set(latest) == shown and {(d.decision, d.reviewer) for d in latest.values()} == {("approve", "Rina")}
    assert all(len(store.history(i)) == 1 for i in shown)  # one decision per entry
    # Only an admin may, with accounts.
    accounts = client.app.state.desk.accounts
    accounts.add("rina", "reviewer", None)
    accounts.add("ada", "admin", None)
    for name, status in (("rina", 403), ("ada", 200)):
        with TestClient(client.app, base_url="http://127.0.0.1") as scripted:
            scripted.headers["Authorization"] = f"Bearer {accounts.issue_token(name)}"
            assert scripted.get(f"/documents/{DOC}/approve-routine").status_code == status


def test_exports_tbx_basic_and_the_approved_rules_and_formulas(desk, tmp_path):
    layout, store, client = desk
    terms = {r["term"]: r["entry_id"] for r in _queue(client, "term")}
    _decide(client, terms["MTBF"], "approve")  # the expansion confirmed
    _decide(client, terms["Availability"], "edit", definition="The share of scheduled hours a pump can run.")
    rule = _by_text(client, "rule")[SEAL_RULE]["entry_id"]
    _decide(client, rule, "approve")
    out = tmp_path / "export"
    assert cli_main(["glossary", "export", "--format", "json", "csv", "tbx", "--lang", "en", "--out", str(out)]) == 0
    ns = {"t": "urn:iso:std:iso:30042:ed-2"}
    root = ET.parse(out / "active_glossary.tbx").getroot()  # well-formed
    assert root.tag == "{urn:iso:std:iso:30042:ed-2}tbx" and root.get("type") == "TBX-Basic"
    assert root.find("t:tbxHeader/t:fileDesc/t:sourceDesc/t:p", ns) is not None
    concepts = {c.get("id"): c for c in root.findall("t:text/t:body/t:conceptEntry", ns)}
    assert set(concepts) == {terms["MTBF"], terms["Availability"]}  # approved terms only, one entry each
    mtbf = concepts[terms["MTBF"]].find("t:langSec", ns)
    assert mtbf.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"
    forms = [
        (s.findtext("t:term", namespaces=ns), s.findtext("t:termNote[@type='termType']", namespaces=ns))
        for s in mtbf.findall("t:termSec", ns)
    ]
    assert forms == [("MTBF", "abbreviation"), ("Mean Time Between Failures", "fullForm")]
    availability = concepts[terms["Availability"]]
    assert availability.findtext("t:langSec/t:descripGrp/t:descrip[@type='definition']", namespaces=ns) == (
        "The share of scheduled hours a pump can run."
    )
    assert availability.findtext("t:langSec/t:descripGrp/t:admin[@type='source']", namespaces=ns) == f"{DOC}, page 1"
    status = availability.findtext("t:langSec/t:termSec/t:termNote[@type='administrativeStatus']", namespaces=ns)
    assert status == "preferredTerm-admn-sts"
    assert availability.findtext("t:transacGrp/t:transac", namespaces=ns) == "modification"
    assert availability.findtext("t:transacGrp/t:transacNote[@type='responsibility']", namespaces=ns) == "Rina"
    knowledge = json.loads((out / "active_knowledge.json").read_text(encoding="utf-8"))
    assert [(k["kind"], k["id"], k["text"]) for k in knowledge] == [("rule", rule, SEAL_RULE)]
    assert (out / "active_knowledge.csv").read_text(encoding="utf-8").startswith("kind,id,doc_id,label,text,")


def _approved(entry_id: str, kind: Kind, term: str, text: str) -> Decision:
    return Decision(
        id=len(entry_id),
        entry_id=entry_id,
        doc_id="d",
        term=term,
        decision="approve",
        extracted_definition=text,
        edited_definition=None,
        reason=None,
        reviewer="Rina",
        decided_at="2026-01-01T00:00:00+00:00",
        kind=kind,
    )


def test_a_rules_and_a_formulas_status_and_word_diff_by_hand():
    approved = Decided(
        {
            d.entry_id: d
            for d in (
                _approved("r_1", "rule", "If A, then B.", "If A, then B."),
                _approved("f_1", "formula", "Yield", "Yield = a / b"),
                _approved("t_1", "term", "Yield", "Yield = a / b"),  # a term: no formula's rival
            )
        }
    )

    def status(kind: Kind, entry_id: str, name: str | None, text: str) -> str:
        return entry_status(kind, entry_id, name, text, approved).diff_status

    assert status("rule", "r_1", None, "If A,\nthen  B.") == "duplicate"  # layout aside
    assert status("rule", "r_1", None, "If A, then C.") == "conflicting"
    assert status("rule", "r_2", None, "If A, then B.") == "new"  # a rule has no name to match
    assert status("formula", "f_2", "yield", "Yield = a / c") == "conflicting"  # same name
    assert status("formula", "f_2", "Yield", "Yield = a / b") == "new"
    assert status("formula", "f_3", "Output", "Output = a") == "new"
    assert word_diff("the pump is sent to maintenance", "the pump is sent  to repair at once") == [
        ("same", "the pump is sent to"),
        ("del", "maintenance"),
        ("ins", "repair at once"),
    ]
    assert word_diff(None, "new text") == [("ins", "new text")]


def test_a_variables_meaning_from_another_chunk_names_that_chunk(desk):
    """A meaning read in another chunk than the formula's shows "from <chunk id>", escaped. (The
    payload is edited here: which chunk a legend is read in is the formula tests' question.)"""
    layout, _, client = desk
    (formula,) = _queue(client, "formula")
    path = layout.knowledge / DOC / "formulas.json"
    formulas = json.loads(path.read_text(encoding="utf-8"))
    formulas[0]["variables"][0] |= {"meaning": "hours the pump ran", "meaning_chunk_id": "x::0007<b>"}
    path.write_text(json.dumps(formulas), encoding="utf-8")
    page = client.get(f"/entries/{formula['entry_id']}").text
    assert "hours the pump ran <small>from x::0007&lt;b&gt;</small>" in page
