"""The exports of the approved knowledge (issue 27 items 5 and 7, docs/review.md "Exports"): SKOS
in Turtle and TBX-Basic checked as their readers would read them, `kb-pipeline knowledge export`
(and its older name), and the Dagster assets review_decisions → active_knowledge → glossary_tbx,
glossary_skos. On a REAL MinerU parse of test_review_knowledge's generated pump handbook (its
two editions, parsed once here), decisions made through the desk's API, or, for the readers
that are not the desk, recorded in its database directly."""

from __future__ import annotations

import json
import sqlite3
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime
from pathlib import Path

import dagster as dg
import pytest
from fastapi.testclient import TestClient
from rdflib import OWL, RDF, SKOS, Graph, Literal, URIRef
from rdflib.namespace import DC

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.cli.status import version_lines
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.defs import names
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.defs.review import knowledge_exports, review_decisions_sensor
from kb_pipeline.paths import DataLayout
from kb_pipeline.review.corpus import Corpus
from kb_pipeline.review.export import ActiveEntry
from kb_pipeline.review.reattach import current_decisions
from kb_pipeline.review.skos import DEFAULT_BASE_IRI, SOURCE_CHANGED_NOTE, to_skos
from kb_pipeline.review.store import DecisionStore, default_path
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_HEADER

from .helpers import asset_resources
from .test_review_desk import _extract
from .test_review_knowledge import DOC, LOW_RULE, SEAL_RULE, editions

editions = editions  # both editions of the handbook, parsed once for this module

# Every character Turtle and XML must escape, markup, a line break and text outside ASCII.
HOSTILE = 'The "share" of hours \\ a pump runs: <script>alert(1)</script>\nsecond line — Verfügbarkeit, 可用性'
TBX = "urn:iso:std:iso:30042:ed-2"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
EXPORT_ASSETS = (names.ACTIVE_KNOWLEDGE, names.GLOSSARY_TBX, names.GLOSSARY_SKOS)


@pytest.fixture(scope="module")
def handbook(editions) -> ParsedDocument:
    return editions[0]


@pytest.fixture
def decided(layout, handbook):
    """The handbook extracted into the test's data root; MTBF (an expansion, no definition)
    rejected then approved, Availability approved then edited to HOSTILE; the term ids."""
    _extract(layout, handbook)
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
    terms = {r["term"]: r["entry_id"] for r in client.get("/api/queue").json()}

    def decide(term: str, decision: str, **fields: str) -> None:
        body = {"id": terms[term], "decision": decision, "reviewer": "Rina", **fields}
        assert client.post("/api/decisions", json=body).status_code == 200

    decide("MTBF", "reject", reason="not a term of this handbook")
    decide("Availability", "approve")
    yield layout, terms, decide
    client.close()
    store.close()


def _concepts(graph: Graph) -> set:
    return set(graph.subjects(RDF.type, SKOS.Concept))


