"""Definitions a document states (knowledge/readers/glossary/: definitions.py, definition_sentences.py,
labelled_definitions.py, definition_tables.py), each on a real MinerU parse of a PDF made here:
a standard's numbered "Terms and definitions" clauses, section-opening "The X is a …"
sentences, labelled bullets, a term | description table, "refers to / i.e." sentences and an API
reference's signatures and parameter lists, in
English, French and German; and the descriptive sentences beside them that define nothing."""

from __future__ import annotations

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.document.text import key
from kb_pipeline.knowledge.extract import extract_document
from kb_pipeline_tests.samples import story_pdf

ENGLISH = [
    ("Title", "Mine haulage equipment"),
    ("Heading1", "1 Scope"),
    ("BodyText", "This document specifies terms and practices for haulage equipment in open-pit mines."),
    ("Heading1", "2 Terms and definitions"),
    ("BodyText", "For the purposes of this document, the following terms and definitions apply."),
    ("Heading2", "2.1"),
    ("Heading2", "haul road"),
    ("BodyText", "road built for trucks that carry ore or waste from the pit to the dump"),
    ("BodyText", "Note 1 to entry: A haul road is graded at least once a shift."),
    ("Heading2", "2.2 cycle time"),
    ("BodyText", "time a truck takes to travel from the loading point to the dump and back"),
    ("BodyText", "Note 1 to entry: Cycle time is read from the dispatch records."),
    ("Heading2", "2.3 queue time"),
    ("BodyText", "time a truck waits at the loading point before it is loaded"),
    ("Heading2", "2.4 Payload"),
    ("BodyText", "Mass of material that a truck carries in one trip."),
    ("Heading2", "2.5 General"),
    ("BodyText", "This clause lists the terms used in the annexes only."),
    ("Heading1", "3 Valves"),
    ("Heading2", "3.1 Ball valve"),
    ("BodyText", "The ball valve is a quarter-turn valve with a drilled sphere that opens or closes the line."),
    ("Heading2", "3.2 Gate valve"),
    ("BodyText", "The gate valve may be opened by hand until the wedge is clear of the flow."),
    ("Heading2", "3.3 Torque wrench"),
    ("BodyText", "The torque wrench is important for every maintenance task on the truck."),
    ("Heading2", "3.4 Pallets"),
    ("BodyText", "Pallets are stacked in the yard before each shift starts."),
    ("Heading2", "3.5 Conveyors"),
    ("BodyText", "Conveyors move the ore from the crusher to the stockpile."),
    ("Heading2", "3.6 Check valve"),
    ("BodyText", "The check valve is of one piece and cast in bronze."),
    ("Heading1", "4 Networks"),
    ("BodyText", "The site runs two networks that keep the dispatch system apart from the office:"),
    (
        "BodyText",
        "• Dispatch network: The dispatch network is a private network that links the trucks to the control room.",
    ),
    ("BodyText", "• Radio network: Radio networks carry the voice channels between the trucks and the control room."),
    ("BodyText", "• Staff training: We recommend a course for every operator before the first shift."),
    ("BodyText", "• Spare radios: Additional spare radios can be borrowed from the store."),
    ("Heading1", "5 Registers"),
    ("BodyText", "Table 1 Dispatch registers"),
    (
        "table",
        [
            ["Register", "Description"],
            ["TRUCK_ID", "Identifier of the truck that reported the cycle"],
            ["LOAD_TIME", "Time at which the truck left the loading point"],
        ],
    ),
    ("BodyText", "Table 2 Dispatch settings"),
    (
        "table",
        [
            ["Setting", "Corresponding value"],
            ["MAX_SPEED", "Forty kilometres per hour on the ramp"],
            ["MIN_GAP", "Fifty metres between two loaded trucks"],
        ],
    ),
    ("BodyText", "Table 3 Crew roles"),
    (
        "table",
        [
            ["Role", "Held by"],
            ["DRIVER or HAULER", "The operator who drives the truck during a shift."],
            ["DISPATCHER", "The person who assigns each truck to a shovel."],
        ],
    ),
    ("Heading1", "6 Data protection"),
    (
        "BodyText",
        "Load planning refers to the rules that decide which truck serves which shovel. "
        "A payload meter is a scale that weighs the load carried by a truck. "
        "The log does not record remote access (i.e., logging in from outside the site). "
        "Remote access is granted per user. Weighing is another technique for checking each load. "
        "The cycle time is important for planning.",
    ),
    # A table's notes run together, each after its letter: a definition ends with its own note.
    (
        "BodyText",
        "a Rainfall is the yearly total at the gauge. The value in brackets refers to the deviation from the "
        "shift mean. b Tonnes are wet tonnes.",
    ),
    # An API reference: a signature over its description, a parameter list, a bare member name.
    ("Heading1", "7 Dispatch interface"),
    ("Code", "readCycle (truck, shift)"),
    ("BodyText", "Reads the cycle times of one truck during a shift. The times are in seconds."),
    ("field", "Parameters: truck (int) – the number painted on the body of the truck."),
    ("Bullet", "• shift (string) – The name of the shift as the roster prints it."),
    ("Bullet", "• Pressure (bar) – a reading taken at the pump before each shift."),
    ("Code", "lastLoad"),
    ("BodyText", "Contains the mass of the last load the truck carried."),
    ("Heading1", "8 Shift changes"),
    ("Code", "overview"),
    ("BodyText", "The shifts change at six in the morning and at six in the evening."),
    (
        "BodyText",
        "Trucks are queued by Weighted Queue Scheduling (WQS, Okafor et al., 2021) at every shovel. "
        "The ramp keeps the usual grade (Mensah, 2019), and the Pit Loading Rate (PLR, 2019 survey) is logged.",
    ),
    (
        "BodyText",
        "The gauge prints each reading after its key (wd - wind, rn - rain, TT - temperature) on one line. "
        "The pits close in three spans: May - June, July - August, Sept - Oct.",
    ),
    # A table's note: keys and their words parted by commas, the pairs by semicolons.
    (
        "BodyText",
        "For ground type, C, clay; L, loam; R, bare rock. The crews came from Leeds, Hull; York, Selby; Derby, Bath.",
    ),
    # Clauses that define by their verb after a comma; a clause that is an instruction or a
    # pronoun's defines nothing.
    (
        "BodyText",
        "For the largest trucks, 8x4R denotes a chassis with four driven wheels, the axle ratio denotes the "
        "turns of the shaft per turn of a wheel. For details, please refer to the fleet manual, which "
        "denotes every part by its number.",
    ),
    # An abbreviation, its year, then its long form; a year before a bracket that spells nothing.
    (
        "BodyText",
        "The grades were set by ORE in 2019 (Open Roads for Excavators) for every ramp. The PIT plan of 2020 "
        "(a wet year) was kept.",
    ),
    # An abbreviation and a copula: classified, not defined (left open); an explicit verb defines.
    ("BodyText", "HRD is a crew of six that grades the haul roads. GPM stands for the grade per metre of ramp."),
    # Placeholders of a format explained after it (reportlab markup: "&lt;" prints "<").
    (
        "BodyText",
        'Each record starts with "R:&lt;ID&gt;&lt;ST&gt;", where &lt;ID&gt; is the number of the truck, and '
        "&lt;ST&gt; is the shift code. Replace &lt;ID&gt; by the fleet number when the tag &lt;b&gt; is printed.",
    ),
]

