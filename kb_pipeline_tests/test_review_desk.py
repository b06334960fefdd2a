"""The review desk (issue 20, docs/review.md) on REAL extraction output: the shipped Indonesian
standard parsed by the real MinerU (flash, ~2 s, once per module) and extracted by
`kb-pipeline extract`. The diff stage, decisions that survive re-extraction, the JSON API and its
safety, the export and the Dagster asset; then, as services, the app on a real port driven by a
headless Chromium with the keyboard, and the same store on a real PostgreSQL server."""

from __future__ import annotations

import csv
import json
import os
import re
import urllib.request
from pathlib import Path

import dagster as dg
import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from kb_pipeline.cli.extract import main as extract_main
from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.defs.knowledge import knowledge_payloads_asset
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.defs.review import knowledge_exports, review_decisions_sensor
from kb_pipeline.knowledge.payloads.contracts import GlossaryEntry, Payloads, Provenance
from kb_pipeline.knowledge.payloads.review import review_queue
from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import ARTIFACT_NAME, write_artifact
from kb_pipeline.review.corpus import Corpus
from kb_pipeline.review.export import active_entries
from kb_pipeline.review.page_image import render_page
from kb_pipeline.review.store import Decision, DecisionStore, approved_decisions, default_url
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_FIELD, CSRF_HEADER, SAFE_METHODS
from kb_pipeline.settings import Settings

from . import test_postgres
from .browser import Browser
from .conftest import SAMPLE_DOCS
from .deployment import review_desk
from .helpers import asset_resources

STANDARD = "STD_2026_006_parameter_produksi"
PA_DEFINITION = "PA menyatakan persentase waktu unit siap beroperasi."
CONFLICT = "conflicting definitions — expert decision required"
# test_postgres's fixture: a throwaway PostgreSQL server on a free loopback port.
postgres = test_postgres.postgres


@pytest.fixture(scope="module")
def parsed(parses) -> ParsedDocument:
    """The standard parsed once for the session; its parse cache (the PDF the page image is
    rendered from) stays where `raw_output_dir` says for the session's lifetime."""
    return parses.run(SAMPLE_DOCS / f"{STANDARD}.pdf").document


def _extract(layout: DataLayout, document: ParsedDocument) -> dict[str, GlossaryEntry]:
    """`document` as the data root's artifact, then `kb-pipeline extract` over the data root."""
    write_artifact(layout.parsed_dir(document.doc_id) / ARTIFACT_NAME, document)
    assert extract_main([str(layout.root / "parsed")]) == 0
    glossary = json.loads((layout.knowledge / document.doc_id / "glossary.json").read_text(encoding="utf-8"))
    return {e["term"]: GlossaryEntry.model_validate(e) for e in glossary}


@pytest.fixture
def desk(layout, parsed):
    """A data root with the standard extracted, its decisions store and the app (in-process client)."""
    terms = _extract(layout, parsed)
    assert not (layout.root / "review").exists()  # no decision yet: extraction creates no database
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    token = client.get("/api/csrf-token").json()["token"]
    client.headers[CSRF_HEADER] = token
    yield layout, store, client, terms
    client.close()
    store.close()


def _decide(client: TestClient, term_id: str, decision: str, **fields) -> dict:
    response = client.post(
        "/api/decisions", json={"term_id": term_id, "decision": decision, "reviewer": "Rina", **fields}
    )
    assert response.status_code == 200, response.text
    return response.json()


def _entry(term: str, definition: str | None, doc_id: str = "doc", term_id: str | None = None) -> GlossaryEntry:
    return GlossaryEntry(
        term_id=term_id or f"t_{term.lower()}",
        term=term,
        definition=definition,
        mention_count=3,
        provenance=Provenance(doc_id=doc_id, span=definition or term),
    )


def _approval(
    n: int, entry_id: str, term: str, extracted: str, edited: str | None = None, doc_id: str = "doc"
) -> Decision:
    return Decision(
        id=n,
        entry_id=entry_id,
        doc_id=doc_id,
        term=term,
        decision="edit" if edited else "approve",
        extracted_definition=extracted,
        edited_definition=edited,
        reason=None,
        reviewer="Rina",
        decided_at="2026-01-01T00:00:00+00:00",
    )