def test_skos_one_concept_per_approved_term_with_its_labels_definition_source_and_decisions(decided, tmp_path):
    layout, terms, decide = decided
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--format", "skos", "--out", str(out)]) == 0
    first = Graph().parse(out / "active_glossary.ttl", format="turtle")
    assert _concepts(first) == {URIRef(DEFAULT_BASE_IRI + terms["Availability"])}  # the rejected MTBF: absent

    decide("MTBF", "approve")  # the expansion confirmed, after its rejection
    decide("Availability", "edit", definition=HOSTILE)
    assert cli_main(["knowledge", "export", "--format", "skos", "--out", str(out)]) == 0
    graph = Graph().parse(out / "active_glossary.ttl", format="turtle")
    mtbf, availability = (URIRef(DEFAULT_BASE_IRI + terms[t]) for t in ("MTBF", "Availability"))
    assert _concepts(graph) == {mtbf, availability}
    (scheme,) = graph.subjects(RDF.type, SKOS.ConceptScheme)
    assert scheme == URIRef(DEFAULT_BASE_IRI + "glossary")
    for concept in (mtbf, availability):
        assert set(graph.objects(concept, SKOS.inScheme)) == set(graph.objects(concept, SKOS.topConceptOf)) == {scheme}
        assert (scheme, SKOS.hasTopConcept, concept) in graph
        assert list(graph.objects(concept, DC.source)) == [Literal(f"{DOC}, page 1")]
    # The full name is the prefLabel, the abbreviation the altLabel; a term without one is its own.
    assert list(graph.objects(mtbf, SKOS.prefLabel)) == [Literal("Mean Time Between Failures", lang="und")]
    assert list(graph.objects(mtbf, SKOS.altLabel)) == [Literal("MTBF", lang="und")]
    assert list(graph.objects(mtbf, SKOS.definition)) == []  # confirmed an expansion, defined nowhere
    assert list(graph.objects(availability, SKOS.prefLabel)) == [Literal("Availability", lang="und")]
    assert list(graph.objects(availability, SKOS.altLabel)) == []
    # The edited definition, every hostile character intact after Turtle's escaping.
    (definition,) = graph.objects(availability, SKOS.definition)
    assert str(definition) == HOSTILE and definition.language == "und"
    # One changeNote per decision: when, who, what (and why). (RDF keeps no order; the time does.)
    notes = {c: [str(n).split(" ", 1) for n in graph.objects(c, SKOS.changeNote)] for c in (mtbf, availability)}
    assert sorted(what for _, what in notes[mtbf]) == ["Rina: approve", "Rina: reject — not a term of this handbook"]
    assert sorted(what for _, what in notes[availability]) == ["Rina: approve", "Rina: edit"]
    assert all(datetime.fromisoformat(when).tzinfo for when, _ in notes[mtbf] + notes[availability])


def test_skos_one_preflabel_per_language_per_concept_and_iris_stable_across_exports(decided, tmp_path):
    """SKOS S14: no two prefLabels of a concept share a language. The same knowledge exported
    in two languages merges into one graph of the same concepts, one prefLabel in each."""
    layout, terms, decide = decided
    decide("MTBF", "approve")
    merged = Graph()
    for lang in ("en", "id", "de-CH"):
        out = tmp_path / lang
        args = ["--lang", lang, "--base-iri", "https://kb.example.org/terms/", "--out", str(out)]
        assert cli_main(["knowledge", "export", "--format", "skos", *args]) == 0
        merged.parse(out / "active_glossary.ttl", format="turtle")
    concepts = _concepts(merged)
    assert concepts == {URIRef(f"https://kb.example.org/terms/{terms[t]}") for t in ("MTBF", "Availability")}
    labels = Counter((c, label.language) for c in concepts for label in merged.objects(c, SKOS.prefLabel))
    assert set(labels.values()) == {1} and len(labels) == 2 * 3
    # S13: a concept's preferred and alternative labels are disjoint.
    for c in concepts:
        assert not set(merged.objects(c, SKOS.prefLabel)) & set(merged.objects(c, SKOS.altLabel))
    # Not a language tag, not a base IRI ("…/termst_…"): refused before anything is written.
    for bad in (["--lang", "en us"], ["--base-iri", "https://kb.example.org/terms"], ["--base-iri", "terms/"]):
        with pytest.raises(SystemExit):
            cli_main(["knowledge", "export", *bad, "--out", str(tmp_path / "bad")])
    assert not (tmp_path / "bad").exists()


def test_skos_marks_a_changed_source_in_an_editorial_note(tmp_path):
    """An approval whose document now says something else keeps its definition, and says so."""
    changed = ActiveEntry(
        term_id="t_pa",
        doc_id="laporan",
        term="PA",
        definition="PA adalah persentase waktu unit siap bekerja.",
        extracted_definition="PA adalah persentase waktu unit siap bekerja.",
        edited=False,
        reviewer="Rina",
        decided_at="2026-01-02T10:00:00+00:00",
        orphaned=False,
        source_changed=True,
    )
    current = changed.model_copy(update={"term_id": "t_qty", "term": "Qty", "source_changed": False})
    text = to_skos([changed, current], Corpus(DataLayout(tmp_path)), {})
    graph = Graph().parse(data=text, format="turtle")
    pa, qty = (URIRef(DEFAULT_BASE_IRI + t) for t in ("t_pa", "t_qty"))
    assert [str(n) for n in graph.objects(pa, SKOS.editorialNote)] == [SOURCE_CHANGED_NOTE]
    assert list(graph.objects(pa, SKOS.definition)) == [Literal(changed.definition, lang="und")]
    assert list(graph.objects(qty, SKOS.editorialNote)) == []
    assert not list(graph.subjects(OWL.deprecated, None))  # neither is orphaned


