"""Formulas and the symbols a document explains in words (knowledge/readers/formulas/:
formulas.py, legend.py, lead_in.py; knowledge/document/math_text.py): on real MinerU parses of generated PDFs, in English, French, German
and Spanish, with the negatives a layout rule could mistake for a formula."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.document.math_text import formula_spans
from kb_pipeline.knowledge.document.text import Span
from kb_pipeline.knowledge.extract import extract_document
from kb_pipeline.knowledge.language.analysis import DocumentAnalysis
from kb_pipeline.knowledge.payloads.checks import span_problems
from kb_pipeline.knowledge.payloads.contracts import FormulaEntry, Payloads
from kb_pipeline.knowledge.payloads.spans import SpanCheck
from kb_pipeline.knowledge.readers.formulas.formulas import formula_entries, propose_formulas
from kb_pipeline.knowledge.readers.formulas.legend import Explanation, names_something, without_functions
from kb_pipeline_tests.helpers import extract_run
from kb_pipeline_tests.samples import story_pdf

SAMPLE_DOCS = Path(__file__).resolve().parents[1] / "data" / "knowledge_docs"


MANUAL = [
    ("Heading1", "Pump efficiency"),
    (
        "BodyText",
        "Efficiency is computed as eta = Q x H / (367 x P), where Q is the flow rate in m3/h, H is the total "
        "head in m and P is the shaft power in kW.",
    ),
    ("BodyText", "Set the nominal diameter d = 12 mm before assembly and tighten to 45 Nm."),
    ("BodyText", "This manual was revised on 2024-05-01; the controller runs firmware v = 2.3.1 since then."),
    ("Code", "pump.rate = read_sensor('flow');"),
    ("BodyText", "Table 3 = summary of the acceptance tests, one row for each pump of the series."),
]

PAPER = [
    ("Heading1", "1. Hydraulic power"),
    ("BodyText", "The flow rate Q is measured at the pump outlet. The hydraulic power is given by"),
    ("display", "Ph = rho x g x Q x H          (3)"),
    (
        "BodyText",
        "where Ph is the hydraulic power in W, rho is the density of the liquid, g is the gravitational "
        "acceleration and H the total head.",
    ),
    ("Heading1", "2. Puissance absorbée"),
    ("BodyText", "La puissance absorbée est donnée par"),
    ("display", "Pa = U x I x c          (4)"),
    ("BodyText", "où U est la tension en V, I est le courant en A et c le facteur de puissance."),
    ("Heading1", "3. Wirkungsgrad"),
    ("BodyText", "Der Wirkungsgrad wird berechnet als"),
    ("display", "nu = Ph / Pa          (5)"),
    ("BodyText", "wobei Ph die hydraulische Leistung ist und Pa die aufgenommene Leistung ist."),
    ("Heading1", "4. Caudal"),
    ("BodyText", "El caudal se calcula como"),
    ("display", "Qv = v x A          (6)"),
    ("BodyText", "donde v es la velocidad media en m/s y A es el área de la sección."),
    # Nouns for what kind a symbol is, not what it stands for.
    ("Heading1", "5. Test conditions"),
    ("BodyText", "During a test both constants g and H stay fixed, and so does the parameter Q."),
    # An inline expression's operands are symbols; a name whose letters spell a function word
    # ("iT") is still one; a capital run inside an operand ("T" of "hT", "HT") is not.
    ("Heading1", "6. Trimming"),
    (
        "BodyText",
        "Given the stage head iT and the rated head hT, the impeller is trimmed iT×hT/Ph times. "
        "The pump ships with a spare HT, a coupling and its key.",
    ),
]


@pytest.fixture(scope="module")
def manual(parses, tmp_path_factory) -> Payloads:
    tmp = tmp_path_factory.mktemp("formula_manual")
    story_pdf(tmp / "manual.pdf", MANUAL, title="Formulas")
    return extract_run(parses.run(tmp / "manual.pdf"))


@pytest.fixture(scope="module")
def paper(parses, tmp_path_factory) -> Payloads:
    tmp = tmp_path_factory.mktemp("formula_paper")
    story_pdf(tmp / "paper.pdf", PAPER, title="Formulas")
    return extract_run(parses.run(tmp / "paper.pdf"))


def _formula(payloads: Payloads, lhs: str) -> FormulaEntry:
    """The formula that starts "lhs =" (or with `lhs` itself, when it holds a space)."""
    start = lhs if " " in lhs else f"{lhs} ="
    return next(f for f in payloads.formulas if (f.formula_latex or "").startswith(start))


def _meanings(formula: FormulaEntry) -> dict[str, str | None]:
    return {v.symbol: v.meaning for v in formula.variables}


def test_a_manual_formula_is_named_by_its_lead_in_and_explained_by_its_legend(manual):
    (formula,) = manual.formulas  # the value, the date, the version, the code line and "Table 3 =" are not formulas
    assert formula.formula_latex == "eta = Q x H / (367 x P)"
    assert formula.name == "Efficiency"
    assert formula.latex_verification == "unverified_operator"  # a bare "x", and no markup on flash
    assert _meanings(formula) == {
        "eta": "Efficiency",
        "Q": "the flow rate in m3/h",
        "H": "the total head in m",
        "P": "the shaft power in kW",
    }
    assert formula.provenance.span == formula.formula_latex


def test_the_legend_is_a_glossary_claim_too(manual):
    definitions = {e.term: e.definition for e in manual.glossary}
    assert definitions["Q"] == "the flow rate in m3/h"
    assert definitions["P"] == "the shaft power in kW"
    assert "d" not in definitions and "v" not in definitions  # "d = 12 mm", "v = 2.3.1": values, no symbols


def test_numbered_display_equations_in_four_languages(paper):
    english, french, german, spanish = (_formula(paper, lhs) for lhs in ("Ph", "Pa", "nu", "Qv"))
    assert english.formula_latex.startswith("Ph = rho x g x Q x H") and english.name == "The hydraulic power"
    assert english.unit == "W"
    assert _meanings(english) == {
        "Ph": "the hydraulic power in W",
        "rho": "the density of the liquid",
        "g": "the gravitational acceleration",
        "Q": "flow rate",  # the apposition "The flow rate Q" before the formula
        "H": "the total head",
    }
    assert french.name == "La puissance absorbée"
    assert _meanings(french) == {
        "Pa": "La puissance absorbée",
        "U": "la tension en V",
        "I": "le courant en A",
        "c": "le facteur de puissance",
    }
    assert german.name == "Der Wirkungsgrad"
    assert _meanings(german) == {
        "nu": "Der Wirkungsgrad",
        "Ph": "die hydraulische Leistung",
        "Pa": "die aufgenommene Leistung",
    }
    assert spanish.name == "El caudal"
    assert _meanings(spanish) == {"Qv": "El caudal", "v": "la velocidad media en m/s", "A": "el área de la sección"}
    assert len(paper.formulas) == 4
    assert len({f.formula_id for f in paper.formulas}) == 4


def test_a_noun_for_a_symbols_kind_is_no_meaning(paper):
    said = {value for e in paper.glossary for value in (e.full_name, e.definition, *e.conflict_variants)}
    said |= {v.meaning for f in paper.formulas for v in f.variables}
    assert not {"constants", "parameter"} & said


def test_a_symbol_named_in_apposition_is_a_full_name(paper):
    q = next(e for e in paper.glossary if e.term == "Q")
    assert q.full_name == "flow rate"


def test_the_operands_of_an_inline_expression_are_named_in_apposition(paper):
    names = {e.term: e.full_name for e in paper.glossary}
    assert names["iT"] == "stage head"
    assert names["hT"] == "rated head"
    assert "HT" not in names


def test_the_shipped_manual_end_to_end(parses):
    payloads = extract_run(parses.run(SAMPLE_DOCS / "pump_maintenance_manual.pdf"))
    (formula,) = payloads.formulas
    assert formula.formula_latex == "eta = Q x H / (367 x P)" and formula.name == "Efficiency"
    assert [v.symbol for v in formula.variables] == ["eta", "Q", "H", "P"]
    assert formula.provenance.page == 0


def _doc(*texts: str, kind: str = "text") -> ParsedDocument:
    chunks = [
        Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind=kind, text=text, page_idx=k)  # type: ignore[arg-type]
        for k, text in enumerate(texts)
    ]
    return ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=len(chunks), chunks=chunks)


@pytest.mark.parametrize(
    "text",
    [
        "For 2r = 22.40 mm, t = 3.0 mm and w = 16.5 mm the burst pressure is pb = 4.250 MPa.",
        "The threshold p = 0.05 was used.",
        "Released on 2024-01-05 as version = 1.8.2 of the library.",
        "toc = doc.ToC()",
        'rw->name = "x";',
        "WHERE depot_id='NORTH_YARD_07'",
        "Key FY = Financial Year ending March 31",
        "In the limit x → ∞ the series converges.",
        "ND = no data",
    ],
)
def test_not_a_formula(text):
    assert formula_spans(_doc(text).chunks[0]) == []


def test_display_lines_of_a_text_layer_make_formulas():
    """The flash tier's text layer: an operand a line, a glyph ("=") lost, a box read twice."""
    text = (
        "The head loss is given by\n\nH =\nmu v\nD\n\nwhere mu is the friction coefficient and v the flow velocity.\n\n"
        "k mu t/(D),\nK = mu T/(pi r2),\n\nH =\nmu v\nD"
    )
    document = _doc(text)
    document.chunks[0].has_formula = True  # the parser boxed an equation in this chunk
    formulas = formula_entries(document, propose_formulas(document), SpanCheck())
    assert [f.formula_latex for f in formulas] == ["H =\nmu v\nD", "k mu t/(D)", "K = mu T/(pi r2)"]
    assert formulas[0].name == "The head loss"
    assert _meanings(formulas[0]) == {"H": "The head loss", "mu": "the friction coefficient", "v": "the flow velocity"}
    assert formulas[1].name is None and formulas[1].formula_id != formulas[2].formula_id