def _write_glossary(folder: Path, *glossary: GlossaryEntry) -> dict[str, bytes]:
    """The payloads of a document with this glossary, as extraction writes them; their bytes."""
    entries = list(glossary)
    Payloads(
        glossary=entries,
        interpretation_pack=[],
        formulas=[],
        brief_context={"brief_id": "b", "provenance": {"doc_id": "doc", "span": ""}},
        review_queue=review_queue(entries, []),
        rejected=[],
        usage=[],
    ).write(folder)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_status_marks_duplicates_conflicts_and_new_entries_without_picking_a_winner(layout):
    """Each term against the approved ones, computed as the desk reads the payloads (status.py)."""
    approvals = [
        _approval(1, "t_pa", "PA", "Physical  availability.\n"),
        _approval(2, "t_ua", "UA", "Use of availability."),
        # Edited by the expert; the source has not changed since.
        _approval(3, "t_qty", "Qty", "Quantity of units.", edited="Units in use."),
        _approval(4, "t_other", "mttr", "Breakdown duration ÷ breakdowns.", doc_id="other"),
    ]
    decisions = {d.entry_id: d for d in approvals}
    folder = layout.knowledge / "doc"
    written = _write_glossary(
        folder,
        _entry("PA", "Physical availability."),
        _entry("UA", "Use of availability, revised."),
        _entry("MTTR", "Mean time to repair."),  # approved in another document: same canonical term
        _entry("Qty", "Quantity of units."),
        _entry("Production", "Output of a period."),
    )
    rows = [r for r in Corpus(layout).queue(decisions) if r.item is not None]
    by_term = {r.term: r.item for r in rows}
    assert by_term["PA"].diff_status == "duplicate"  # layout aside, the same definition
    assert by_term["Qty"].diff_status == "duplicate" and not by_term["Qty"].conflict_variants
    assert by_term["Production"].diff_status == "new"
    assert by_term["UA"].diff_status == "conflicting"
    assert by_term["UA"].conflict_variants == ["Use of availability, revised.", "Use of availability."]
    assert by_term["UA"].text == "Use of availability, revised."  # no winner: the extraction's stays
    assert by_term["MTTR"].diff_status == "conflicting"
    assert by_term["MTTR"].conflict_variants == ["Mean time to repair.", "Breakdown duration ÷ breakdowns."]
    # The queue puts the conflicts first, with the conflict reason (the row's too).
    assert [r.term for r in rows][:2] == ["MTTR", "UA"]
    assert {r.item.review_reason for r in rows[:2] if r.item} == {CONFLICT}
    assert {r.row.review_reason for r in rows[:2] if r.row} == {CONFLICT}
    # Computed, never written: the payloads are as the extraction wrote them.
    assert {p.name: p.read_bytes() for p in sorted(folder.iterdir())} == written
    assert all(row["review_reason"] != CONFLICT for row in json.loads(written["review_queue.json"]))

    # A document that only mentions a term approved elsewhere contradicts nothing; an entry that
    # lost its own approved definition is a conflict with it.
    _write_glossary(folder, _entry("MTTR", None), _entry("PA", None))
    lost = {r.term: r.item for r in Corpus(layout).queue(decisions) if r.item is not None}
    assert lost["MTTR"].diff_status == "new" and not lost["MTTR"].conflict_variants
    assert lost["PA"].diff_status == "conflicting" and lost["PA"].conflict_variants == ["Physical  availability.\n"]


def _items(client: TestClient) -> dict[str, dict]:
    """The terms' views on the desk's queue, by term: each with its status against the decisions."""
    return {r["term"]: r["item"] for r in client.get("/api/queue").json() if r["item"]}


