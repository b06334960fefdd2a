"""What changed between versions of a document (issue 27, item 3; docs/review.md): each
extraction keeps its source version's reviewable payloads; the desk lists a document's versions
and diffs the latest against the last reviewed one — added, removed, changed (word by word),
decisions carried over — and the queue and `kb-pipeline status` count what is pending because
of it. On REAL MinerU parses of the generated pump handbook (test_review_knowledge.py's) and a
revised edition of it, extracted one after the other by `kb-pipeline extract`; the diff itself
also on hand-built entries."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge.payloads import payload_folder
from kb_pipeline.knowledge.payloads.contracts import Payloads
from kb_pipeline.knowledge.payloads.document_versions import (
    DocumentVersion,
    keep_version,
    list_versions,
    version_folder,
)
from kb_pipeline.review import corpus as corpus_module
from kb_pipeline.review.corpus import Corpus, QueueRow
from kb_pipeline.review.items import ReviewItem
from kb_pipeline.review.reattach import current_decisions
from kb_pipeline.review.store import Decision
from kb_pipeline.review.version_diff import base_version, diff_versions, match_entries, version_diffs

from .browser import Browser
from .test_review_desk import _extract
from .test_review_knowledge import (
    AVAILABILITY,
    DOC,
    FORMULA,
    LOW_RULE,
    REVISED_AVAILABILITY,
    REVISED_FORMULA,
    SEAL_RULE,
    VIBRATION_RULE,
    desk,  # noqa: F401 — the fixture: the first edition extracted, a store, the app (with this module's editions)
    handbook_pdf,
    review_server,  # noqa: F401 — the fixture: `kb-pipeline review` on the desk's data root
)


@pytest.fixture(scope="module")
def editions(parses, tmp_path_factory) -> tuple[ParsedDocument, ParsedDocument]:
    """The handbook and its revised edition (a foreword in front too, renumbering what follows),
    parsed once by the real MinerU (the session's parse cache) under the same file name."""
    parsed = []
    for name, revised in (("first", False), ("revised", True)):
        pdf = tmp_path_factory.mktemp(name).resolve() / f"{DOC}.pdf"
        handbook_pdf(pdf, foreword=revised, revised=revised)
        parsed.append(parses.run(pdf).document)
    return parsed[0], parsed[1]


def _queue(client: TestClient) -> list[dict]:
    return client.get("/api/queue", params={"kind": "all"}).json()


def _versions(client: TestClient) -> dict:
    response = client.get(f"/api/documents/{DOC}/versions")
    assert response.status_code == 200, response.text
    return response.json()


def _decide_all_but(client: TestClient, keep: str) -> None:
    for row in _queue(client):
        if row["term"] != keep:
            answer = client.post(
                "/api/decisions", json={"id": row["entry_id"], "decision": "approve", "reviewer": "Rina"}
            )
            assert answer.status_code == 200, answer.text


def test_a_new_version_is_kept_listed_and_diffed_against_the_last_reviewed_one(desk, editions, monkeypatch, capsys):  # noqa: F811
    layout, store, client = desk
    first, revised = editions
    single = _versions(client)
    assert [v["content_hash"] for v in single["versions"]] == [first.content_hash] and single["base"] is None
    assert "One version kept: nothing to compare yet." in client.get(f"/documents/{DOC}/versions").text
    _decide_all_but(client, keep="MTBF")  # MTBF stays undecided
    decided = len(store.latest())

    _extract(layout, revised)
    diff = _versions(client)
    assert [v["content_hash"] for v in diff["versions"]] == [first.content_hash, revised.content_hash]
    latest = diff["versions"][-1]
    assert (latest["source_file"], latest["n_pages"]) == (f"{DOC}.pdf", revised.n_pages)
    assert diff["base"]["content_hash"] == first.content_hash and diff["base_reviewed"]
    assert diff["decisions_on"] == {first.content_hash: decided}  # the re-attachments are no new decisions
    changed = {(c["row"]["kind"], c["before"]["text"], c["row"]["item"]["text"]): c for c in diff["changed"]}
    assert set(changed) == {("term", AVAILABILITY, REVISED_AVAILABILITY), ("formula", FORMULA, REVISED_FORMULA)}
    term = changed["term", AVAILABILITY, REVISED_AVAILABILITY]
    assert term["words"] == [
        ["same", "Availability is the share of scheduled hours in which the pump"],
        ["del", "can"],
        ["ins", "is ready to"],
        ["same", "run."],
    ]
    assert term["pending_for_version"] and term["row"]["state"] == "pending"
    assert [(r["kind"], r["item"]["text"], r["state"]) for r in diff["added"]] == [("rule", VIBRATION_RULE, "pending")]
    (removed,) = diff["removed"]
    assert removed["item"]["text"] == LOW_RULE and removed["decision"]["extracted_definition"] == LOW_RULE
    # The seal rule moved to another id with the foreword (and its old id now names no rule it
    # was decided on): matched by its text, its approval carried, with the version decided on.
    carried = {r["item"]["text"]: r for r in diff["carried"]}
    assert SEAL_RULE in carried and carried[SEAL_RULE]["decision"]["doc_version"] == first.content_hash
    assert carried[SEAL_RULE]["decision"]["reattached_from"] and diff["renumbered"] >= 1
    assert "MTBF" not in {r["term"] for r in diff["carried"]}  # never decided: nothing to carry
    assert diff["pending_for_version"] == 3  # two changed since decided, one new

    page = client.get(f"/documents/{DOC}/versions").text
    assert "<del>can</del> <ins>is ready to</ins>" in page and f'href="/entries/{term["row"]["entry_id"]}"' in page
    assert first.content_hash[:12] in page and revised.content_hash[:12] in page
    assert '<b id="pending-for-version">3</b>' in page and "the last reviewed" in page
    queue = client.get("/", params={"kind": "all"}).text
    assert '<td class="new-version">3</td>' in queue and f'href="/documents/{DOC}/versions"' in queue
    assert client.get("/api/progress").json()[DOC]["pending_for_version"] == 3  # the JSON says it too
    # Every document's diff: its versions listed once; one query for the versions decided on, one
    # for the removed entries' own decisions (the low rule's id names the moved seal rule's now).
    listed: list[Path] = []
    monkeypatch.setattr(corpus_module, "list_versions", lambda folder: listed.append(folder) or list_versions(folder))
    corpus = Corpus(layout)
    decisions = current_decisions(corpus, store)
    rows = corpus.queue(decisions, "all")
    statements: list[str] = []

    def executed(connection, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", executed)
    try:
        diffs = version_diffs(corpus, store, decisions, rows)
        assert diffs[DOC].pending_for_version == 3
        assert listed == [layout.document_versions(DOC)] and len(statements) == 2
        # Nothing changed since: the same diff, no query.
        assert version_diffs(corpus, store, decisions, rows)[DOC] is diffs[DOC] and len(statements) == 2
    finally:
        event.remove(store.engine, "before_cursor_execute", executed)
    entry = client.get(f"/entries/{term['row']['entry_id']}").text  # the diff beside the page
    assert 'id="changed"' in entry and 'id="page-image"' in entry and f"/documents/{DOC}/versions" in entry
    # `kb-pipeline status` says it under the drop folder's files (an instance of its own).
    drop = layout.root / "drop"
    drop.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(Path(__file__).parents[1]))
    monkeypatch.setenv("KB_DAGSTER_DIR", str(layout.dagster))
    capsys.readouterr()
    assert cli_main(["status", "--input", str(drop)]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "review: entries pending because of a new version (changed since decided on an earlier one, or new)",
        f"  {DOC}: 3 (2 changed, 1 new) in version {revised.content_hash[:12]} against "
        f"{first.content_hash[:12]}, the last reviewed",
    ]

    # The same content extracted again replaces its copy; a failed extraction removes no version.
    _extract(layout, revised)
    assert [v.extraction for v in list_versions(layout.document_versions(DOC))] == [1, 3]

    def broken(*args, **kwargs):
        raise RuntimeError("a reader's bug")

    monkeypatch.setattr(payload_folder, "extract_document", broken)
    outcome = payload_folder.write_knowledge(revised, layout.knowledge / DOC, versions=layout.document_versions(DOC))
    assert outcome.payloads is None and not (layout.knowledge / DOC / "glossary.json").exists()
    assert len(list_versions(layout.document_versions(DOC))) == 2
    page = client.get(f"/documents/{DOC}/versions")
    assert page.status_code == 200 and 'id="no-payloads"' in page.text and page.text.count("<tr data-version=") == 2
    assert "its latest extraction failed" in page.text


def test_an_unreadable_version_breaks_neither_the_extraction_nor_the_desk(desk, editions, monkeypatch, caplog):  # noqa: F811
    layout, store, client = desk
    first, revised = editions
    versions = layout.document_versions(DOC)
    kept = versions / first.content_hash
    shutil.copytree(kept, versions / ("0" * 64))  # named by a hash, its record naming another content
    shutil.copytree(kept, versions / "notes")  # named by no content hash
    (kept / "version.json").write_text(json.dumps({"doc_id": DOC}), encoding="utf-8")  # a hand edit
    caplog.set_level(logging.WARNING)
    _extract(layout, revised)  # extracted, its version kept (it used to fail, its payloads deleted)
    assert [v.content_hash for v in list_versions(versions)] == [revised.content_hash]
    assert caplog.text.count("not a version, skipped") >= 2
    assert client.get("/").status_code == 200
    assert 'id="single-version"' in client.get(f"/documents/{DOC}/versions").text

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    # A version that cannot be kept: the extraction stands, a warning says what was not kept.
    monkeypatch.setattr(payload_folder, "keep_version", no_space)
    outcome = payload_folder.write_knowledge(first, layout.knowledge / DOC, versions=versions)
    assert outcome.payloads is not None and (layout.knowledge / DOC / "glossary.json").is_file()
    assert f"version {first.content_hash[:12]} not kept" in outcome.warning and "No space left" in outcome.warning
    assert not (layout.knowledge / DOC / "FAILED.txt").exists() and outcome.warning in caplog.text


def test_the_latest_is_the_payloads_version_and_a_removed_document_says_so(desk, editions):  # noqa: F811
    layout, store, client = desk
    first, revised = editions
    _decide_all_but(client, keep="MTBF")
    _extract(layout, revised)
    versions = layout.document_versions(DOC)
    # A version of another content with a later extraction number (two extractions at once, or a
    # source put back since): the payloads are still the artifact's, the revised edition's.
    other = versions / ("a" * 64)
    shutil.copytree(versions / first.content_hash, other)
    record = DocumentVersion.model_validate_json((other / "version.json").read_bytes())
    (other / "version.json").write_text(
        record.model_copy(update={"content_hash": other.name, "extraction": 9}).model_dump_json(), encoding="utf-8"
    )
    diff = _versions(client)
    assert diff["latest"]["content_hash"] == revised.content_hash and diff["base"]["content_hash"] == first.content_hash
    assert diff["pending_for_version"] == 3 and client.get("/api/progress").json()[DOC]["pending_for_version"] == 3
    # A decision counts at the next load (the desk's diffs are kept until their inputs change).
    (added,) = diff["added"]
    answer = client.post("/api/decisions", json={"id": added["entry_id"], "decision": "approve", "reviewer": "Rina"})
    assert answer.status_code == 200 and client.get("/api/progress").json()[DOC]["pending_for_version"] == 2
    # The payloads' version's folder removed: nothing compared, no count anywhere.
    shutil.rmtree(versions / revised.content_hash)
    page = client.get(f"/documents/{DOC}/versions").text
    assert 'id="latest-not-kept"' in page and revised.content_hash[:12] in page and 'id="summary"' not in page
    assert "pending_for_version" not in client.get("/api/progress").json()[DOC]
    assert '<td class="new-version"></td>' in client.get("/", params={"kind": "all"}).text
    # The document removed (its folder gone), its versions kept: no payloads, and no failure either.
    shutil.rmtree(layout.knowledge / DOC)
    page = client.get(f"/documents/{DOC}/versions").text
    assert 'id="no-payloads"' in page and "removed from the drop folder" in page
    assert "its latest extraction failed" not in page


def test_the_versions_page_shows_markup_as_text(desk, editions):  # noqa: F811
    layout, store, client = desk
    _decide_all_but(client, keep="")
    _extract(layout, editions[1])
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    for name, field in (("review_queue.json", "definition"), ("glossary.json", "definition")):
        path = layout.knowledge / DOC / name
        rows = json.loads(path.read_text(encoding="utf-8"))
        rows[0][field] = f"{REVISED_AVAILABILITY} {hostile}"
        path.write_text(json.dumps(rows), encoding="utf-8")
    page = client.get(f"/documents/{DOC}/versions").text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<script>alert" not in page and "<img src=x" not in page


def test_viewers_read_a_documents_versions(desk):  # noqa: F811
    layout, store, client = desk
    accounts = client.app.state.desk.accounts
    accounts.add("vera", "viewer", None)
    with TestClient(client.app, base_url="http://127.0.0.1") as viewer:
        viewer.headers["Authorization"] = f"Bearer {accounts.issue_token('vera')}"
        assert viewer.get(f"/api/documents/{DOC}/versions").status_code == 200
        assert viewer.get(f"/documents/{DOC}/versions").status_code == 200
        assert viewer.get("/api/documents/nothing/versions").status_code == 404
        # `..` names a real folder (the data root): refused by the document check, before any path.
        outside = viewer.get("/api/documents/%2E%2E/versions")
        assert outside.status_code == 404 and outside.json()["detail"] == "unknown document '..'"
    with TestClient(client.app, base_url="http://127.0.0.1") as stranger:
        assert stranger.get(f"/api/documents/{DOC}/versions").status_code == 401


@pytest.mark.services
def test_browser_sees_what_the_changed_pdf_changed(desk, editions, review_server, tmp_path):  # noqa: F811
    layout, store, client = desk
    _decide_all_but(client, keep="MTBF")
    _extract(layout, editions[1])
    browser = Browser(tmp_path / "chromium-profile")
    try:
        browser.goto(f"{review_server}/?kind=all")
        browser.evaluate(f"document.querySelector('#progress a[href=\"/documents/{DOC}/versions\"]').click()")
        browser.wait_for("location.pathname.endsWith('/versions') && document.readyState === 'complete'")
        assert browser.evaluate("document.querySelectorAll('#versions tbody tr').length") == 2
        assert browser.evaluate("document.getElementById('pending-for-version').textContent") == "3"
        words = browser.evaluate(
            "[...document.querySelectorAll('#changed del, #changed ins')].map(e => e.tagName + ':' + e.textContent)"
        )
        assert "DEL:can" in words and "INS:is ready to" in words and "INS:Calendar" in words
        assert browser.evaluate("document.querySelector('#added tbody tr td:nth-child(3)').textContent") == (
            VIBRATION_RULE
        )
        if "KB_SCREENSHOT_DIR" in os.environ:  # the picture docs/review.md shows
            shots = Path(os.environ["KB_SCREENSHOT_DIR"])
            shots.mkdir(parents=True, exist_ok=True)
            browser.screenshot(shots / "review-versions.png")
        # The changed term's entry: the word diff beside its page.
        browser.evaluate("document.querySelector('#changed a').click()")
        browser.wait_for("location.pathname.startsWith('/entries/') && document.readyState === 'complete'")
        assert browser.evaluate("document.querySelectorAll('#changed del').length") >= 1
        browser.wait_for("(() => { const i = document.getElementById('page-image'); return i && i.complete; })()")
    finally:
        browser.close()


# The diff on hand-built entries.


def _item(kind: str, id_: str, text: str | None, label: str | None = None) -> ReviewItem:
    return ReviewItem(
        kind=kind, id=id_, doc_id="d", label=label or text or id_, text=text, page=0, section_no=None, span=text or "",
        review_reason="routine confirmation",
    )  # fmt: skip


def _version(n: int) -> DocumentVersion:
    return DocumentVersion(
        doc_id="d", content_hash=f"{n:064x}", source_file="d.pdf", n_pages=3, parsed_at=None,
        extracted_at="2026-12-01T00:00:00+00:00", extraction=n,
    )  # fmt: skip


def _decision(item: ReviewItem, version: int, decision: str = "approve") -> Decision:
    return Decision(
        id=1, entry_id=item.id, doc_id="d", term=item.label, decision=decision, extracted_definition=item.text,
        edited_definition=None, reason=None, reviewer="Rina", decided_at="2026-12-01T00:00:00+00:00",
        doc_version=_version(version).content_hash, kind=item.kind,
    )  # fmt: skip


def _row(item: ReviewItem, decision: Decision | None = None) -> QueueRow:
    decided = decision is not None and decision.extracted_definition == item.text
    since = None if decision is None else "carried" if decided else "changed"
    return QueueRow(
        doc_id="d", row=None, entry_id=item.id, term=item.label, state="approved" if decided else "pending",
        decision=decision, kind=item.kind, item=item, since=since,
    )  # fmt: skip


def test_renumbered_entries_are_matched_by_text_and_a_reworded_one_by_id_or_term():
    before = [
        _item("rule", "r_1", "If A, then B."),
        _item("rule", "r_2", "If C, then D."),
        _item("term", "t_1", "A pump is a machine.", label="Pump"),
        _item("term", "t_old", "A valve closes a pipe.", label="Valve"),
        _item("rule", "r_3", "If E, then F."),
    ]
    after = [
        _item("rule", "r_9", "If A, then B."),  # renumbered
        _item("rule", "r_1", "If C,\nthen D."),  # the old id of the first now names the second (layout aside)
        _item("term", "t_1", "A pump is a machine that moves fluid.", label="Pump"),  # reworded, same id
        _item("term", "t_new", "A valve shuts a pipe.", label="valve"),  # another id, the same term
        _item("rule", "r_4", "If G, then H."),  # new
    ]
    pairs, removed, added = match_entries(before, after)
    assert sorted((a.id, b.id) for a, b in pairs) == [
        ("r_1", "r_9"),
        ("r_2", "r_1"),
        ("t_1", "t_1"),
        ("t_old", "t_new"),
    ]
    assert [i.id for i in removed] == ["r_3"] and [i.id for i in added] == ["r_4"]


def test_an_ambiguous_text_matches_nothing():
    before = [_item("rule", "r_1", "If A, then B.")]
    after = [_item("rule", "r_8", "If A, then B."), _item("rule", "r_9", "If A, then B.")]
    pairs, removed, added = match_entries(before, after)
    assert not pairs and len(removed) == 1 and len(added) == 2  # which one was decided on is unknown


def test_the_base_is_the_last_reviewed_version_else_the_previous():
    v1, v2, v3 = _version(1), _version(2), _version(3)
    assert base_version([v1, v2, v3], v3, {v1.content_hash: 4}) == (v1, True)
    assert base_version([v1, v2, v3], v3, {v1.content_hash: 4, v3.content_hash: 1}) == (v1, True)  # others only
    assert base_version([v1, v2, v3], v3, {}) == (v2, False)
    assert base_version([v1], v1, {v1.content_hash: 2}) == (None, False)
    assert base_version([v1, v2], None, {v1.content_hash: 2}) == (None, False)  # the latest not kept


def test_the_latest_is_the_version_the_payloads_come_from():
    """Not the highest extraction number: a later version kept whose content the payloads are not
    (the artifact's is another), or the payloads' version not kept (its folder removed)."""
    v1, v2, v3 = _version(1), _version(2), _version(3)
    old, new = _item("rule", "r_1", "If A, then B."), _item("rule", "r_1", "If A, then C.")
    rows = [_row(new, _decision(old, 1))]
    diff = diff_versions("d", [v1, v2, v3], v2.content_hash, {v1.content_hash: 1}, [old], rows, {})
    assert (diff.latest, diff.base, diff.base_reviewed) == (v2, v1, True) and diff.pending_for_version == 1
    diff = diff_versions("d", [v1, v3], v2.content_hash, {v1.content_hash: 1}, [old], rows, {})
    assert diff.latest is None and diff.base is None and diff.pending_for_version == 0 and not diff.changed
    assert diff.payloads_version == v2.content_hash


def test_a_diff_of_500_entries():
    """Each kind; a tenth reworded, a tenth renumbered, five removed and five added; decisions on
    the first version carried (unchanged) or pending again (reworded)."""
    kinds = ("term", "rule", "formula")
    before = [_item(kinds[i % 3], f"x_{i}", f"Entry {i} says what entry {i} says.") for i in range(500)]
    after: list[QueueRow] = []
    for i, old in enumerate(before[:495]):
        text = f"Entry {i} says something else now." if i % 10 == 1 else old.text
        new = _item(old.kind, f"y_{i}" if i % 10 == 2 else old.id, text)
        after.append(_row(new, _decision(old, 1) if i % 2 == 0 else None))
    after += [_row(_item("rule", f"z_{i}", f"New rule {i}.")) for i in range(5)]
    versions = [_version(1), _version(2)]
    diff = diff_versions("d", versions, versions[1].content_hash, {versions[0].content_hash: 250}, before, after, {})
    assert (len(diff.changed), len(diff.added), len(diff.removed)) == (50, 5, 5)
    assert diff.renumbered == 50 and diff.unchanged == 445
    assert len(diff.carried) == 248  # the even ones (all unchanged: the reworded are odd)
    assert diff.pending_for_version == 0 + 5  # the reworded ones are odd: never decided
    assert diff.changed[0].words == [
        ("same", "Entry 1 says"),
        ("del", "what entry 1 says."),
        ("ins", "something else now."),
    ]


def test_a_version_kept_once_per_content(tmp_path, editions):
    first, revised = editions
    folder, versions = tmp_path / "doc", tmp_path / "versions"
    Payloads.model_validate(
        {"glossary": [], "interpretation_pack": [], "formulas": [], "review_queue": [], "rejected": [], "usage": [],
         "brief_context": {"brief_id": "b_1", "provenance": {"doc_id": DOC, "span": ""}}}
    ).write(folder)  # fmt: skip
    keep_version(first, folder, versions)
    keep_version(revised, folder, versions)
    keep_version(first, folder, versions)  # the same content again: its copy replaced, the latest now
    kept = list_versions(versions)
    assert [(v.content_hash, v.extraction) for v in kept] == [(revised.content_hash, 2), (first.content_hash, 3)]
    assert sorted(p.name for p in (versions / first.content_hash).iterdir()) == sorted(
        ("version.json", "glossary.json", "interpretation_pack.json", "formulas.json", "brief_context.json",
         "review_queue.json")
    )  # fmt: skip
    with pytest.raises(ValueError):
        version_folder(versions, "../elsewhere")


def test_versions_of_one_extraction_number_are_ordered_by_when_they_were_extracted(tmp_path):
    # Two extractions at once count the same number: the later written is the later version.
    versions = tmp_path / "versions"
    early, late = "2026-12-01T00:00:01+00:00", "2026-12-01T00:00:02+00:00"
    for one, two in ((early, late), (late, early)):
        for n, at in ((1, one), (2, two)):
            version = _version(n).model_copy(update={"extraction": 2, "extracted_at": at})
            folder = version_folder(versions, version.content_hash)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "version.json").write_text(version.model_dump_json(), encoding="utf-8")
        order = [v.extracted_at for v in list_versions(versions)]
        assert order == [early, late]