FRENCH = [
    ("Title", "Engins de transport minier"),
    ("Heading1", "1 Domaine d'application"),
    ("BodyText", "Le présent document définit les termes employés pour le transport du minerai."),
    ("Heading1", "2 Termes et définitions"),
    ("BodyText", "Pour les besoins du présent document, les termes et définitions suivants s'appliquent."),
    ("Heading2", "2.1 bande transporteuse"),
    ("BodyText", "convoyeur continu qui porte le minerai du concasseur au stock"),
    ("BodyText", "Note 1 à l'article: La bande est inspectée chaque semaine."),
    ("Heading2", "2.2 benne"),
    ("BodyText", "caisse basculante du camion qui reçoit la charge"),
    ("Heading1", "3 Pompes"),
    ("Heading2", "3.1 Pompe centrifuge"),
    ("BodyText", "La pompe centrifuge est une machine qui élève l'eau du puisard par la force centrifuge."),
    ("Heading2", "3.2 Pompe doseuse"),
    ("BodyText", "La pompe doseuse doit être vérifiée chaque jour par le conducteur."),
    ("Heading1", "4 Exploitation"),
    (
        "BodyText",
        "Le terme piste de roulage désigne la route sur laquelle circulent les camions chargés. "
        "On entend par temps de cycle, la durée d'un aller et retour du camion. "
        "Le camion est important pour la production.",
    ),
    ("Heading1", "5 Interface de répartition"),
    ("Code", "lireCycle (engin)"),
    ("BodyText", "Lit les temps de cycle d'un camion pendant un poste."),
    ("field", "Paramètres : engin (int) – le numéro peint sur la caisse du camion."),
    ("BodyText", "Les camions suivent un ordonnancement par file pondérée (OFP, Dupont et al., 2020) à chaque pelle."),
    ("BodyText", "La jauge imprime chaque mesure après sa clé (V : vent, P : pluie, T : température) sur une ligne."),
    ("BodyText", "Pour le type de sol, A, argile ; L, limon ; R, roche nue."),
    (
        "BodyText",
        "Pour les gros camions, 8x4R désigne un châssis à quatre roues motrices, le rapport de pont désigne "
        "le nombre de tours de l'arbre par tour de roue.",
    ),
    ("BodyText", "La loi VRAC de 2016 (Voies Routières d'Accès aux Carrières) fixe les pentes des rampes."),
    ("BodyText", "Chaque ligne commence par « R:&lt;ID&gt; », où &lt;ID&gt; est le numéro du camion."),
]