def test_decisions_survive_reextraction_and_a_changed_definition_is_a_conflict(desk, parsed):
    layout, store, client, terms = desk
    assert {i["diff_status"] for i in _items(client).values()} == {"new"}
    pa, qty, production = terms["PA"], terms["Qty"], terms["Production"]
    _decide(client, pa.term_id, "approve")
    edited = _decide(client, qty.term_id, "edit", definition="Jumlah unit yang beroperasi dalam satu periode.")
    assert edited["edited_definition"] == "Jumlah unit yang beroperasi dalam satu periode."
    assert edited["extracted_definition"] == qty.definition  # stored beside it, never overwritten
    _decide(client, production.term_id, "approve")

    # The same document again: the same ids, every decision kept, approved entries duplicates.
    again = _extract(layout, parsed)
    assert {t: e.term_id for t, e in again.items()} == {t: e.term_id for t, e in terms.items()}
    assert _items(client)["PA"]["diff_status"] == "duplicate"
    # The edit is the approved definition; the source still says what it said when the expert
    # edited it, so that is no new question.
    assert _items(client)["Qty"]["diff_status"] == "duplicate"
    assert set(store.latest()) == {pa.term_id, qty.term_id, production.term_id}

    # The document changes: PA's definition differs, "Production" is now headed "Produksi".
    changed = parsed.model_copy(deep=True)
    changed.chunks[4].text = changed.chunks[4].text.replace("siap beroperasi", "siap bekerja")
    changed.chunks[2].heading = "Produksi"
    third = _extract(layout, changed)
    assert third["PA"].term_id == pa.term_id
    assert not third["PA"].definition_conflict  # the payload is the document's alone
    items = _items(client)
    assert items["PA"]["diff_status"] == "conflicting" and items["PA"]["review_reason"] == CONFLICT
    assert items["PA"]["conflict_variants"] == ["PA menyatakan persentase waktu unit siap bekerja.", PA_DEFINITION]
    assert "Production" not in third and items["Produksi"]["diff_status"] == "new"
    assert client.get("/api/queue").json()[0]["entry_id"] == pa.term_id  # conflicts first

    rows = {r["entry_id"]: r for r in client.get("/api/queue").json()}
    # PA was approved as the document said it before: a question again, its decision kept and
    # shown; the active glossary keeps what was approved, marked as no longer the source's.
    assert rows[pa.term_id]["state"] == "pending" and rows[pa.term_id]["decision"]["decision"] == "approve"
    assert rows[qty.term_id]["state"] == "edited"
    exported = {e.term: e for e in active_entries(store.latest(), Corpus(layout))}
    assert exported["PA"].source_changed and exported["PA"].definition == PA_DEFINITION
    assert not exported["Qty"].source_changed
    assert rows[production.term_id]["state"] == "orphaned" and rows[production.term_id]["row"] is None
    assert rows[third["Produksi"].term_id]["state"] == "pending"
    page = client.get(f"/entries/{production.term_id}")
    assert page.status_code == 200 and "orphaned" in page.text
    orphaned = client.get("/api/queue", params={"state": "orphaned"}).json()
    assert [r["entry_id"] for r in orphaned] == [production.term_id]


def test_the_payloads_are_the_documents_and_the_codes_alone(desk, parsed):
    """Extraction reads no decision: with terms approved, edited, rejected and one approved
    elsewhere with another definition, the payloads are byte for byte what they were before any
    decision; the desk shows the statuses, computed as it reads them."""
    layout, store, client, terms = desk
    folder = layout.knowledge / STANDARD
    _extract(layout, parsed)  # the model's answers cached: usage.json says so the same each time
    before = {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}
    assert len(before) == 7
    _decide(client, terms["PA"].term_id, "approve")
    _decide(client, terms["Qty"].term_id, "edit", definition="Jumlah unit.")
    _decide(client, terms["Production"].term_id, "reject", reason="not a term")
    store.record(
        entry_id="t_elsewhere",
        doc_id="other",
        term="Production",
        decision="approve",
        extracted_definition="Another definition of production.",
        reviewer="Rina",
    )
    _extract(layout, parsed)
    assert {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))} == before
    items = _items(client)
    assert (items["PA"]["diff_status"], items["Qty"]["diff_status"]) == ("duplicate", "duplicate")
    assert items["Production"]["diff_status"] == "conflicting"
    # The asset needs no review database: it has none to read.
    assert "review_db" not in knowledge_payloads_asset("test").required_resource_keys


