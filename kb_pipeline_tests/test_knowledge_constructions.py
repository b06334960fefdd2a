"""Definitions read as constructions over the sentence analysis
(knowledge/readers/glossary/constructions.py): each construction on invented sentences in the
languages it reads, with the sentences it must not read; the trusted ones give entries, the others
leave their sentence open; and the same on a real MinerU parse of PDFs made here in English,
German and French."""

from __future__ import annotations

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.extract import extract_document
from kb_pipeline.knowledge.model.definition_picker import pick_definitions
from kb_pipeline.knowledge.readers.glossary.constructions import (
    CONSTRUCTIONS,
    read_stated_definitions,
    stated_definitions,
)
from kb_pipeline.knowledge.readers.glossary.mining import cluster
from kb_pipeline_tests.helpers import extract_run
from kb_pipeline_tests.samples import story_pdf


def _document(*texts: str) -> ParsedDocument:
    chunks = [Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind="text", text=t, page_idx=0) for k, t in enumerate(texts)]
    return ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=chunks)


def _readings(*texts: str) -> list[tuple[str, str, str]]:
    """(construction, term, definition) of every reading, as printed."""
    return [
        (st.construction, st.at.slice(*st.term).of(st.at.chunk.text), st.definition.of(st.at.chunk.text))
        for st in stated_definitions(_document(*texts))
    ]


@pytest.mark.parametrize(
    "text, reading",
    [
        (
            "A haul truck is a dump truck that carries ore from the pit to the crusher.",
            ("copula_class", "haul truck", "a dump truck that carries ore from the pit to the crusher"),
        ),
        (
            "Similarly, a sump is a pit in which water collects below the pumps.",
            ("copula_class", "sump", "a pit in which water collects below the pumps"),
        ),
        (
            # An unknown word opening a sentence may be tagged a pronoun: the lexicon says it is none.
            "Tailings are the fine waste of a mill that is pumped to a dam.",
            ("copula_class", "Tailings", "the fine waste of a mill that is pumped to a dam"),
        ),
        (
            "Rock that is left after the ore has been removed is called tailings.",
            ("naming", "tailings", "Rock that is left after the ore has been removed"),
        ),
        (
            "The time a truck waits under the shovel is often referred to as the queue time.",
            ("naming", "queue time", "The time a truck waits under the shovel"),
        ),
        (
            "When a pump runs without any water, it is called dry running.",
            ("naming_clause", "dry running", "When a pump runs without any water"),
        ),
        (
            "At great depths, light cannot reach the floor; thus, this is referred to as the dark zone.",
            ("naming_clause", "dark zone", "At great depths, light cannot reach the floor"),
        ),
        (
            "This is called night haulage: moving ore between the last and the first shift.",
            ("naming_gloss", "night haulage", "moving ore between the last and the first shift"),
        ),
        (
            "The term payload refers to the mass that a truck carries in one trip.",
            ("defining_verb", "payload", "the mass that a truck carries in one trip"),
        ),
        (
            "Ein Förderband ist eine Anlage, die das Erz vom Brecher zur Halde bringt.",
            ("copula_class", "Förderband", "eine Anlage, die das Erz vom Brecher zur Halde bringt"),
        ),
        (
            "Eine Strecke, auf der die Lkw das Erz transportieren, heißt Förderweg.",
            ("naming", "Förderweg", "Eine Strecke, auf der die Lkw das Erz transportieren"),
        ),
        ("Der Brecher wird als Backenbrecher bezeichnet.", ("naming", "Backenbrecher", "Der Brecher")),
        (
            "Unter Taktzeit versteht man die Zeit zwischen zwei Ladungen.",
            ("inverted", "Taktzeit", "die Zeit zwischen zwei Ladungen"),
        ),
        (
            "Un convoyeur est un appareil qui transporte le minerai vers le concasseur.",
            ("copula_class", "convoyeur", "un appareil qui transporte le minerai vers le concasseur"),
        ),
        (
            "On appelle temps de cycle la durée d'un aller-retour du camion.",
            ("inverted", "temps de cycle", "la durée d'un aller-retour du camion"),
        ),
        (
            "Le temps de cycle désigne la durée d'un aller-retour du camion.",
            ("defining_verb", "temps de cycle", "la durée d'un aller-retour du camion"),
        ),
        (
            "Una cinta transportadora es un aparato que lleva el mineral a la trituradora.",
            ("copula_class", "cinta transportadora", "un aparato que lleva el mineral a la trituradora"),
        ),
        (
            "El equipo que tritura la roca se llama molino de mandíbulas.",
            ("naming", "molino de mandíbulas", "El equipo que tritura la roca"),
        ),
        (
            "Se entiende por tiempo de ciclo la duración de un viaje del camión.",
            ("inverted", "tiempo de ciclo", "la duración de un viaje del camión"),
        ),
        (
            "Die Lkw kommen zu festen Zeiten an, wobei Tk die Ankunftszeit des k-ten Lkw bezeichnet.",
            ("legend", "Tk", "die Ankunftszeit des k-ten Lkw"),
        ),
        ("Es sei wk die Wartezeit des k-ten Lkw.", ("legend", "wk", "die Wartezeit des k-ten Lkw")),
        (
            "Le débit suit la loi Q = v S, où v est la vitesse moyenne de l'eau.",
            ("legend", "v", "la vitesse moyenne de l'eau"),
        ),
        (
            "Un nastro trasportatore è un impianto che porta il minerale al frantoio.",
            ("copula_class", "nastro trasportatore", "un impianto che porta il minerale al frantoio"),
        ),
        (
            "Per tempo di ciclo si intende la durata di un viaggio del camion.",
            ("inverted", "tempo di ciclo", "la durata di un viaggio del camion"),
        ),
    ],
)
def test_a_construction_reads_its_term_and_definition(text, reading):
    assert _readings(text) == [reading]


