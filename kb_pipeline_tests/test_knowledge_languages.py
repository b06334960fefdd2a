"""Rules, conditions, formulas and symbol meanings read in five languages (English, German,
French, Spanish, Italian): each construction and its negatives on invented sentences, then the
same readers on real MinerU parses of PDFs made here in English, German and Italian."""

from __future__ import annotations

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.extract import extract_document
from kb_pipeline.knowledge.language.analysis import DocumentAnalysis
from kb_pipeline.knowledge.payloads import contracts as kc
from kb_pipeline.knowledge.readers.glossary.mining import cluster
from kb_pipeline.knowledge.readers.rules.statements import chunk_statements
from kb_pipeline_tests.helpers import extract_run
from kb_pipeline_tests.samples import story_pdf


def _document(*texts: str) -> ParsedDocument:
    chunks = [Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind="text", text=t, page_idx=0) for k, t in enumerate(texts)]
    return ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=chunks)


def _rules(*sentences: str) -> dict[str, kc.RuleEntry]:
    """Each sentence its own paragraph; the rules found, by the sentence they were read from."""
    rules = extract_document(_document("\n\n".join(sentences))).interpretation_pack
    return {s: r for s in sentences for r in rules if r.statement and r.statement.rstrip(".") in s}


# (sentence, its condition) for each rule; sentences that state no rule a reader may emit.
RULES = {
    "en": (
        [
            ("If the seal leaks, the operator must replace it before the next start.", "If the seal leaks"),
            (
                "The discharge pressure should not exceed 4 bar unless a relief valve is fitted.",
                "unless a relief valve is fitted",
            ),
            ("Check the oil level before every start.", None),
            # A threshold criterion: a label set to a value compared with a number.
            ("Hypertension: systolic blood pressure ≥ 140 mmHg.", None),
            # A proviso set off by commas inside the sentence.
            ("The nut, provided the thread is intact, may be reused.", "provided the thread is intact"),
        ],
        [
            "The pump was installed in the station in 2019 by the manufacturer.",
            "In 2019 the mean flow at the gauge was < 5 m3/s.",
            "The guard can be removed by hand.",  # a capability or an option: left to a model
            "Let D be the set of all training pairs.",
        ],
    ),
    "de": (
        [
            # Verb-second: the scope stands before the finite verb, with no comma.
            ("Bei kaltem Motor muss das Ventil langsam geöffnet werden.", "Bei kaltem Motor"),
            (
                "Wenn der Druck über 4 bar steigt, ist das Ventil sofort zu schließen.",
                "Wenn der Druck über 4 bar steigt",
            ),
            ("Der Betreiber darf die Dichtung nicht selbst ersetzen.", None),
            ("Prüfen Sie den Ölstand vor jedem Start.", None),
        ],
        [
            "Wir betrachten ein einfaches Modell mit einer Warteschlange.",
            "Die Anlage wurde im Jahr 2019 von einem regionalen Betrieb gebaut.",
        ],
    ),
    "fr": (
        [
            ("Si le réservoir est plein, l'opérateur doit fermer la vanne.", "Si le réservoir est plein"),
            (
                "L'écrou est réutilisable, à condition que le filetage soit intact.",
                "à condition que le filetage soit intact",
            ),
            ("Vérifier le niveau d'huile avant chaque démarrage.", None),
            # A value past a threshold classed as something.
            ("Un TA > 16 mmol/L est considéré comme élevé.", None),
        ],
        ["Nous avons étudié trois cas dans ce chapitre.", "La pompe a été installée dans la station en 2019."],
    ),
    "es": (
        [
            ("Si el depósito está lleno, el operador debe cerrar la válvula.", "Si el depósito está lleno"),
            ("Se prohíbe abrir la tapa durante el funcionamiento.", None),
            ("Verificar el nivel de aceite antes de cada arranque.", None),
        ],
        ["El sistema tiene tres partes principales.", "La bomba puede funcionar sin supervisión."],
    ),
    "it": (
        [
            (
                "In caso di decesso dell'Assicurato, il Beneficiario deve inviare la richiesta alla Compagnia.",
                "In caso di decesso dell'Assicurato",
            ),
            (
                "Il contratto rimane in vigore, a condizione che il premio sia pagato.",
                "a condizione che il premio sia pagato",
            ),
            # The future a contract binds a party with, under a condition.
            (
                "Qualora il capitale fosse inferiore al premio, sarà liquidato un importo ulteriore.",
                "Qualora il capitale fosse inferiore al premio",
            ),
            (
                "Alla data di scadenza, sempre che l'Assicurato sia in vita, l'Impresa corrisponderà un ammontare "
                "calcolato come prodotto tra il valore e il numero delle quote.",
                "sempre che l'Assicurato sia in vita",
            ),
            ("Il Contraente è tenuto a comunicare ogni variazione dell'indirizzo.", None),
            ("Tale importo non potrà essere superiore al 5% del premio.", None),
            ("Compilare il modulo e inviarlo alla Compagnia.", None),
        ],
        [
            "Il contratto ha una durata di dieci anni.",
            "Le prestazioni saranno pari al valore delle quote.",  # a future with no condition: a fact
            "Il Contraente può riscattare il contratto dopo trenta giorni.",  # an option: left to a model
        ],
    ),
}