def test_api_entries_decisions_and_refusals(desk):
    layout, store, client, terms = desk
    pa = terms["PA"]
    rows = client.get("/api/queue").json()
    assert len(rows) == 3 and {r["state"] for r in rows} == {"pending"}
    entry = client.get(f"/api/entries/{pa.term_id}").json()
    assert entry["entry"]["definition"] == PA_DEFINITION and entry["decision"] is None
    assert entry["review_reason"] == "routine confirmation"
    assert any(f["formula_latex"].startswith("PA = ") for f in entry["formulas"])  # linked formula

    unknown = client.post("/api/decisions", json={"term_id": "t_0000000000", "decision": "approve", "reviewer": "Rina"})
    assert unknown.status_code == 404 and "unknown entry_id 't_0000000000'" in unknown.json()["detail"]
    assert client.get("/api/entries/t_0000000000").status_code == 404
    for bad in (
        {"term_id": pa.term_id, "decision": "maybe", "reviewer": "Rina"},
        {"term_id": pa.term_id, "decision": "approve"},  # who decided is required
        {"term_id": pa.term_id, "decision": "reject", "reviewer": "Rina"},  # a rejection needs a reason
        {"term_id": pa.term_id, "decision": "edit", "reviewer": "Rina", "definition": "  "},
    ):
        assert client.post("/api/decisions", json=bad).status_code == 422, bad
    no_token = client.post(
        "/api/decisions",
        json={"term_id": pa.term_id, "decision": "approve", "reviewer": "Rina"},
        headers={CSRF_HEADER: "forgéd".encode("latin-1")},  # not ASCII: refused, not a 500
    )
    assert no_token.status_code == 403
    # The pages' forms: a POST without the token, or before a name was typed, is refused.
    assert (
        client.post("/decisions", data={"entry_id": pa.term_id, "decision": "approve", "csrf_token": "x"}).status_code
        == 403
    )
    token = client.headers[CSRF_HEADER]
    form = {"entry_id": pa.term_id, "decision": "reject", "reason": "wrong unit", "csrf_token": token}
    assert client.post("/decisions", data=form, follow_redirects=False).status_code == 400
    for elsewhere in ("//evil.example/", "/\\evil.example/", "https://evil.example/"):
        named = client.post(
            "/reviewer", data={"name": "Budi", "csrf_token": token, "back": elsewhere}, follow_redirects=False
        )
        assert named.headers["location"] == "/", elsewhere
    done = client.post("/decisions", data=form, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].startswith("/entries/")
    latest = store.latest()[pa.term_id]
    assert (latest.decision, latest.reason, latest.reviewer) == ("reject", "wrong unit", "Budi")
    assert store.history(pa.term_id)[-1].decided_at
    assert approved_decisions(store.latest().values()) == []
    # Another site's name for this machine (DNS rebinding) is refused.
    assert client.get("/api/queue", headers={"host": "evil.example"}).status_code == 400


def test_every_state_changing_route_refuses_a_request_without_the_token(desk):
    """Every route of the app with a method other than GET/HEAD/OPTIONS — those there are now and
    any added later — is refused without the CSRF token, or with a wrong one, before it reads
    its input: nothing is recorded."""
    layout, store, client, terms = desk
    app = client.app
    # Included routers' routes too (FastAPI keeps them nested under `app.routes`).
    writes = sorted(
        (method, route.path)
        for route in iter_route_contexts(app.routes)
        for method in route.methods or ()
        if method not in SAFE_METHODS
    )
    assert {("POST", "/reviewer"), ("POST", "/decisions"), ("POST", "/api/decisions")} <= set(writes)
    term_id = terms["PA"].term_id
    form = {"entry_id": term_id, "decision": "approve", "name": "Rina"}
    with TestClient(app, base_url="http://127.0.0.1", cookies={"kb_reviewer": "Rina"}) as stranger:
        for method, path in writes:
            url = re.sub(r"\{[^}]+\}", term_id, path)
            for attempt in (
                {},
                {"data": form},
                {"data": {**form, CSRF_FIELD: "forged"}},
                {"json": {"term_id": term_id, "decision": "approve", "reviewer": "Rina"}},
                {"json": {}, "headers": {CSRF_HEADER: "forged"}},
            ):
                response = stranger.request(method, url, follow_redirects=False, **attempt)
                assert response.status_code == 403, (method, path, attempt, response.text)
    assert store.latest() == {}