# TBX-Basic (LTAC-Global/TBX-Basic_dialect, DCA: TBXcoreStructV03_TBX-Basic_integrated.rng and
# TBX-Basic_DCA.sch): the data categories each element may carry, and the picklists.
DATA_CATEGORIES = {
    "admin": {"customerSubset", "projectSubset", "source"},
    "descrip": {"context", "definition", "subjectField"},
    "ref": {"crossReference"},
    "transac": {"transactionType"},
    "transacNote": {"responsibility"},
    "xref": {"externalCrossReference", "xGraphic"},
    "termNote": {
        "administrativeStatus",
        "grammaticalGender",
        "geographicalUsage",
        "partOfSpeech",
        "termLocation",
        "termType",
    },
}
PICKLISTS = {
    "administrativeStatus": {
        "admittedTerm-admn-sts",
        "deprecatedTerm-admn-sts",
        "supersededTerm-admn-sts",
        "preferredTerm-admn-sts",
    },
    "termType": {"fullForm", "acronym", "abbreviation", "shortForm", "variant", "phrase"},
    "transactionType": {"origination", "modification"},
}
AUX_INFO = {"descrip", "descripGrp", "admin", "adminGrp", "transacGrp", "note", "ref", "xref"}


def _local(element: ET.Element) -> str:
    assert element.tag.startswith(f"{{{TBX}}}"), element.tag  # DCA: every element in TBX's namespace
    return element.tag.removeprefix(f"{{{TBX}}}")


def tbx_basic_problems(root: ET.Element) -> list[str]:
    """What TBX-Basic's DCA schema and schematron would refuse in the core structure this export
    uses (tbx/tbxHeader/text/body/conceptEntry/langSec/termSec/term), its data categories and
    picklists; [] when none."""
    problems = []
    if (_local(root), root.get("type"), root.get("style")) != ("tbx", "TBX-Basic", "dca") or not root.get(XML_LANG):
        problems.append("root: not <tbx type=TBX-Basic style=dca xml:lang=…>")
    if [_local(c) for c in root] != ["tbxHeader", "text"]:
        problems.append("tbx: not tbxHeader then text")
    if root.find(f"{{{TBX}}}tbxHeader/{{{TBX}}}fileDesc/{{{TBX}}}sourceDesc/{{{TBX}}}p") is None:
        problems.append("tbxHeader: no fileDesc/sourceDesc/p")
    body = root.find(f"{{{TBX}}}text/{{{TBX}}}body")
    concepts = list(body) if body is not None else []
    if not concepts or any(_local(c) != "conceptEntry" for c in concepts):
        problems.append("body: not one or more conceptEntry")

    def ordered(parent: ET.Element, then: str) -> None:
        # The core structure: a level's own information (auxInfo) first, then one or more `then`.
        kinds = [_local(c) for c in parent]
        first = kinds.index(then) if then in kinds else len(kinds)
        if first == len(kinds) or set(kinds[:first]) - AUX_INFO or set(kinds[first:]) != {then}:
            problems.append(f"{_local(parent)} {parent.get('id', '')}: {kinds}, not auxInfo then {then}+")

    for concept in concepts:
        ordered(concept, "langSec")
        for lang_sec in concept.findall(f"{{{TBX}}}langSec"):
            if not lang_sec.get(XML_LANG):
                problems.append("langSec without xml:lang")
            ordered(lang_sec, "termSec")
            for term_sec in lang_sec.findall(f"{{{TBX}}}termSec"):
                kinds = [_local(c) for c in term_sec]
                notes_end = next((i for i, k in enumerate(kinds[1:], 1) if k != "termNote"), len(kinds))
                if kinds[:1] != ["term"] or set(kinds[notes_end:]) - AUX_INFO:
                    problems.append(f"termSec: {kinds}, not term, termNote*, auxInfo")
    for element in root.iter():
        name, category = _local(element), element.get("type")
        if name == "termNote" and _local(_parent(root, element)) != "termSec":
            problems.append("termNote outside termSec")
        if name in DATA_CATEGORIES and category not in DATA_CATEGORIES[name]:
            problems.append(f"<{name} type={category!r}>: not a TBX-Basic data category")
        if category in PICKLISTS and element.text not in PICKLISTS[category]:
            problems.append(f"{category} {element.text!r}: not in TBX-Basic's picklist")
    return problems