def test_an_assignment_of_words_is_left_open():
    (candidate,) = propose_formulas(_doc("Finish = OAK"))
    assert not candidate.decided
    assert formula_entries(_doc("Finish = OAK"), [candidate], SpanCheck()) == []


def test_no_symbol_claims_without_formulas():
    """A short capitalised word after a noun is a symbol only where formulas use it."""
    payloads = extract_document(_doc("The gated network G routes each token. The model M is fast."))
    assert payloads.glossary == [] and payloads.formulas == []


def test_one_noun_before_two_symbols_names_their_kind_not_each():
    # "the coefficients b and c", "the parameter k": what kind they are; "the measured wall
    # temperatures T1 and T2" names both (more than their kind).
    payloads = extract_document(
        _doc(
            "The curve is y = a x + b x2 + c. The shear changes the coefficients b and c only.",
            "The loss is Q = k (T1 - T2), with the measured wall temperatures T1 and T2, where the parameter k "
            "is set by the pipe.",
        )
    )
    names = {e.term: e.full_name for e in payloads.glossary}
    assert not {"b", "c", "k"} & set(names)
    assert names["T1"] == names["T2"] == "measured wall temperatures"


def test_a_symbol_list_after_the_formula_and_a_nomenclature_table():
    document = _doc(
        "The formula for the load factor is:\n\nLF = RPK / ASK × 100\n\nwhere:\n"
        "RPK = revenue passenger kilometres\nASK – available seat kilometres",
        "Symbol | Meaning | Unit\nLF | load factor | %",
    )
    document.chunks[1].kind = "table"
    payloads = extract_document(document)
    (formula,) = payloads.formulas
    assert formula.name == "the load factor"
    assert _meanings(formula) == {
        "LF": "the load factor",
        "RPK": "revenue passenger kilometres",
        "ASK": "available seat kilometres",
    }
    definitions = {e.term: e.definition for e in payloads.glossary}
    assert definitions["ASK"] == "available seat kilometres"
    assert definitions["LF"] == "the load factor"  # "load factor" in the table is the same words