GERMAN = [
    ("Title", "Fördertechnik im Tagebau"),
    ("Heading1", "1 Anwendungsbereich"),
    ("BodyText", "Dieses Dokument legt Begriffe für die Förderung im Tagebau fest."),
    ("Heading1", "2 Begriffe"),
    ("BodyText", "Für die Anwendung dieses Dokuments gelten die folgenden Begriffe."),
    ("Heading2", "2.1 Förderband"),
    ("BodyText", "stetig laufendes Band, das das Erz vom Brecher zur Halde trägt"),
    ("BodyText", "Anmerkung 1 zum Begriff: Das Band wird wöchentlich geprüft."),
    ("Heading1", "3 Pumpen"),
    ("Heading2", "3.1 Kreiselpumpe"),
    ("BodyText", "Die Kreiselpumpe ist eine Maschine, die das Wasser aus dem Sumpf fördert."),
    ("Heading2", "3.2 Dosierpumpe"),
    ("BodyText", "Die Dosierpumpe muss täglich vom Fahrer geprüft werden."),
    ("Heading1", "4 Betrieb"),
    (
        "BodyText",
        "Unter einer Fahrstraße versteht man den Weg, auf dem die beladenen Lkw fahren. "
        "Die Nutzlast bezeichnet die Masse, die ein Lkw in einer Fahrt trägt. "
        "Der Lkw ist wichtig für die Produktion.",
    ),
    ("Heading1", "5 Schnittstelle"),
    ("Code", "leseZyklus (fahrzeug)"),
    ("BodyText", "Liest die Umlaufzeiten eines Lkw während einer Schicht."),
    ("field", "Parameter: fahrzeug (int) – die Nummer, die auf den Lkw gemalt ist."),
    ("BodyText", "Die Lkw folgen der gewichteten Warteschlangenplanung (GWP, Weber und Roth, 2022) an jedem Bagger."),
    (
        "BodyText",
        "Der Pegel druckt jeden Wert hinter seinem Kürzel (w - Wind, r - Regen, t - Temperatur) in eine Zeile.",
    ),
    ("BodyText", "Das Gesetz FGB von 2018 (Fördergurtbestimmung) regelt die Bänder."),
    ("BodyText", "Jede Zeile beginnt mit R:&lt;ID&gt;; &lt;ID&gt; bezeichnet die Nummer des Lkw."),
]


def _parse(parses, tmp_path_factory, name: str, story) -> ParsedDocument:
    pdf = tmp_path_factory.mktemp(name) / f"{name}.pdf"
    story_pdf(pdf, story, title=name)
    return parses.run(pdf).document


def _definitions(document: ParsedDocument) -> dict[str, str | None]:
    """Each term's definition, or its full name where it has none (an abbreviation)."""
    return {
        e.term: e.definition or e.full_name for e in extract_document(document).glossary if e.definition or e.full_name
    }


@pytest.fixture(scope="module")
def english(parses, tmp_path_factory) -> dict[str, str | None]:
    return _definitions(_parse(parses, tmp_path_factory, "haulage_en", ENGLISH))