def _parent(root: ET.Element, child: ET.Element) -> ET.Element:
    return next(p for p in root.iter() if child in list(p))


def test_tbx_is_well_formed_tbx_basic_dca_and_keeps_every_character(decided, tmp_path):
    layout, terms, decide = decided
    decide("MTBF", "approve")
    decide("Availability", "edit", definition=HOSTILE)
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--format", "tbx", "--lang", "en", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["active_glossary.tbx"]  # the format asked, alone
    text = (out / "active_glossary.tbx").read_text(encoding="utf-8")
    assert "<script>" not in text  # escaped, not markup
    root = ET.fromstring(text)  # well-formed
    assert tbx_basic_problems(root) == []
    ns = {"t": TBX}
    concepts = {c.get("id"): c for c in root.findall("t:text/t:body/t:conceptEntry", ns)}
    assert set(concepts) == {terms["MTBF"], terms["Availability"]}
    assert concepts[terms["Availability"]].findtext("t:langSec/t:descripGrp/t:descrip", namespaces=ns) == HOSTILE
    # The checker itself: what TBX-Basic refuses, it reports.
    concept = concepts[terms["MTBF"]]
    term_sec = concept.find("t:langSec/t:termSec", ns)
    ET.SubElement(term_sec, f"{{{TBX}}}termNote", type="register").text = "neutral"
    concept.insert(len(concept), ET.Element(f"{{{TBX}}}note"))  # after the langSec
    ET.SubElement(concept, f"{{{TBX}}}termNote", type="termType").text = "synonym"
    problems = tbx_basic_problems(root)
    assert any("not auxInfo then langSec+" in p for p in problems)
    assert any("'register'" in p for p in problems) and any("'synonym'" in p for p in problems)
    assert "termNote outside termSec" in problems


def test_knowledge_export_writes_every_format_by_default_and_glossary_export_is_the_same_command(decided, tmp_path):
    layout, terms, decide = decided
    assert cli_main(["knowledge", "export"]) == 0  # default: <data root>/review, every format
    review = layout.root / "review"
    names_written = {
        "active_glossary.json",
        "active_glossary.csv",
        "active_glossary.tbx",
        "active_glossary.ttl",
        "active_knowledge.json",
        "active_knowledge.csv",
    }
    assert names_written <= {p.name for p in review.iterdir()}
    assert [e["term"] for e in json.loads((review / "active_glossary.json").read_text(encoding="utf-8"))] == [
        "Availability"
    ]
    assert cli_main(["glossary", "export", "--out", str(tmp_path / "alias")]) == 0
    for name in names_written:
        assert (tmp_path / "alias" / name).read_bytes() == (review / name).read_bytes(), name
    assert cli_main(["knowledge", "export", "--format", "json", "--format", "csv", "--out", str(tmp_path / "two")]) == 0
    assert {p.name for p in (tmp_path / "two").iterdir()} == {n for n in names_written if n.endswith((".json", ".csv"))}