@pytest.mark.parametrize("text", ["The learning rate lr = 3e-4 was kept.", "See pp. 881-892 and 17-18."])
def test_numbers_in_a_formula_chunk_are_not_formulas(text):
    document = _doc(text)
    document.chunks[0].has_formula = True
    assert formula_spans(document.chunks[0]) == []


def test_a_sum_limit_does_not_start_a_formula():
    document = _doc(
        "The loss is defined as\n\nL(θ) = −\nN\nX\ni=1\nlog pθ(yi|xi)\n(1)\n\nwhere N is the number of samples."
    )
    document.chunks[0].has_formula = True
    (formula,) = formula_entries(document, propose_formulas(document), SpanCheck())
    assert formula.formula_latex == "L(θ) = −\nN\nX\ni=1\nlog pθ(yi|xi)"  # the number "(1)" is not part of it
    assert formula.name == "The loss"
    assert _meanings(formula)["N"] == "the number of samples"


def test_a_product_written_side_by_side_and_its_with_legend():
    document = _doc("The force is F = m a, with m the mass of the body and a the acceleration.")
    (formula,) = formula_entries(document, propose_formulas(document), SpanCheck())
    assert formula.formula_latex == "F = m a" and formula.name == "The force"
    assert _meanings(formula) == {"F": "The force", "m": "the mass of the body", "a": "the acceleration"}


def test_a_legend_symbol_the_formula_does_not_use_is_not_its_variable():
    document = _doc(
        "The force is F = m a, where m is the mass, a the acceleration and g the gravitational acceleration. "
        "The weight is W = m g."
    )
    force = next(f for f in formula_entries(document, propose_formulas(document), SpanCheck()) if f.name == "The force")
    assert [v.symbol for v in force.variables] == ["F", "m", "a"]