@pytest.mark.parametrize("language", sorted(RULES))
def test_rules_and_their_conditions_in_each_language(language):
    stated, not_rules = RULES[language]
    found = _rules(*(s for s, _ in stated), *not_rules)
    assert {s: r.condition for s, r in found.items()} == dict(stated)
    for sentence, rule in found.items():
        # Verbatim: the statement, condition and consequence are the sentence's own characters.
        assert all(part is None or part in sentence for part in (rule.statement, rule.condition, rule.consequence))


def test_a_label_line_a_lettered_item_and_a_semicolon_end_a_statement():
    """A label set in the running text, a lettered item ("b) …", opening in lower case) and a
    semicolon before a capital each start a new statement, so the rule after them opens with its
    own condition."""
    text = (
        "Il Contratto rimane in vigore per lammontare residuo, a condizione che il premio sia pagato.\n"
        "b) Prestazione a Scadenza\n"
        "Alla data di scadenza, sempre che lAssicurato sia in vita, lImpresa corrisponderà un ammontare pari al "
        "valore delle quote.\n"
        "Le somme sono liquidate al ricevimento dei documenti; In caso di decesso, il Beneficiario deve inviare la "
        "richiesta."
    )
    document = _document(text)
    said = [s.text for s in chunk_statements(document.chunks[0], lambda _: False, DocumentAnalysis(document))]
    assert said == [
        "Il Contratto rimane in vigore per lammontare residuo, a condizione che il premio sia pagato.",
        "Prestazione a Scadenza",
        "Alla data di scadenza, sempre che lAssicurato sia in vita, lImpresa corrisponderà un ammontare pari al "
        "valore delle quote.",
        "Le somme sono liquidate al ricevimento dei documenti;",
        "In caso di decesso, il Beneficiario deve inviare la richiesta.",
    ]
    rules = {r.statement: r.condition for r in extract_document(_document(text)).interpretation_pack}
    assert rules["In caso di decesso, il Beneficiario deve inviare la richiesta."] == "In caso di decesso"


def test_a_label_line_without_a_verb_and_a_permission_under_a_proviso():
    """Two label lines as long as the line below them, but with no verb, then a permission the
    proviso before it grants: one rule, its condition the proviso."""
    text = (
        "Il contratto prevede le seguenti prestazioni:\n"
        "a)Prestazioni in caso di vita dell'assicurato\n"
        "Prestazione in caso di Riscatto Totale e parziale\n"
        "A condizione che siano trascorsi almeno 30 giorni, il Contraente può riscuotere il Valore di Riscatto."
    )
    (rule,) = extract_document(_document(text)).interpretation_pack
    assert rule.statement.startswith("A condizione che") and rule.condition == (
        "A condizione che siano trascorsi almeno 30 giorni"
    )
    # A line a narrow column wrapped holds a verb: no label, one sentence.
    wrapped = Chunk(
        chunk_id="d::0000",
        doc_id="d",
        kind="text",
        text="The records were acquired by NASA\nLandsat satellites over the whole basin since 1985.",
        page_idx=0,
    )
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=[wrapped])
    assert len(list(chunk_statements(wrapped, lambda _: False, DocumentAnalysis(document)))) == 1