@pytest.mark.parametrize(
    "text, reading",
    [
        (
            "Definition 2.1. Eine Folge von Ladungen heißt Förderzyklus, wenn sie sich wiederholt.",
            ("naming", "Förderzyklus", "Eine Folge von Ladungen"),
        ),
        (
            "Définition 3.1 On appelle file stable une file dont l'attente reste finie.",
            ("inverted", "file stable", "une file dont l'attente reste finie"),
        ),
        (
            "Definition 1.2. A sequence of loads is called a haul cycle if it repeats every shift.",
            ("naming", "haul cycle", "A sequence of loads"),
        ),
    ],
)
def test_a_numbered_definition_is_read_after_its_label(text, reading):
    """ "Definition 2.1." opens the environment; the definition's own sentence starts after it,
    and its naming verb names the term."""
    assert _readings(text) == [reading]


def test_a_sentence_pointing_back_is_defined_by_the_one_before():
    before = "The crusher breaks large rocks into gravel."
    assert _readings(f"{before} This step is called primary crushing.") == [
        ("naming_anaphoric", "primary crushing", before)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "The torque wrench is important for every task on the truck.",
        "Settling tanks are a useful way of removing grit.",
        "The valve is not a check valve that closes.",
        "This is a guide for operators who start on the night shift.",
        "It is a pump that runs on diesel.",
        "A rectangle is called finite if its corners are ordered.",
        "The most important tools are the wrenches that the crew carries.",
        "For details, please refer to the fleet manual.",
        "The result means that the pump must be replaced.",
        "Im alten Werk ist die Pumpe eine Anlage aus Stahl.",
        "Leider ist die genaue Verteilung der Ankünfte unbekannt.",
        "Les pompes sont installées dans la station de relevage.",
        "La bomba es importante para la planta.",
        "Die Halle, wo wir arbeiten, ist groß.",
        "The latter is a pump that runs on diesel.",
        "Results are the figures that the crew records.",
    ],
)
def test_what_no_construction_reads(text):
    assert [r for r in _readings(text) if r[0] in _TRUSTED] == []


_TRUSTED = {c.name for c in CONSTRUCTIONS if c.trusted}