def test_a_meaning_from_another_chunk_names_that_chunk():
    """A symbol introduced in an earlier chunk keeps that meaning at a later formula; the variable
    records the chunk it was read in, and the payload check proves it there."""
    document = _doc(
        "The pressure p is read at the inlet of the pump.",
        "The head is given by\n\nh = p/(r g)\n\nwhere r is the density of the liquid.",
    )
    payloads = extract_document(document)
    (formula,) = payloads.formulas
    assert _meanings(formula) == {"h": "The head", "p": "pressure", "r": "the density of the liquid", "g": None}
    p = next(v for v in formula.variables if v.symbol == "p")
    assert p.meaning_chunk_id == "d::0000" and formula.provenance.chunk_id == "d::0001"
    assert {v.meaning_chunk_id for v in formula.variables if v.symbol != "p"} == {None}  # the formula's own
    pressure = next(e for e in payloads.glossary if e.term == "p")
    assert p.term_id == pressure.term_id
    assert span_problems(document, payloads) == []
    p.meaning_chunk_id = "d::0001"  # the meaning is not in the formula's chunk
    assert [x.split(":")[0] for x in span_problems(document, payloads)] == [
        f"{formula.formula_id}.variables[p].meaning"
    ]


# A legend after a display equation, printed past a table the parser reads in between: the
# legend opens the next text chunk (English, French, German). A symbol introduced in an earlier
# section keeps its meaning; one explained only further on gets none.
LEGEND_ELSEWHERE = [
    ("Heading1", "1. Inlet"),
    ("BodyText", "The pressure p is read at the inlet of the pump before each test run."),
    ("Heading1", "2. Drainage"),
    ("BodyText", "The drain rate of the tank is estimated as:"),
    ("display", "Qd = k p A / (r g)          (1)"),
    ("table", [["Tank", "Area"], ["North", "4.0"], ["South", "2.5"]]),
    (
        "BodyText",
        "where A is the area of the outlet, r is the density of the liquid and g is the gravitational acceleration.",
    ),
    ("Heading1", "3. Débit"),
    ("BodyText", "Le débit de la vanne est donné par :"),
    ("display", "Qv = c S w          (2)"),
    ("table", [["Vanne", "Section"], ["Nord", "0.4"], ["Sud", "0.2"]]),
    ("BodyText", "où S est la section de la vanne et w la vitesse du fluide."),
    ("Heading1", "4. Leistung"),
    ("BodyText", "Die Leistung wird berechnet als"),
    ("display", "Pw = F v          (3)"),
    ("table", [["Pumpe", "Leistung"], ["Nord", "4.0"], ["Süd", "2.5"]]),
    ("BodyText", "wobei F die Kraft ist und v die Geschwindigkeit ist."),
    ("Heading1", "5. Losses"),
    ("BodyText", "The factor k denotes the loss coefficient of the valve."),
    # Several symbols in one legend item: each its own modifier or noun phrase.
    ("Heading1", "6. Particles"),
    ("BodyText", "The speed of the particle is given by"),
    ("display", "s = u + v + z          (4)"),
    ("BodyText", "where u, v and z are the horizontal, vertical and lateral velocities."),
    ("BodyText", "The state of the gas follows from"),
    ("display", "e = m T          (5)"),
    ("BodyText", "where m and T are the mass and the temperature of the gas."),
    ("BodyText", "Die Geschwindigkeit wird berechnet als"),
    ("display", "q = b + d          (6)"),
    ("BodyText", "wobei b und d die waagrechte und senkrechte Geschwindigkeit sind."),
    # Negatives: modifiers after the noun (French), a comma with no conjunction.
    ("BodyText", "La vitesse est donnée par"),
    ("display", "x = h + j          (7)"),
    ("BodyText", "où h et j sont les vitesses horizontale et verticale."),
    ("BodyText", "The rate is estimated as"),
    ("display", "y = n t          (8)"),
    ("BodyText", "where n and t are coefficients, fitted values."),
    ("BodyText", "The discharge is measured as"),
    ("display", "w = Q + Qc          (8a)"),
    ("BodyText", "where Q and Qc are the flows of the river and the canal."),
    # A math font's brackets around a function's argument; a legend symbol the formula writes
    # with a subscript the legend leaves out (negatives: products "Ahh" and "ka").
    ("Heading1", "7. Fits"),
    ("BodyText", "The life of the cell is estimated as:"),
    ("display", "Tc Z hðIÞ CuðVÞ          (9)"),
    ("BodyText", "where h(I) is a function of the charging current and u(V) is a function of the cell voltage."),
    ("BodyText", "The loss of the line is calculated as:"),
    ("display", "L Z (PWRa KPWRb)/vmb          (10)"),
    ("BodyText", "where PWR is the power drawn at the supply meter and vm is the mean voltage of the mains."),
    ("BodyText", "La charge de la batterie est donnée par :"),
    ("display", "Cb Z rðTÞ C QBn          (11)"),
    ("BodyText", "où r(T) est une fonction de la température et QB est la capacité de la batterie."),
    ("BodyText", "The stiffness of the hole is given by"),
    ("display", "Kh = ka/(Ahh)          (12)"),
    ("BodyText", "where Ah is the area of the hole, h is its height and k is the wavenumber."),
    # A parameter's reading after the formula: a verb before a noun phrase (negative: before none).
    ("Heading1", "8. Response"),
    ("BodyText", "The wear of the bearing is estimated as:"),
    ("display", "Wb = Bm + Lm a2          (13)"),
    (
        "BodyText",
        "Bm measures the load on the shaft, and Lm expresses the speed of the rotor. "
        "The term a2 gives smoother curves.",
    ),
    ("BodyText", "L'usure du frein est donnée par :"),
    ("display", "Uf = Kp + Lp          (14)"),
    ("BodyText", "Kp donne la pression du disque ; Lp décrit la chaleur de la garniture."),
    ("BodyText", "Der Verschleiß der Kette wird berechnet als"),
    ("display", "Vk = Mk + Nk          (15)"),
    ("BodyText", "Mk beschreibt die Spannung der Kette, Nk misst die Länge der Glieder."),
    # A symbol named in brackets after its noun phrase (negative: after a clause).
    ("Heading1", "9. Fit"),
    ("BodyText", "The stiffness ratio of steel (Kb) sets the sag, and the spans were measured (Sm) first."),
    ("display", "Kb = 1 - Sm/Sn          (16)"),
    ("BodyText", "Le nombre de rivets posés (Nv) est compté chaque jour."),
    ("display", "Nv = Nt - Nh          (17)"),
    ("BodyText", "Die Zahl der Schweißnähte (Ns) wird gezählt."),
    ("display", "Ns = Na - Nb          (18)"),
]