def test_the_assets_write_the_exports_downstream_of_active_knowledge(decided, tmp_path):
    layout, terms, decide = decided
    decide("MTBF", "approve")
    parents = {
        k.to_user_string(): {d.to_user_string() for d in deps} for k, deps in knowledge_exports.asset_deps.items()
    }
    assert parents == {
        names.ACTIVE_KNOWLEDGE: {names.REVIEW_DECISIONS, names.KNOWLEDGE_PAYLOADS},
        names.GLOSSARY_TBX: {names.ACTIVE_KNOWLEDGE},
        names.GLOSSARY_SKOS: {names.ACTIVE_KNOWLEDGE},
    }
    kb = KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(layout.root))
    with dg.instance_for_test() as instance:
        requested = review_decisions_sensor(dg.build_sensor_context(instance=instance, resources=asset_resources(kb)))
        assert isinstance(requested, dg.SensorResult) and len(requested.run_requests or []) == 1
        done = dg.materialize([knowledge_exports], instance=instance, resources=asset_resources(kb))
        assert done.success
        metadata = {
            m.asset_key.to_user_string(): m.metadata for m in done.asset_materializations_for_node("knowledge_exports")
        }
    assert set(metadata) == set(EXPORT_ASSETS)
    assert metadata[names.ACTIVE_KNOWLEDGE]["entries"].value == 2
    review = layout.root / "review"
    for key, name, marker in (
        (names.GLOSSARY_TBX, "active_glossary.tbx", "conceptEntry"),
        (names.GLOSSARY_SKOS, "active_glossary.ttl", "skos:Concept"),
    ):
        assert metadata[key]["concepts"].value == 2
        assert Path(metadata[key]["path"].value) == review / name
        assert marker in metadata[key]["preview"].value
    assert len(_concepts(Graph().parse(review / "active_glossary.ttl", format="turtle"))) == 2
    assert tbx_basic_problems(ET.parse(review / "active_glossary.tbx").getroot()) == []


def test_a_new_knowledge_payloads_materialisation_requests_the_whole_knowledge_exports(tmp_path):
    """The eager condition is on active_knowledge alone; knowledge_exports is one step that
    cannot be subset, so automation requests its three assets together. A stand-in for the
    per-document `knowledge_payloads` (the same key and partitions), so no MinerU."""
    documents = dg.DynamicPartitionsDefinition(name="documents")

    @dg.asset(name=names.KNOWLEDGE_PAYLOADS, partitions_def=documents)
    def knowledge_payloads() -> None:
        pass

    kb = KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(tmp_path / "data"))
    defs = dg.Definitions(assets=[knowledge_payloads, knowledge_exports], resources=asset_resources(kb))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("documents", [DOC])
        dg.materialize([knowledge_payloads], partition_key=DOC, instance=instance)
        assert dg.materialize([knowledge_exports], instance=instance, resources=asset_resources(kb)).success
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance)
        assert tick.total_requested == 0  # current
        dg.materialize([knowledge_payloads], partition_key=DOC, instance=instance)  # a re-extraction
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
        assert {key: tick.get_num_requested(dg.AssetKey(key)) for key in EXPORT_ASSETS} == dict.fromkeys(
            EXPORT_ASSETS, 1
        )


@pytest.fixture
def renumbered(layout, editions):
    """Every entry of the first edition approved in the database (no desk), then the second
    extracted: its foreword renumbers the chunks, so the rules' ids move (one old id now names
    the other rule); and, as a clustering change would, both terms get a
    new id: Availability's definition says where it went, MTBF (an expansion) has none to say
    it. No desk has read the decisions since."""
    _extract(layout, editions[0])
    store = DecisionStore.open(None, layout)
    first = {f.item.id: f.item for f in Corpus(layout).items({})}
    for item in first.values():
        store.record(
            entry_id=item.id,
            doc_id=item.doc_id,
            term=item.label,
            decision="approve",
            extracted_definition=item.text,
            reviewer="Rina",
            kind=item.kind,
        )
    _extract(layout, editions[1])
    folder = layout.knowledge / DOC
    terms = {i.label: i.id for i in first.values() if i.kind == "term"}
    for path in folder.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        for old in terms.values():
            text = text.replace(old, old.replace("t_", "t_re"))
        path.write_text(text, encoding="utf-8")
    yield layout, store, first, terms
    store.close()


def _ids(layout: DataLayout) -> tuple[dict[str, str], dict[str, str]]:
    """The entries' ids now: the rules', formula's and brief's by text, the terms' by term."""
    items = [f.item for f in Corpus(layout).items({})]
    return {i.text or "": i.id for i in items if i.kind != "term"}, {i.label: i.id for i in items if i.kind == "term"}