@pytest.fixture(scope="module")
def french(parses, tmp_path_factory) -> dict[str, str | None]:
    return _definitions(_parse(parses, tmp_path_factory, "haulage_fr", FRENCH))


@pytest.fixture(scope="module")
def german(parses, tmp_path_factory) -> dict[str, str | None]:
    return _definitions(_parse(parses, tmp_path_factory, "haulage_de", GERMAN))


def test_numbered_definition_clauses_titled_by_their_term(english, french, german):
    """ "2.1" over "haul road", or "2.2 cycle time" as one heading, then the defining phrase;
    its "Note 1 to entry" is not part of it."""
    assert english["haul road"] == "road built for trucks that carry ore or waste from the pit to the dump"
    assert english["cycle time"] == "time a truck takes to travel from the loading point to the dump and back"
    assert english["queue time"] == "time a truck waits at the loading point before it is loaded"
    assert english["Payload"] == "Mass of material that a truck carries in one trip."
    assert "General" not in english
    assert french["bande transporteuse"] == "convoyeur continu qui porte le minerai du concasseur au stock"
    assert french["benne"] == "caisse basculante du camion qui reçoit la charge"
    assert german["Förderband"] == "stetig laufendes Band, das das Erz vom Brecher zur Halde trägt"
    assert not any("\n" in term for terms in (english, french, german) for term in terms)


def test_a_section_opening_definition_and_not_a_description(english, french, german):
    assert key(english["ball valve"]).startswith("aquarterturnvalve")
    assert key(french["pompe centrifuge"]).startswith("unemachinequi")
    assert key(german["Kreiselpumpe"]).startswith("einemaschine")
    for terms, descriptions in (
        # A participle or another verb describes the thing; "is of one piece" says what it is made of.
        (english, ["gate valve", "torque wrench", "Pallets", "Conveyors", "check valve"]),
        (french, ["pompe doseuse"]),
        (german, ["Dosierpumpe"]),
    ):
        assert not {key(t) for t in terms} & {key(d) for d in descriptions}


def test_labelled_bullets_define_their_label_only_when_they_talk_about_it(english):
    assert english["Dispatch network"] == "a private network that links the trucks to the control room."
    assert key(english["Radio network"]).startswith("carrythevoicechannels")
    # A pronoun, or a word before the label ("Additional spare radios can …"): prose about it.
    assert not {"Staff training", "Spare radios"} & set(english)


def test_a_term_description_table(english):
    assert english["TRUCK_ID"] == "Identifier of the truck that reported the cycle"
    assert english["LOAD_TIME"] == "Time at which the truck left the loading point"
    assert "Register" not in english
    # A column of values says what each row is set to, not what it means.
    assert not {"MAX_SPEED", "MIN_GAP", "Setting"} & set(english)
    # Unless each of its cells is a noun phrase sentence; a cell of identifiers names each of them.
    assert english["DRIVER"] == english["HAULER"] == "The operator who drives the truck during a shift."
    assert english["DISPATCHER"] == "The person who assigns each truck to a shovel."
    assert "DRIVER or HAULER" not in english


def test_an_api_reference_defines_its_members_and_parameters(english, french, german):
    """A signature line over its description, "Parameters: name (type) – …" and one bullet each;
    a capitalised word before a unit is no parameter, and a lone word is a member only where the
    chunk prints a signature with its argument list."""
    assert english["readCycle"] == "Reads the cycle times of one truck during a shift."
    assert english["truck"] == "the number painted on the body of the truck."
    assert english["shift"] == "The name of the shift as the roster prints it."
    assert english["lastLoad"] == "Contains the mass of the last load the truck carried."
    assert not {"Pressure", "overview"} & set(english)
    assert french["lireCycle"] == "Lit les temps de cycle d'un camion pendant un poste."
    assert french["engin"] == "le numéro peint sur la caisse du camion."
    assert german["leseZyklus"] == "Liest die Umlaufzeiten eines Lkw während einer Schicht."
    assert german["fahrzeug"] == "die Nummer, die auf den Lkw gemalt ist."


def test_an_abbreviation_expanded_before_its_citation(english, french, german):
    """ "Long Form (LF, Author et al., 2021)": the work that introduced it is no part of the name;
    a bracket that ends in no year is no citation, and a citation alone names nothing."""
    assert english["WQS"] == "Weighted Queue Scheduling"
    assert french["OFP"] == "ordonnancement par file pondérée"
    assert german["GWP"] == "gewichteten Warteschlangenplanung"
    assert not {"PLR", "Mensah"} & set(english)