def test_a_decision_on_a_definition_that_changed_since_it_was_shown_is_refused(desk):
    layout, store, client, terms = desk
    pa = terms["PA"]
    stale = {"term_id": pa.term_id, "decision": "approve", "reviewer": "Rina", "seen_definition": "An older wording."}
    refused = client.post("/api/decisions", json=stale)
    assert refused.status_code == 409 and "reload" in refused.json()["detail"] and store.latest() == {}
    shown = client.post("/api/decisions", json={**stale, "seen_definition": PA_DEFINITION.replace(" ", "  ")})
    assert shown.status_code == 200  # layout aside, what was shown
    page = client.get(f"/entries/{terms['Qty'].term_id}").text
    assert f'name="seen_definition" value="{terms["Qty"].definition}"' in page  # the pages always send it
    missing = client.get("/no/such/page")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")


def test_a_definition_with_markup_is_shown_as_text(desk):
    layout, store, client, terms = desk
    folder = layout.knowledge / STANDARD
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    for name in ("glossary", "review_queue"):
        rows = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        for row in rows:
            row["definition"] = hostile
        (folder / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
    for path in ("/", f"/entries/{terms['PA'].term_id}"):
        page = client.get(path)
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page.text
        assert "<script>alert" not in page.text and "<img src=x" not in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]  # and no inline script would run


def test_a_model_picked_definition_is_shown_as_the_model_s(desk):
    layout, store, client, terms = desk
    path = layout.knowledge / STANDARD / "glossary.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    for row in rows:
        row["extraction_status"] = "escalated" if row["term_id"] == terms["PA"].term_id else row["extraction_status"]
    path.write_text(json.dumps(rows), encoding="utf-8")
    assert "Picked by the language model" in client.get(f"/entries/{terms['PA'].term_id}").text
    other = next(t for name, t in terms.items() if name != "PA")
    assert "Picked by the language model" not in client.get(f"/entries/{other.term_id}").text


def test_page_image_shows_the_span_highlighted(desk, parsed):
    layout, store, client, terms = desk
    page = client.get(f"/entries/{terms['PA'].term_id}")
    assert 'data-highlights="1"' in page.text and "Span highlighted" in page.text
    image = client.get(f"/entries/{terms['PA'].term_id}/page.png")
    assert image.status_code == 200 and image.content[:8] == b"\x89PNG\r\n\x1a\n"
    # The PDF is the parse cache's copy; a quote the page does not hold whole is not claimed found.
    pdf = Corpus(layout).source_pdf(STANDARD)
    assert pdf is not None and pdf.name == "origin.pdf" and pdf.is_relative_to(Path(parsed.raw_output_dir or ""))
    whole = render_page(pdf, 1, PA_DEFINITION)
    assert whole.whole_span and len(whole.highlights) == 1
    changed = render_page(pdf, 1, "PA menyatakan persentase waktu unit siap dioperasikan sepanjang periode.")
    assert changed.highlights and not changed.whole_span
    absent = render_page(pdf, 1, "Kalimat yang tidak ada di halaman ini sama sekali.")
    assert absent.highlights == [] and not absent.whole_span


def test_export_and_the_active_knowledge_asset(desk, tmp_path):
    layout, store, client, terms = desk
    _decide(client, terms["PA"].term_id, "approve")
    _decide(client, terms["Qty"].term_id, "edit", definition="Jumlah unit.")
    _decide(client, terms["Production"].term_id, "reject", reason="not a definition")

    assert cli_main(["glossary", "export", "--out", str(tmp_path / "out")]) == 0
    exported = json.loads((tmp_path / "out" / "active_glossary.json").read_text(encoding="utf-8"))
    assert [(e["term"], e["definition"], e["edited"], e["orphaned"]) for e in exported] == [
        ("PA", PA_DEFINITION, False, False),
        ("Qty", "Jumlah unit.", True, False),
    ]
    with (tmp_path / "out" / "active_glossary.csv").open(encoding="utf-8", newline="") as f:
        assert [row["term"] for row in csv.DictReader(f)] == ["PA", "Qty"]

    kb = KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(layout.root))
    with dg.instance_for_test() as instance:
        context = dg.build_sensor_context(instance=instance, resources=asset_resources(kb))
        result = review_decisions_sensor(context)
        assert isinstance(result, dg.SensorResult) and result.cursor == store.revision() == "3.3"
        assert len(result.run_requests or []) == 1
        quiet = review_decisions_sensor(
            dg.build_sensor_context(instance=instance, cursor=result.cursor, resources=asset_resources(kb))
        )
        assert isinstance(quiet, dg.SkipReason)
        done = dg.materialize([knowledge_exports], instance=instance, resources=asset_resources(kb))
        assert done.success
        (materialization,) = [
            m
            for m in done.asset_materializations_for_node("knowledge_exports")
            if m.asset_key.path == ["active_knowledge"]
        ]
        metadata = materialization.metadata
        assert metadata["entries"].value == 2 and metadata["edited"].value == 1
    assert json.loads((layout.root / "review" / "active_glossary.json").read_text(encoding="utf-8")) == exported