@pytest.fixture(scope="module")
def legend_elsewhere(parses, tmp_path_factory) -> tuple[ParsedDocument, Payloads]:
    tmp = tmp_path_factory.mktemp("formula_legend_elsewhere")
    story_pdf(tmp / "legend.pdf", LEGEND_ELSEWHERE, title="Formulas")
    run = parses.run(tmp / "legend.pdf")
    return run.document, extract_run(run)


def test_a_legend_in_the_next_chunk_and_a_symbol_introduced_earlier(legend_elsewhere):
    document, payloads = legend_elsewhere
    english, french, german = (_formula(payloads, lhs) for lhs in ("Qd", "Qv", "Pw"))
    chunk_of = {c.chunk_id: c for c in document.chunks}
    assert _meanings(english) == {
        "Qd": "The drain rate of the tank",
        "k": None,  # explained only in a later section: no meaning
        "p": "pressure",  # the earlier section's
        "A": "the area of the outlet",
        "r": "the density of the liquid",
        "g": "the gravitational acceleration",
    }
    assert _meanings(french) == {
        "Qv": "Le débit de la vanne",
        "c": None,
        "S": "la section de la vanne",
        "w": "la vitesse du fluide",
    }
    assert _meanings(german) == {"Pw": "Die Leistung", "F": "die Kraft", "v": "die Geschwindigkeit"}
    for formula in (english, french, german):
        for v in formula.variables:
            if v.meaning is not None:
                source = chunk_of[v.meaning_chunk_id or formula.provenance.chunk_id or ""]
                assert v.meaning in source.text
        legend = {v.meaning_chunk_id for v in formula.variables if v.symbol in ("A", "S", "F")}
        assert legend - {None}  # read in the chunk after the formula's, and named
    assert span_problems(document, payloads) == []


def test_a_legend_of_several_symbols_gives_each_its_own_words(legend_elsewhere):
    """A composed "horizontal velocity" is no quote: each symbol's meaning starts at its own
    modifier and runs to the shared head, or is its own noun phrase; else all share the phrase."""
    _, payloads = legend_elsewhere
    speed, gas, german, french, rate = (_meanings(_formula(payloads, lhs)) for lhs in "seqxy")
    assert (speed["u"], speed["v"], speed["z"]) == (
        "horizontal, vertical and lateral velocities",
        "vertical and lateral velocities",
        "lateral velocities",
    )
    assert (gas["m"], gas["T"]) == ("the mass", "the temperature of the gas")
    assert (german["b"], german["d"]) == ("waagrechte und senkrechte Geschwindigkeit", "senkrechte Geschwindigkeit")
    assert french["h"] == french["j"] == "les vitesses horizontale et verticale"
    assert rate["n"] == rate["t"] == "coefficients, fitted values"
    flows = _meanings(_formula(payloads, "w"))  # "of the river and the canal": no phrase of its own
    assert flows["Q"] == flows["Qc"] == "the flows of the river and the canal"


def test_a_function_in_a_math_font_and_a_subscript_the_legend_leaves_out(legend_elsewhere):
    _, payloads = legend_elsewhere
    life, loss, french, stiffness = (_meanings(_formula(payloads, lhs)) for lhs in ("Tc Z", "L Z", "Cb Z", "Kh"))
    assert life["h(I)"] == "a function of the charging current" and life["u(V)"] == "a function of the cell voltage"
    assert french["r(T)"] == "une fonction de la température"
    assert french["QBn"] == "la capacité de la batterie"
    assert loss["PWRa"] == loss["PWRb"] == "the power drawn at the supply meter"
    assert loss["vmb"] == "the mean voltage of the mains"
    assert "PWR" not in loss and "P" not in loss  # inside the subscripted symbols
    assert stiffness["Ahh"] is None and stiffness["ka"] is None  # products, not a subscripted Ah or k
    assert stiffness["k"] == "the wavenumber"