# A formula and the sentences around it: each symbol's meaning, as the document states it.
LEGENDS = {
    "en": (
        "The wave number follows from the frequency:\n\nk = ω / c\n\n"
        "Here, ω is the angular frequency of the wave. c is the speed of sound in air. k is large.",
        # "k is large": no noun phrase, no meaning.
        {"k": None, "ω": "the angular frequency of the wave", "c": "the speed of sound"},
    ),
    "de": (
        "Die Verweilzeit im System ist\n\nzn = wn + xn\n\n"
        "Es sei xn die Bedienzeit des n-ten Kunden. wn ist die Wartezeit des n-ten Kunden.",
        {
            "zn": "Die Verweilzeit im System",
            "wn": "die Wartezeit des n-ten Kunden",
            "xn": "die Bedienzeit des n-ten Kunden",
        },
    ),
    "fr": (
        "La charge se calcule par\n\nh = p / ρg\n\noù p est la pression du fluide et ρ la masse volumique de l'eau.",
        {"h": "La charge", "p": "la pression du fluide", "ρg": None, "ρ": "la masse volumique de l'eau"},
    ),
    "es": (
        "La carga se calcula con\n\nh = p / ρg\n\ndonde p es la presión del fluido y ρ es la densidad del agua.",
        {"h": "La carga", "p": "la presión del fluido", "ρg": None, "ρ": "la densidad del agua"},
    ),
    "it": (
        "La portata si calcola con\n\nQ = v A\n\ndove v è la velocità del fluido. A è la sezione del tubo.",
        {"Q": "La portata", "v": "la velocità del fluido", "A": "la sezione del tubo"},
    ),
}


@pytest.mark.parametrize("language", sorted(LEGENDS))
def test_symbol_meanings_are_noun_phrases_in_each_language(language):
    text, meanings = LEGENDS[language]
    (formula,) = extract_document(_document(text)).formulas
    assert {v.symbol: v.meaning for v in formula.variables} == meanings
    assert all(v.meaning is None or v.meaning in text for v in formula.variables)


def test_a_lecture_symbol_list_with_dot_leaders():
    """ "1. wn . . . Wartezeit …", "2. zn = wn + xn . . . Zeit, …": the symbol alone or the left
    side of its formula, a leader of dots, its meaning."""
    text = (
        "Abgeleitete Größen sind:\n\n1. wn . . . Wartezeit des n-ten Kunden.\n\n"
        "2. zn = wn + xn . . . Zeit, die der n-te Kunde im System verbringt."
    )
    (formula,) = extract_document(_document(text)).formulas
    assert {v.symbol: v.meaning for v in formula.variables} == {
        "zn": "Zeit, die der n-te Kunde im System verbringt",
        "wn": "Wartezeit des n-ten Kunden",
        "xn": None,
    }


def test_symbols_that_differ_only_in_case_are_separate_entries():
    """ "tn" and "Tn" are two symbols: their meanings are not one term's conflicting definitions."""
    document = _document(
        "Kunden kommen zu den Zeiten T1 < T2 < Tn an, wobei Tn die Ankunftszeit des n-ten Kunden bezeichnet.\n\n"
        "tn = Tn − Tn-1\n\ntn ist die n-te Zwischenankunftszeit."
    )
    glossary = {e.term: e for e in extract_document(document).glossary}
    assert glossary["Tn"].definition == "die Ankunftszeit des n-ten Kunden"
    assert glossary["tn"].definition == "die n-te Zwischenankunftszeit"
    assert not glossary["Tn"].definition_conflict and glossary["Tn"].term_id != glossary["tn"].term_id