def test_a_key_legend_gives_each_key_its_words(english, french, german):
    """ "(wd - wind, rn - rain, TT - temperature)": three pairs or more in a run; a run of
    capitalised words ("May - June, July - August") is no legend."""
    assert (english["wd"], english["rn"], english["TT"]) == ("wind", "rain", "temperature")
    assert (french["V"], french["P"], french["T"]) == ("vent", "pluie", "température")
    assert (german["w"], german["r"], german["t"]) == ("Wind", "Regen", "Temperatur")
    assert not {"May", "July", "Sept"} & set(english)


def test_an_abbreviation_then_its_year_then_its_long_form(english, french, german):
    """ "set by ORE in 2019 (Open Roads for Excavators)": a year and a function word may stand
    between an abbreviation and its bracket; a bracket that does not spell it ("(a wet year)")
    names nothing."""
    assert english["ORE"] == "Open Roads for Excavators"
    assert french["VRAC"] == "Voies Routières d'Accès aux Carrières"
    assert german["FGB"] == "Fördergurtbestimmung"
    assert "PIT" not in english


def test_an_abbreviation_and_a_copula_is_left_open(english):
    """ "HRD is a crew …" may classify as well as define: no definition in code (the sentence
    goes to the model or the desk); "GPM stands for …" defines."""
    assert "HRD" not in english
    assert key(english["GPM"]).endswith("thegradepermetreoframp")


def test_a_formats_placeholders_explained_after_it(english, french, german):
    """ "R:<ID><ST>", where <ID> is …, and <ST> is …": a placeholder at the head of a sentence or
    of a legend's clause, then a legend verb; one inside a sentence ("when the tag <b> is printed")
    explains nothing."""
    assert english["<ID>"] == "the number of the truck"
    assert english["<ST>"] == "the shift code."
    assert "<b>" not in english
    assert french["<ID>"] == "le numéro du camion."
    assert german["<ID>"] == "die Nummer des Lkw."


def test_a_key_legend_with_commas_between_key_and_words(english, french):
    """ "C, clay; L, loam; R, bare rock": a comma parts key and words where semicolons part the
    pairs; a run of place names ("Leeds, Hull; York, Selby") is no legend."""
    assert (english["C"], english["L"], english["R"]) == ("clay", "loam", "bare rock")
    assert (french["A"], french["L"], french["R"]) == ("argile", "limon", "roche nue")
    assert not {"Leeds", "York", "Derby"} & set(english)


def test_defining_verbs_restatements_and_not_rules_or_evaluations(english, french, german):
    assert key(english["Load planning"]).startswith("therulesthatdecide")
    assert key(english["payload meter"]).startswith("ascalethatweighs")
    assert english["remote access"] == "logging in from outside the site"
    assert not {"Weighing", "cycle time is important"} & set(english)
    assert english["value in brackets"] == "the deviation from the shift mean."
    assert key(french["piste de roulage"]).startswith("laroutesurlaquelle")
    assert key(french["temps de cycle"]).startswith("laduréedunaller")
    assert key(german["Fahrstraße"]).startswith("denweg")
    assert key(german["Nutzlast"]).startswith("diemasse")
    assert not {"camion", "Lkw"} & (set(french) | set(german))


def test_clauses_that_define_by_their_verb_after_a_comma(english, french):
    """ "For …, 8x4R denotes …, the axle ratio denotes …": each clause's subject its own term, its
    definition up to the next such clause; "please refer to", "which denotes" name nothing."""
    assert english["8x4R"] == "a chassis with four driven wheels"
    assert english["axle ratio"] == "the turns of the shaft per turn of a wheel."
    assert french["8x4R"] == "un châssis à quatre roues motrices"
    assert key(french["rapport de pont"]).startswith("lenombredetours")
    assert not {"please", "which", "details"} & {t.casefold() for t in english}