def test_the_database_is_sqlite_under_the_data_root_or_the_instances_postgres(tmp_path):
    assert Settings.from_env({"KB_DATA_DIR": str(tmp_path)}).review_database_url is None
    assert default_url(DataLayout(tmp_path)) == f"sqlite:///{tmp_path}/review/decisions.sqlite3"
    instance_pg = {
        "KB_PG_HOST": "db",
        "KB_PG_PORT": "5433",
        "KB_PG_USER": "kb",
        "KB_PG_PASSWORD": "p@ss/",
        "KB_PG_DB": "kb",
    }
    url = Settings.from_env(instance_pg).review_database_url
    assert url == "postgresql+psycopg2://kb:p%40ss%2F@db:5433/kb"
    assert "p%40ss" not in repr(Settings.from_env(instance_pg))
    explicit = {**instance_pg, "KB_REVIEW_DATABASE_URL": "sqlite:////srv/review.sqlite3"}
    assert Settings.from_env(explicit).review_database_url == "sqlite:////srv/review.sqlite3"


@pytest.fixture
def review_server(desk, tmp_path):
    """`kb-pipeline review` on a free loopback port over the desk's data root."""
    layout = desk[0]
    log = tmp_path / "desk.log"
    with review_desk(log, {**os.environ, "KB_DATA_DIR": str(layout.root)}) as base:
        assert urllib.request.urlopen(f"{base}/api/queue", timeout=2).status == 200
        assert "no accounts: single-expert mode on this machine" in "".join(log.read_text().splitlines(True)[:2])
        yield base


@pytest.mark.services
def test_browser_opens_an_entry_sees_the_highlighted_page_and_decides_with_the_keyboard(desk, review_server, tmp_path):
    layout, store, _client, terms = desk
    browser = Browser(tmp_path / "chromium-profile")
    try:
        browser.goto(f"{review_server}/")
        assert browser.evaluate("document.querySelectorAll('#queue tbody tr').length") == 3
        # The name, typed once: the browser session keeps it.
        browser.name_the_reviewer("Rina", then="document.querySelector('#queue tbody tr.selected') !== null")
        first = browser.evaluate("document.querySelector('#queue tbody tr.selected').dataset.entryId")
        assert first == browser.evaluate("document.querySelector('#queue tbody tr').dataset.entryId")

        browser.press("Enter")  # open the selected row
        browser.wait_for(f"location.pathname === '/entries/{first}' && document.readyState === 'complete'")
        image = browser.wait_for(
            "(() => { const i = document.getElementById('page-image');"
            " return i && i.complete && i.naturalWidth > 0 && [i.naturalWidth, +i.dataset.highlights]; })()"
        )
        assert image[0] > 500 and image[1] >= 1
        assert browser.evaluate("document.getElementById('highlight-note').textContent").startswith("Span highlighted")

        browser.press("a")  # approve: the next pending entry opens
        browser.wait_for(
            f"location.pathname.startsWith('/entries/') && location.pathname !== '/entries/{first}'"
            " && document.readyState === 'complete'"
        )
        decision = store.latest()[first]
        assert (decision.decision, decision.reviewer) == ("approve", "Rina")

        browser.press("r")  # reject: the reason field takes the keys, Enter submits
        browser.wait_for("document.activeElement && document.activeElement.id === 'reject-reason'")
        second = browser.evaluate("document.querySelector('.entry').dataset.entryId")
        browser.type("wrong unit")
        browser.press("Enter")
        browser.wait_for(f"location.pathname !== '/entries/{second}' && document.readyState === 'complete'")
        assert (store.latest()[second].decision, store.latest()[second].reason) == ("reject", "wrong unit")

        browser.press("q")  # the queue, where j moves and a approves the selected row in place
        browser.wait_for("location.pathname === '/' && document.readyState === 'complete'")
        pending = browser.evaluate(
            "[...document.querySelectorAll('#queue tbody tr')].findIndex(r => r.classList.contains('pending'))"
        )
        for _ in range(pending):
            browser.press("j")
        browser.press("a")
        browser.wait_for(
            f"document.querySelectorAll('#queue tbody tr')[{pending}].querySelector('.state').textContent === 'approved'"
        )
        assert {d.decision for d in store.latest().values()} == {"approve", "reject"} and len(store.latest()) == 3
    finally:
        browser.close()