def test_an_open_construction_leaves_its_sentence_to_the_model_or_the_desk():
    """ "a structure called the blastopore" is as often a mention as a definition: the term is
    proposed, its sentence open, no definition written by code."""
    sentence = "The ore reaches a pit called the sump, where it settles."
    assert _readings(sentence) == [("naming_apposition", "sump", "a pit")]
    (entry,) = [e for e in extract_document(_document(sentence)).glossary if e.term == "sump"]
    assert entry.definition is None and entry.extraction_status == "escalated"


def test_an_open_construction_is_not_put_to_the_model():
    """The desk decides an open construction: asked, the embedded model accepted its sentence
    too readily (docs/QUALITY.md, "Definitions by construction"). A model that fails when touched stays untouched."""

    class Untouchable:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"the model was asked ({name})")

    document = _document("The ore reaches a pit called the sump, where it settles.")
    clusters = cluster(document, read_stated_definitions(document))
    picked, choices = pick_definitions(clusters, Untouchable())  # type: ignore[arg-type]
    assert picked == [] and choices.usage == []


STORY = {
    "en": [
        ("Title", "Haulage on the open pit"),
        ("Heading1", "1 Equipment"),
        ("BodyText", "A haul truck is a dump truck that carries ore from the pit to the crusher."),
        ("BodyText", "Rock that is left after the ore has been removed is called tailings."),
        ("BodyText", "The torque wrench is important for every task on the truck."),
        ("BodyText", "The term payload refers to the mass that a truck carries in one trip."),
        ("BodyText", "Every shift keeps a fuel reserve at the pit (Minimum Fuel Reserve, MFR) for the trucks."),
    ],
    "de": [
        ("Title", "Förderung im Tagebau"),
        ("Heading1", "1 Anlagen"),
        ("BodyText", "Ein Förderband ist eine Anlage, die das Erz vom Brecher zur Halde bringt."),
        ("BodyText", "Unter Taktzeit versteht man die Zeit zwischen zwei Ladungen."),
        ("BodyText", "Leider ist die genaue Verteilung der Ankünfte unbekannt."),
        ("BodyText", "Die Lkw kommen zu festen Zeiten an, wobei Tk die Ankunftszeit des k-ten Lkw bezeichnet."),
    ],
    "fr": [
        ("Title", "Le transport en carrière"),
        ("Heading1", "1 Équipements"),
        ("BodyText", "Un convoyeur est un appareil qui transporte le minerai vers le concasseur."),
        ("BodyText", "On appelle temps de cycle la durée d'un aller-retour du camion."),
        ("BodyText", "Les pompes sont installées dans la station de relevage."),
    ],
}
EXPECTED = {
    "en": {
        "haul truck": "a dump truck that carries ore from the pit to the crusher",
        "tailings": "Rock that is left after the ore has been removed",
        "payload": "the mass that a truck carries in one trip",
    },
    "de": {
        "Förderband": "eine Anlage, die das Erz vom Brecher zur Halde bringt",
        "Taktzeit": "die Zeit zwischen zwei Ladungen",
        "Tk": "die Ankunftszeit des k-ten Lkw",
    },
    "fr": {
        "convoyeur": "un appareil qui transporte le minerai vers le concasseur",
        "temps de cycle": "la durée d'un aller-retour du camion",
    },
}


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_constructions_on_a_real_parse(language, parses, tmp_path_factory):
    pdf = tmp_path_factory.mktemp(f"constructions_{language}") / f"constructions_{language}.pdf"
    story_pdf(pdf, STORY[language], title=f"constructions_{language}")
    run = parses.run(pdf)
    document, entries = run.document, extract_run(run).glossary
    glossary = {e.term: e.definition for e in entries if e.definition}
    # The sentence's full stop may come with it (another reader of the same sentence keeps it).
    assert {term: d.rstrip(".") for term, d in glossary.items()} == EXPECTED[language]
    # Verbatim: every definition is the chunk's own characters.
    texts = "\n".join(c.text for c in document.chunks)
    assert all(d in texts for d in glossary.values())
    if language == "en":
        # The long form and its abbreviation both inside one bracket.
        assert {e.term: e.full_name for e in entries if e.full_name} == {"MFR": "Minimum Fuel Reserve"}