@pytest.mark.parametrize(
    "note, marks",
    [
        ("P indicates that the pump ran, T indicates that the tank was full, and na denotes no reading.",
         {"P": "the pump ran", "T": "the tank was full", "na": "no reading."}),
        ("P indique que la pompe a tourné, T indique que la cuve était pleine.",
         {"P": "la pompe a tourné", "T": "la cuve était pleine."}),
        ("P kennzeichnet einen Lauf der Pumpe, T kennzeichnet einen vollen Tank.",
         {"P": "einen Lauf der Pumpe", "T": "einen vollen Tank."}),
    ],
)  # fmt: skip
def test_a_table_notes_marks_and_what_they_indicate(note, marks):
    """Under a table, "P indicates that …, T indicates that …": each mark its clause. (A table
    chunk made here: the rule reads the note's words, MinerU's table layout is not in question.)"""
    table = Chunk(chunk_id="d::0000", doc_id="d", kind="table", text=f"Site | Run\nNorth | P\n{note}", page_idx=0,
                  heading="Runs", heading_path=["Runs"])  # fmt: skip
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=[table])
    assert _definitions(document) == marks


def test_a_mark_verb_in_running_text_defines_nothing():
    """ "P indicates that …" in a paragraph describes; only a table's note is a legend."""
    assert _definitions(_chunks(("Gauges", "During a shift, P indicates that the pump ran."))) == {}


@pytest.mark.parametrize(
    "sentence",
    ["In the old plant, Smith refers to the older valves.", "Im alten Werk, Wasser bedeutet hier den Zulauf."],
)
def test_a_clauses_capitalised_word_is_no_code(sentence):
    """After a comma, a clause's subject is a term only as a code (a capital or digit after its
    first character): a name or a German noun that opens with a capital is none."""
    assert _definitions(_chunks(("Valves", sentence))) == {}


def _chunks(*texts: tuple[str, str]) -> ParsedDocument:
    """One text chunk per (heading, text), each under its own heading."""
    chunks = [
        Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind="text", text=text, page_idx=0, heading=heading,
              heading_path=[heading])
        for k, (heading, text) in enumerate(texts)
    ]  # fmt: skip
    return ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=chunks)


@pytest.mark.parametrize(
    "heading, sentence",
    [
        ("Pumps", "Pumps require regular maintenance by the crew."),
        ("Overview", "This is a guide for operators."),
        ("Results", "A notable feature of Fig. 1 is the increase in flow."),
        ("Treatment", "Settling tanks are an effective means of removing grit."),
        ("Shift rotation", "Shift rotation helps operators stay alert on long night shifts."),
        ("Geometry", "A rectangle is called finite if its corners are ordered."),
        ("Results", "Results are shown in Table 2 for every site."),
        ("Challenges", "A key challenge is the cost of the sensors."),
        ("Hydrology", "where Q is the flow (i.e. Q50 is the median flow) of the stream."),
        ("Pallets", "Pallets are stacked in the yard before each shift."),
        ("Pumps", "Pumps move water from the sump to the plant."),
        ("Valves", "The valve is of one piece and made of cast steel."),
        ("Pompes", "Les pompes sont installées dans la station de relevage."),
        ("Pumpen", "Pumpen fördern das Wasser aus dem Sumpf."),
        (
            "Parts",
            "• Spare parts: Additional spare parts can be ordered from the depot.\n\n"
            "• Tools: Additional tools can be borrowed from the store.",
        ),
    ],
)
def test_sentences_that_define_nothing(heading, sentence):
    assert _definitions(_chunks((heading, sentence))) == {}


def test_inverted_and_indonesian_definitions():
    document = _chunks(
        ("Istilah", "Yang dimaksud dengan jalan angkut adalah jalan yang dilalui truk bermuatan."),
        ("Pompa sentrifugal", "Pompa sentrifugal adalah pompa yang memindahkan air dengan gaya sentrifugal."),
        ("Pompa dosis", "Pompa dosis harus diperiksa setiap hari."),
        ("Definitions", "Definition 2 (Haul truck). A haul truck is a dump truck built for the pit."),
        ("Términos", "Se entiende por camión minero, el vehículo que lleva el mineral al botadero."),
        ("Carga", "La carga útil se define como la masa que lleva un camión en un viaje."),
    )
    assert _definitions(document) == {
        "camión minero": "el vehículo que lleva el mineral al botadero.",
        "carga útil": "la masa que lleva un camión en un viaje.",
        "jalan angkut": "jalan yang dilalui truk bermuatan.",
        "Pompa sentrifugal": "pompa yang memindahkan air dengan gaya sentrifugal.",
        "Haul truck": "a dump truck built for the pit.",
    }