def test_a_parameters_reading_explains_it_at_its_formula_only(legend_elsewhere):
    """ "Lm expresses the speed of …": what the symbol says in this formula, not its definition for
    the glossary; a verb before no noun phrase ("gives better fits") explains nothing."""
    _, payloads = legend_elsewhere
    english, french, german = (_meanings(_formula(payloads, lhs)) for lhs in ("Wb", "Uf", "Vk"))
    assert (english["Bm"], english["Lm"], english["a2"]) == (
        "the load on the shaft",
        "the speed of the rotor",
        None,
    )
    assert (french["Kp"], french["Lp"]) == ("la pression du disque", "la chaleur de la garniture")
    assert (german["Mk"], german["Nk"]) == ("die Spannung der Kette", "die Länge der Glieder")
    assert not {"Bm", "Lm", "Kp", "Lp", "Mk", "Nk", "a2"} & {e.term for e in payloads.glossary}


def test_a_symbol_named_in_brackets_after_its_noun_phrase(legend_elsewhere):
    _, payloads = legend_elsewhere
    english, french, german = (_meanings(_formula(payloads, lhs)) for lhs in ("Kb", "Nv", "Ns"))
    assert english["Kb"] == "stiffness ratio of steel"
    assert english["Sm"] is None  # "the spans were measured (Sm)": a clause, no name
    assert french["Nv"] == "nombre de rivets posés"
    assert german["Ns"] == "Zahl der Schweißnähte"
    names = {e.term: e.full_name for e in payloads.glossary}
    assert names["Kb"] == "stiffness ratio of steel" and "Sm" not in names


def test_every_symbol_goes_through_the_span_check():
    from kb_pipeline.knowledge.readers.findings import Quote
    from kb_pipeline.knowledge.readers.formulas.formulas import FormulaCandidate, VariableCandidate

    document = _doc("The speed is v = d / t here.")
    chunk = document.chunks[0]
    candidate = FormulaCandidate(
        formula=Quote("v = d / t", chunk),
        name=Quote("The speed", chunk),
        variables=(VariableCandidate(Quote("v", chunk)), VariableCandidate(Quote("w", chunk))),
        unit=None,
        reader="inline",
    )
    check = SpanCheck()
    (formula,) = formula_entries(document, [candidate], check)
    assert [v.symbol for v in formula.variables] == ["v"]
    assert [(r.field, r.offending_value) for r in check.rejected] == [("variables.symbol", "w")]


def test_a_formula_id_taken_twice_never_overwrites_an_entry():
    """The second formula's name and its formula both key the first entry: it keys on its chunk."""
    from kb_pipeline.knowledge.readers.findings import Quote
    from kb_pipeline.knowledge.readers.formulas.formulas import FormulaCandidate

    document = _doc("q = r + s\n\nt = u + w")
    chunk = document.chunks[0]

    def candidate(name: str, formula: str) -> FormulaCandidate:
        return FormulaCandidate(Quote(formula, chunk), Quote(name, chunk), (), None, "display")

    first, second = formula_entries(
        document, [candidate("q = r + s", "t = u + w"), candidate("q = r + s", "q = r + s")], SpanCheck()
    )
    assert first.formula_latex == "t = u + w" and second.formula_latex == "q = r + s"
    assert first.formula_id != second.formula_id


def test_the_formulas_index_is_built_once_per_extraction(monkeypatch):
    """The legend reader and the formulas read one `MathText`; a reader called on its own builds its own."""
    from kb_pipeline.knowledge.readers.formulas import legend

    built = []

    class Counted(legend.MathText):
        def __init__(self, document):
            built.append(document.doc_id)
            super().__init__(document)

    monkeypatch.setattr(legend, "MathText", Counted)
    document = _doc("The force is given by\nF = m a,\nwhere m is the mass and a the acceleration.")
    payloads = extract_document(document)
    assert payloads.formulas and built == [document.doc_id]
    legend.read_symbol_legends(document)
    assert built == [document.doc_id] * 2