def test_an_abbreviation_in_either_case_stays_one_term():
    """Only symbols a legend explains split by case: an abbreviation written "PLC" and "plc" is one."""
    from kb_pipeline.knowledge.readers.findings import Finding, Quote

    chunk = Chunk(chunk_id="d::0000", doc_id="d", kind="text", text="PLC plc", page_idx=0)
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=[chunk])
    findings = [
        Finding("PLC", Quote("PLC", chunk), "abbreviation_list"),
        Finding("plc", Quote("plc", chunk), "inline"),
    ]
    assert len(cluster(document, findings)) == 1


def test_a_flattened_subscript_and_a_conditional_inequality():
    """ "wn+1 = wn + xn − tn+1" is a formula of wn; "Falls Tn+1 ≥ Tn + wn …" is the case the
    statement holds in, not a formula."""
    text = (
        "Falls Tn+1 < Tn + wn + xn, dann ist wn+1 = wn + xn − tn+1. Falls Tn+1 ≥ Tn + wn + xn ist wn+1 = 0.\n\n"
        "If x ≥ 2, the valve opens."
    )
    formulas = [f.formula_latex for f in extract_document(_document(text)).formulas]
    assert formulas == ["wn+1 = wn + xn − tn+1"]


STORIES = {
    "en": [
        ("Title", "Pump operation"),
        ("Heading1", "1 Rules"),
        ("BodyText", "If the seal leaks, the operator must replace it before the next start."),
        ("BodyText", "The pump was installed in the station in 2019 by the manufacturer."),
        ("BodyText", "Hypertension: systolic blood pressure > 140 mmHg."),
        ("BodyText", "The nut, provided the thread is intact, may be reused."),
        ("Heading1", "2 Flow"),
        ("BodyText", "The flow through the pipe is"),
        ("display", "Q = v A"),
        ("BodyText", "where v is the mean velocity of the water and A is the cross-section of the pipe."),
    ],
    "de": [
        ("Title", "Betrieb der Pumpe"),
        ("Heading1", "1 Regeln"),
        ("BodyText", "Bei kaltem Motor muss das Ventil langsam geöffnet werden."),
        ("BodyText", "Die Anlage wurde im Jahr 2019 von einem regionalen Betrieb gebaut."),
        ("BodyText", "Der Betreiber darf die Dichtung nicht selbst ersetzen."),
        ("Heading1", "2 Wartezeit"),
        ("BodyText", "Die Verweilzeit im System ist"),
        ("display", "zn = wn + xn"),
        ("BodyText", "Es sei xn die Bedienzeit des n-ten Kunden. wn ist die Wartezeit des n-ten Kunden."),
        (
            "BodyText",
            "Die Kunden kommen zu zufälligen Zeiten an, wobei Tn die Ankunftszeit des n-ten Kunden bezeichnet.",
        ),
        ("display", "tn = Tn - Tn-1"),
        ("BodyText", "tn ist die n-te Zwischenankunftszeit."),
    ],
    "it": [
        ("Title", "Condizioni di assicurazione"),
        ("Heading1", "1 Obblighi"),
        ("BodyText", "In caso di decesso dell'Assicurato, il Beneficiario deve inviare la richiesta alla Compagnia."),
        ("BodyText", "Il contratto ha una durata di dieci anni."),
        # A proviso between commas.
        (
            "BodyText",
            "Alla data di scadenza, sempre che l'Assicurato sia in vita, l'Impresa corrisponderà un ammontare"
            " calcolato come prodotto tra il valore e il numero delle quote.",
        ),
        ("Heading1", "2 Portata"),
        ("BodyText", "La portata si calcola con"),
        ("display", "Q = v A"),
        ("BodyText", "dove v è la velocità del fluido e A è la sezione del tubo."),
    ],
}
EXPECTED_RULES = {
    "en": {
        "If the seal leaks, the operator must replace it before the next start.": "If the seal leaks",
        "Hypertension: systolic blood pressure > 140 mmHg.": None,
        "The nut, provided the thread is intact, may be reused.": "provided the thread is intact",
    },
    "de": {
        "Bei kaltem Motor muss das Ventil langsam geöffnet werden.": "Bei kaltem Motor",
        "Der Betreiber darf die Dichtung nicht selbst ersetzen.": None,
    },
    "it": {
        "In caso di decesso dell'Assicurato, il Beneficiario deve inviare la richiesta alla Compagnia.": (
            "In caso di decesso dell'Assicurato"
        ),
        "Alla data di scadenza, sempre che l'Assicurato sia in vita, l'Impresa corrisponderà un ammontare calcolato"
        " come prodotto tra il valore e il numero delle quote.": "sempre che l'Assicurato sia in vita",
    },
}
EXPECTED_VARIABLES = {
    "en": {
        "Q": "The flow through the pipe",
        "v": "the mean velocity of the water",
        "A": "the cross-section of the pipe",
    },
    "de": {
        "zn": "Die Verweilzeit im System",
        "wn": "die Wartezeit des n-ten Kunden",
        "xn": "die Bedienzeit des n-ten Kunden",
    },
    "it": {"Q": "La portata", "v": "la velocità del fluido", "A": "la sezione del tubo"},
}