@pytest.mark.services
@pytest.mark.slow
def test_the_same_desk_on_postgres(layout, parsed, postgres, monkeypatch):
    for key, value in postgres.items():
        monkeypatch.setenv(key, value)
    url = Settings.from_env().review_database_url
    assert url and url.startswith("postgresql+psycopg2://")
    terms = _extract(layout, parsed)
    store = DecisionStore.open(url, layout)
    try:
        client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
        client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
        _decide(client, terms["PA"].term_id, "approve")
        _decide(client, terms["Qty"].term_id, "edit", definition="Jumlah unit.")
        _decide(client, terms["Qty"].term_id, "approve")  # the latest decision counts; the history keeps both
        assert [d.decision for d in store.history(terms["Qty"].term_id)] == ["edit", "approve"]
        assert not (layout.root / "review" / "decisions.sqlite3").exists()
        _extract(layout, parsed)
        items = _items(client)
        assert items["PA"]["diff_status"] == items["Qty"]["diff_status"] == "duplicate"
        assert items["Production"]["diff_status"] == "new"
        assert [d.term for d in approved_decisions(store.latest().values())] == ["PA", "Qty"]
        client.close()
    finally:
        store.close()


def test_the_sensor_and_the_asset_read_no_database_as_no_decisions_and_create_none(tmp_path):
    layout = DataLayout(tmp_path / "data")
    kb = KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(layout.root))
    with dg.instance_for_test() as instance:
        result = review_decisions_sensor(dg.build_sensor_context(instance=instance, resources=asset_resources(kb)))
        assert isinstance(result, dg.SkipReason)
        assert dg.materialize([knowledge_exports], instance=instance, resources=asset_resources(kb)).success
        again = review_decisions_sensor(dg.build_sensor_context(instance=instance, resources=asset_resources(kb)))
        assert isinstance(again, dg.SkipReason)  # with the review folder there now
    assert not (layout.root / "review" / "decisions.sqlite3").exists()
    assert json.loads((layout.root / "review" / "active_glossary.json").read_text(encoding="utf-8")) == []


def test_a_broken_source_pdf_leaves_the_entry_decidable(desk, tmp_path, monkeypatch):
    """(`Corpus.source_pdf` pointed at a truncated copy: a parse-cache file damaged on disk.)"""
    layout, store, client, terms = desk
    broken = tmp_path / "origin.pdf"
    broken.write_bytes(b"%PDF-1.7\n1 0 obj <<")
    monkeypatch.setattr(Corpus, "source_pdf", lambda self, doc_id: broken)
    page = client.get(f"/entries/{terms['PA'].term_id}")
    assert page.status_code == 200 and 'id="approve"' in page.text


def test_the_desk_refuses_a_host_other_machines_reach_without_allow_remote(capsys):
    from kb_pipeline.cli.review import _loopback

    assert cli_main(["review", "--host", "0.0.0.0"]) == 2
    assert "refusing --host 0.0.0.0" in capsys.readouterr().err
    assert _loopback("127.0.0.1") and _loopback("::1") and _loopback("localhost") and not _loopback("192.168.1.5")