# A journal's math font: "=", "+", "−" printed as letters (Z, C, K); English, French and German
# lead-ins, and legends of several symbols at once.
MATH_FONT = [
    ("Heading1", "1. Storage"),
    ("BodyText", "The storage of the reservoir is estimated as:"),
    ("display", "Vs% Z k CL Hmax          (2)"),
    (
        "BodyText",
        "where Vs% is the stored share of the volume, k and L are calibration constants (i.e. fitted values), "
        "Hmax is the highest stage of the year and f(H) is the rating curve.",
    ),
    ("Heading1", "2. Débit"),
    ("BodyText", "Le débit de la rivière est donné par :"),
    ("display", "Qd Z a C b H K c          (3)"),
    ("BodyText", "où Qd est le débit journalier, H est la hauteur d'eau et a, b, c sont des coefficients du modèle."),
    ("Heading1", "3. Verdunstung"),
    ("BodyText", "Die Verdunstung wird berechnet als"),
    ("display", "Ev Z m C n Ta          (4)"),
    (
        "BodyText",
        "wobei Ev die tägliche Verdunstung ist, m und n die Beiwerte des Modells sind und Ta die Lufttemperatur ist.",
    ),
    # A set in a sentence, its symbol named after a colon.
    ("Heading1", "4. Pairs"),
    ("BodyText", "The data hold two parts: training pairs T = {(ui, vi)}, where ui is the input and vi is the target."),
    ("BodyText", "Les données ont deux parties : paires appariées W = {(ui, vi)}, où ui est l'entrée."),
    # Symbols side by side before a bracket are no function name.
    ("Heading1", "5. Routing"),
    ("BodyText", "The output of the layer is given by"),
    ("display", "z = skEk(u)          (7)"),
    ("BodyText", "where each token u goes to a chosen expert Ek for scoring and sk is the score of the token."),
    # A legend's meaning is its noun phrase, not the relative clause after it.
    ("Heading1", "6. Stiffness"),
    ("BodyText", "The force follows from"),
    ("display", "F = K x          (8)"),
    (
        "BodyText",
        "where K, the stiffness matrix, which relates forces to displacements, and x, the displacement vector.",
    ),
    ("BodyText", "La force de rappel est donnée par"),
    ("display", "G = R y          (9)"),
    ("BodyText", "où R est la matrice de rigidité, qui relie les forces aux déplacements, et y le déplacement."),
    ("BodyText", "Die Rückstellkraft wird berechnet als"),
    ("display", "H = S z          (10)"),
    (
        "BodyText",
        "wobei S die Steifigkeit ist, welche die Kraft mit der Verschiebung verknüpft, und z die Verschiebung ist.",
    ),
    ("BodyText", "The load follows from"),
    ("display", "L = w d          (11)"),
    ("BodyText", "where w is the weight which the beam carries and d is the span."),
    # Negatives: a numbered sentence, a numbered line of words, a numbered value.
    ("Heading1", "5. Results"),
    ("BodyText", "Results of the calibration are discussed in Section (3)"),
    ("Heading1", "6. Calibration"),
    ("display", "Calibration Results          (5)"),
    ("Heading1", "7. Depth"),
    ("display", "12.5 mm          (6)"),
]


@pytest.fixture(scope="module")
def math_font(parses, tmp_path_factory) -> Payloads:
    tmp = tmp_path_factory.mktemp("formula_math_font")
    story_pdf(tmp / "math_font.pdf", MATH_FONT, title="Formulas")
    return extract_run(parses.run(tmp / "math_font.pdf"))


def test_a_numbered_display_in_a_math_font_is_one_formula_named_by_its_lead_in(math_font):
    by_start = {f.formula_latex.split()[0].rstrip("%"): f for f in math_font.formulas}
    assert set(by_start) == {
        "Vs",
        "Qd",
        "Ev",
        "T",
        "W",
        "z",
        "F",
        "G",
        "H",
        "L",
    }  # the sentence, the words and the value are none
    assert by_start["z"].formula_latex == "z = skEk(u)"
    for lhs in ("Vs", "Qd", "Ev"):
        assert not by_start[lhs].formula_latex.rstrip().endswith(")")  # the equation number is left out
    assert by_start["Vs"].name == "The storage of the reservoir"
    assert by_start["Qd"].name == "Le débit de la rivière"
    assert by_start["Ev"].name == "Die Verdunstung"


def test_a_legend_of_several_symbols_gives_each_its_meaning(math_font):
    english, french, german = (
        next(f for f in math_font.formulas if f.formula_latex.startswith(s)) for s in ("Vs", "Qd", "Ev")
    )
    said = _meanings(english)
    assert said["Vs%"] == "the stored share of the volume"  # a percentile's symbol; "f(H) is" ends the last item
    assert said["k"] == said["L"] == "calibration constants (i.e. fitted values)"  # "i.e." ends no clause
    assert said["Hmax"] == "the highest stage of the year"  # a worded subscript, held by the formula
    assert {s: _meanings(french)[s] for s in "abc"} == dict.fromkeys("abc", "des coefficients du modèle")
    assert _meanings(german)["m"] == _meanings(german)["n"] == "die Beiwerte des Modells"
    assert _meanings(german)["Ta"] == "die Lufttemperatur"