@pytest.mark.parametrize("language", sorted(STORIES))
def test_rules_and_symbols_on_a_real_parse(language, parses, tmp_path_factory):
    pdf = tmp_path_factory.mktemp(f"languages_{language}") / f"languages_{language}.pdf"
    story_pdf(pdf, STORIES[language], title=f"languages_{language}")
    run = parses.run(pdf)
    document, extracted = run.document, extract_run(run)
    rules = {" ".join(r.statement.split()): r.condition for r in extracted.interpretation_pack if r.statement}
    assert rules == EXPECTED_RULES[language]
    (formula, *_) = extracted.formulas
    assert {v.symbol: v.meaning for v in formula.variables} == EXPECTED_VARIABLES[language]
    texts = "\n".join(c.text for c in document.chunks)
    assert all(v.meaning in texts for v in formula.variables if v.meaning)
    if language == "de":  # symbols that differ only in case are two terms, each its own meaning
        glossary = {e.term: e.definition for e in extracted.glossary}
        assert glossary["Tn"] == "die Ankunftszeit des n-ten Kunden"
        assert glossary["tn"] == "die n-te Zwischenankunftszeit"
    else:
        assert len(extracted.formulas) == 1


def test_statements_cut_at_a_label_line_a_lettered_item_and_a_semicolon_on_a_real_parse(corpus_run):
    """The corpus' Italian disclosure as MinerU reads it (its boxed layout keeps a label line, a
    lettered item and a semicolon's next sentence inside one item's text): each rule after them
    opens with its own condition."""
    run = corpus_run("contract_it_unit_linked_insurance", "1-3")
    document, extracted = run.document, extract_run(run)
    rules = {" ".join(r.statement.split()): r.condition for r in extracted.interpretation_pack}
    conditions = {s[:40]: c for s, c in rules.items()}
    # "b) Prestazione a Scadenza" (a lettered item, then a label line) no part of the rule under it.
    assert conditions["Alla data di scadenza, sempre che lAssic"] == "sempre che lAssicurato sia in vita"
    # "c) Prestazione in corso di Contratto" above it: the proviso opens the rule.
    assert conditions["Purché lassicurato sia in vita, nel cors"].startswith("Purché lassicurato sia in vita")
    # "…; In caso di decesso …" in a table's cell: a sentence of its own, with its condition.
    (after_semicolon,) = [s for s in rules if s.startswith("In caso di decesso dellAssicurato, il Beneficiario")]
    assert rules[after_semicolon] == "In caso di decesso dellAssicurato"
    texts = "\n".join(c.text for c in document.chunks)
    assert all(" ".join(s.split()) in " ".join(texts.split()) for s in rules)  # verbatim