def test_a_clause_numbered_alone_takes_its_term_from_the_first_line():
    document = ParsedDocument(
        doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1,
        chunks=[
            Chunk(chunk_id="d::0000", doc_id="d", kind="text", text="x", page_idx=0, heading="Terms and definitions",
                  heading_path=["3 Terms and definitions"]),
            Chunk(chunk_id="d::0001", doc_id="d", kind="text", page_idx=0, heading="3.1",
                  heading_path=["3 Terms and definitions", "3.1"],
                  text="haul road\n\nroad built for trucks\n\nNote 1 to entry: It is graded daily."),
        ],
    )  # fmt: skip
    assert _definitions(document) == {"haul road": "road built for trucks"}
    # A clause titled by its term, with the next clauses run into its text.
    document.chunks[1].heading, document.chunks[1].heading_path[-1] = "haul road", "3.1 haul road"
    document.chunks[1].text = "road built for trucks\n\n3.2\n\npayload\n\nmass a truck carries"
    assert _definitions(document) == {"haul road": "road built for trucks", "payload": "mass a truck carries"}


def test_a_restatement_after_a_comma_names_a_phrase_the_document_uses_again():
    document = _chunks(
        ("Flows", "The gauge reports the median flow, i.e. the 50th percentile of daily flows, each month."),
        ("Reports", "The median flow is read from the gauge. A document can be opened from memory data, i.e. "
                    "without using a file. Memory data is faster."),
    )  # fmt: skip
    assert _definitions(document) == {"median flow": "the 50th percentile of daily flows"}


def test_lower_case_numbered_clauses_are_terms_without_a_definitions_heading():
    """ISO's lower-case term titles, three siblings: a definitions section whose own heading
    MinerU left out of the path; a capitalised sibling run is ordinary sections."""
    entries = [("3.1 haul road", "road built for trucks"), ("3.2 payload", "mass a truck carries in one trip"),
               ("3.3 queue time", "time a truck waits before it is loaded")]  # fmt: skip
    assert _definitions(_chunks(*entries)) == {
        "haul road": "road built for trucks",
        "payload": "mass a truck carries in one trip",
        "queue time": "time a truck waits before it is loaded",
    }
    assert _definitions(_chunks(*[(h.title(), t) for h, t in entries])) == {}


def test_a_column_of_values_defines_nothing():
    """ "Corresponding value", "Value", "Default": what each row is set to, however wordy."""
    table = "Setting | Corresponding value\nMAX_SPEED | Forty kilometres per hour on the ramp\n" \
            "MIN_GAP | Fifty metres between two loaded trucks"  # fmt: skip
    document = _chunks(("Settings", "x"))
    document.chunks[0].kind, document.chunks[0].text = "table", table
    assert _definitions(document) == {}
    document.chunks[0].text = table.replace("Corresponding value", "Description")
    assert _definitions(document) == {
        "MAX_SPEED": "Forty kilometres per hour on the ramp",
        "MIN_GAP": "Fifty metres between two loaded trucks",
    }
    # One noun phrase sentence among values makes no column of meanings; words joined by "and"
    # are one term, not two identifiers.
    document.chunks[0].text = table.replace("Forty kilometres per hour on the ramp", "The speed limit on the ramp.")
    assert _definitions(document) == {}
    document.chunks[0].text = table.replace("Corresponding value", "Description").replace("MIN_GAP", "Gap and spacing")
    assert _definitions(document)["Gap and spacing"] == "Fifty metres between two loaded trucks"


def test_a_restated_phrase_is_counted_once_per_document(monkeypatch):
    """Many restatements: the document is tokenised once, not once per "i.e."."""
    from kb_pipeline.knowledge.readers.glossary import mining

    calls = []
    tokenise = mining._TOKEN.findall
    monkeypatch.setattr(mining, "_TOKEN", type("T", (), {"findall": lambda _, t: calls.append(t) or tokenise(t)})())
    texts = [(f"S{k}", f"The site logs at gate {k} remote access (i.e., logging in from outside the site).")
             for k in range(30)]  # fmt: skip
    assert _definitions(_chunks(*texts)) == {"remote access": "logging in from outside the site"}
    # Each chunk's text once for the index (the glossary's own mention count tokenises its texts too).
    assert sum(t.startswith("The site logs") for t in calls) <= 2 * len(texts)