def test_a_legend_item_with_a_symbol_the_formulas_do_not_hold_explains_none():
    text = (
        "The rate is given by:\n\nR Z u CG          (8)\n\nwhere u and w are the velocities and Flow is the discharge."
    )
    document = _doc(text)
    (formula,) = formula_entries(document, propose_formulas(document), SpanCheck())
    assert formula.formula_latex == "R Z u CG"
    assert "the velocities" not in _meanings(formula).values()  # w is no symbol of the formula
    assert "Flow" not in _meanings(formula)  # a word the formulas do not hold is no symbol


def test_a_set_in_a_sentence_is_one_formula_and_a_colon_opens_its_symbols_name(math_font):
    english, french = (next(f for f in math_font.formulas if f.formula_latex.startswith(s)) for s in ("T =", "W ="))
    assert english.formula_latex == "T = {(ui, vi)}"  # the comma inside the set ends nothing
    assert _meanings(english) == {"T": "training pairs", "ui": "the input", "vi": "the target"}
    assert french.formula_latex == "W = {(ui, vi)}"
    assert _meanings(french)["W"] == "paires appariées"


@pytest.mark.parametrize("text", ["Set cfg = {a; b} before the run.", "Use m = {k: v for k in d} here."])
def test_braces_in_code_are_no_set(text):
    assert formula_spans(_doc(text).chunks[0]) == []


def test_a_comma_before_a_symbol_opens_no_name():
    document = _doc("The rate is R = C x q here.", "Beadle, C., 1999. Growth of trees.")
    named = {e.term: e.full_name for e in extract_document(document).glossary}
    assert named.get("C") != "Beadle"  # a reference's initial, not a symbol named


def test_symbols_side_by_side_before_a_bracket_are_no_function_name(math_font):
    routing = next(f for f in math_font.formulas if f.formula_latex.startswith("z ="))
    assert _meanings(routing)["Ek"] == "chosen expert"
    assert without_functions("cosh(x) + skEk(u)") == " (x) + skEk(u)"  # "cosh" is one


def test_a_legends_meaning_is_its_noun_phrase_not_its_relative_clause(math_font):
    english, french, german, load = (
        _meanings(next(f for f in math_font.formulas if f.formula_latex.startswith(f"{lhs} =")))
        for lhs in ("F", "G", "H", "L")
    )
    assert english["K"] == "the stiffness matrix" and english["x"] == "the displacement vector"
    assert french["R"] == "la matrice de rigidité"
    assert german["S"] == "die Steifigkeit"
    assert load["w"] == "the weight which the beam carries"  # no comma: a restrictive clause stays


def test_a_symbol_redefined_takes_its_nearest_earlier_meaning():
    """A formula with no legend of its own takes a symbol's meaning from the nearest earlier
    chunk that explains it: a document that redefines "p" means the new sense from there on.
    (Chunks made here: the choice between legends is in question, not MinerU's layout.)"""
    texts = [
        ("Pumps", "The head is given by\n\nh = p/(r g)          (1)\n\nwhere p is the pressure at the inlet, "
         "r is the density of the water and g is the gravitational acceleration."),
        ("Motors", "The torque is given by\n\nT = p/w          (2)\n\nwhere p is the power of the motor and w is "
         "the angular speed."),
        ("Losses", "The loss is given by\n\nL = k p          (3)"),
    ]  # fmt: skip
    chunks = [
        Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind="text", text=text, page_idx=0, heading=heading,
              heading_path=[heading])
        for k, (heading, text) in enumerate(texts)
    ]  # fmt: skip
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=chunks)
    payloads = extract_document(document)
    assert _meanings(_formula(payloads, "L"))["p"] == "the power of the motor"
    assert _meanings(_formula(payloads, "h"))["p"] == "the pressure at the inlet"


@pytest.mark.parametrize(
    ("text", "meaning", "names"),
    [
        ("Es sei xn die Bedienzeit des n-ten Kunden.", "sei", False),
        ("Es sei xn die Bedienzeit des n-ten Kunden.", "die Bedienzeit des n-ten Kunden", True),
        ("The gain k is tuned so that the loop is stable, where k tune.", "tune", False),
        ("The tube has a radius r and L is its length.", "length", True),
    ],
)
def test_a_symbols_meaning_is_no_verb_alone(text, meaning, names):
    """The legend reader's meanings are read by the sentence analysis: a verb alone ("sei",
    "tune") explains no symbol; a noun does, however short."""
    chunk = Chunk(chunk_id="d::0000", doc_id="d", kind="text", text=text, page_idx=0)
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=[chunk])
    at = text.index(meaning)
    explanation = Explanation(chunk, Span(0, 1), Span(at, at + len(meaning)), "clause")
    assert names_something(explanation, DocumentAnalysis(document).sentences(chunk)) is names