def test_the_exports_right_after_a_renumbering_reparse_list_each_approval_once_under_its_new_id(renumbered, tmp_path):
    """No desk opened since the re-parse: the export applies the re-attachments (reattach.py)
    without recording them, lists each approval once, under the id it has now, and deprecates
    the orphaned term in SKOS. Once the desk has recorded the moves, the export says the same."""
    layout, store, first, terms = renumbered
    now, now_terms = _ids(layout)
    # The renumbering moved the rules' ids, and gave the low rule's old one to the seal rule.
    assert now[LOW_RULE] not in first and first[now[SEAL_RULE]].text == LOW_RULE
    revision = store.revision()
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--out", str(out)]) == 0
    assert store.revision() == revision  # nothing recorded: the desk records the moves
    knowledge = json.loads((out / "active_knowledge.json").read_text(encoding="utf-8"))
    approved = sorted((i.kind, i.text) for i in first.values() if i.kind != "term")
    assert sorted((k["kind"], k["text"]) for k in knowledge) == approved  # each once
    assert all(k["id"] == now[k["text"]] and not k["orphaned"] for k in knowledge)  # under its new id
    glossary = {e["term"]: e for e in json.loads((out / "active_glossary.json").read_text(encoding="utf-8"))}
    availability = now_terms["Availability"]
    assert (glossary["Availability"]["term_id"], glossary["Availability"]["orphaned"]) == (availability, False)
    assert (glossary["MTBF"]["term_id"], glossary["MTBF"]["orphaned"]) == (terms["MTBF"], True)  # nothing to follow
    ns = {"t": TBX}
    tbx = ET.parse(out / "active_glossary.tbx").getroot()
    status = {
        c.get("id"): c.findtext("t:langSec/t:termSec/t:termNote[@type='administrativeStatus']", namespaces=ns)
        for c in tbx.findall("t:text/t:body/t:conceptEntry", ns)
    }
    assert status == {availability: "preferredTerm-admn-sts", terms["MTBF"]: "admittedTerm-admn-sts"}
    graph = Graph().parse(out / "active_glossary.ttl", format="turtle")
    moved, orphan = URIRef(DEFAULT_BASE_IRI + availability), URIRef(DEFAULT_BASE_IRI + terms["MTBF"])
    assert _concepts(graph) == {moved, orphan}
    assert list(graph.objects(orphan, OWL.deprecated)) == [Literal(True)]
    assert list(graph.objects(moved, OWL.deprecated)) == []
    notes = [str(n) for n in graph.objects(moved, SKOS.changeNote)]
    assert len(notes) == 1 and notes[0].endswith(f"Rina: approve (re-attached from {terms['Availability']})")

    # The desk reads (and records the moves): the export lists the same entries.
    assert current_decisions(Corpus(layout), store) and store.revision() != revision
    assert cli_main(["knowledge", "export", "--out", str(tmp_path / "after")]) == 0
    again = json.loads((tmp_path / "after" / "active_knowledge.json").read_text(encoding="utf-8"))
    assert [(k["id"], k["text"]) for k in again] == [(k["id"], k["text"]) for k in knowledge]
    again_terms = json.loads((tmp_path / "after" / "active_glossary.json").read_text(encoding="utf-8"))
    assert [(e["term_id"], e["orphaned"]) for e in again_terms] == [
        (e["term_id"], e["orphaned"]) for e in glossary.values()
    ]


def test_status_reads_a_read_only_database_and_writes_nothing(renumbered):
    """`kb-pipeline status`'s review lines come from the decisions with the re-attachments
    applied, never recorded: a database file it may not write (or one an older desk made) is
    read all the same, and left as it was."""
    layout, store, first, terms = renumbered
    database = default_path(layout)
    before = database.read_bytes()
    database.chmod(0o444)
    try:
        lines = version_lines(layout, None)
    finally:
        database.chmod(0o644)
    assert database.read_bytes() == before  # (chmod alone does not stop root: the bytes say it)
    assert lines[0].startswith("review: entries pending because of a new version")
    # A database the desk last opened before issue 27's columns: read without them, not blamed.
    older = database.with_name("older.sqlite3")
    older.write_bytes(before)
    with sqlite3.connect(older) as connection:
        for column in ("kind", "edited_fields", "reattached_from"):
            connection.execute(f"ALTER TABLE review_decisions DROP COLUMN {column}")
    older_lines = version_lines(layout, f"sqlite:///{older}")
    assert older_lines[0] == lines[0] and "cannot be read" not in " ".join(older_lines)
    # The count is the desk's: the same once it has recorded the moves.
    current_decisions(Corpus(layout), store)
    assert version_lines(layout, None) == lines
