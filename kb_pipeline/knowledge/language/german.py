"""German: the words and wording of every class the readers match (lexicon.py
says what each class is for)."""

CODE = "de"
DEFINITE_ARTICLES = ("der", "die", "das", "den", "dem", "des")
INDEFINITE_ARTICLES = ("ein", "eine")
DETERMINERS = ("einer", "eines")
COPULAS = ("ist", "sind")
BARE_COPULAS = ()
MODALS = ("muss", "müssen", "kann", "können", "soll", "sollte", "sollen", "wird", "werden", "hat", "haben", "war")
PRONOUNS = ("es", "er", "sie", "dies", "diese", "dieser", "dieses", "wir", "man")
AUTHORS = ("wir", "unser", "unsere")
NEGATIONS = ("nicht", "kein", "keine")
FUNCTION_WORDS = """der die das den dem des ein eine einer einem einen eines und oder im am an auf aus bei mit nach
    von vom zu zum zur für über unter ist sind wird werden wurde als wie wenn dass es er sie wir ihr nicht auch durch
    bis ohne dieses diese dieser""".split()
DOCUMENT_PARTS = ("tabelle",)
KIND_NOUNS = """Symbol Symbole Variable Variablen Parameter Koeffizient Koeffizienten Konstante Konstanten Attribut
    Attribute Argument Argumente Wert Werte Index Indizes Term Terme Faktor Faktoren Größe Größen""".split()
INSTRUCTION_VERBS = ()
DEFINING_VERBS = r"bezeichne[tn]|(?:ist|sind|wird|werden) definiert als|bedeute[tn]"
DISCOURSE_MARKERS = r"Zum\s+Beispiel|Beispielsweise|Außerdem|Jedoch|Dann"
CONDITION_OPENERS = r"Wenn|Falls|Sofern|Soweit|Bei|Vor|Nach|Während|Für|Im\s+Falle"
AS_NEEDED = r"^(?:falls|wenn)\s+(?:nötig|erforderlich|möglich)"
EACH_SCOPES = r"(?:Für|Bei)\s+jede[mnrs]?"
PROVISOS = r"^(?:sofern|vorausgesetzt)\b"
# "bis" before a clause's subject ("bis der Tank voll ist"), not before a date ("bis 2030").
TRAILING_CONDITIONS = r"wenn|falls|sofern|vorausgesetzt|soweit|sobald|bis\s+(?=(?:der|die|das|er|sie|es|man)\b)"

OPEN_MODALS = r"kann|können"
SUBORDINATORS = r"wenn|ob|falls"
RULE_NOUNS = r"Regeln|Anforderungen|Empfehlungen|Anweisungen|Schritte"
OUTCOME_VERBS = r"liefert|ergibt"
ABSOLUTE_OUTCOMES = r"\b(?:liefert|liefern|ergibt|ergeben)\s+(?:immer|stets|nie|niemals)\b"
FORMULA_NOUNS = r"Formel|Gleichung"
FOLLOWING = r"folgt"
FORMULA_OF = r"für|der"
FORMULA_LEAD_INS = (
    r"(?:wird|werden|ist|sind|kann|können)\s+(?:wie folgt\s+)?(?:gegeben|berechnet|definiert|bestimmt|ermittelt)"
    r"(?:\s+(?:durch|als|nach|mit|aus|zu))?(?:\s+werden)?"
    r"|(?:ergibt|berechnet|bestimmt)\s+sich(?:\s+(?:aus|als|nach|zu|wie folgt))?"
)
LEGEND_VERBS = r"ist|sind|bezeichnet|steht\s+für"
LEGEND_OPENERS = r"wobei|worin"
WITH = r"mit"
SYMBOL_DEFINING_VERBS = r"bezeichnet|steht\s+für|ist\s+definiert\s+als"
SYMBOL_READING_VERBS = r"(?:dann\s+)?(?:beschreibt|misst|beziffert)"
CONJUNCTIONS = r"und"
DISJUNCTIONS = r"oder"
PARAMETER_LABELS = r"parameter|argumente?"

# German adjectives of ease and difficulty that take "zu" + infinitive ("ist leicht zu bedienen").
_EASE = r"(?:einfach|leicht|schwer|schwierig|kompliziert|mühsam|bequem|gut|schlecht|möglich|unmöglich|kaum)"
# "darf … werden": a permission.
_PERMISSION = (
    r"\b(?:darf|dürfen)\b(?!\s+(?:nicht|kein))[^.;:,]{0,80}?\s(?!(?:erwartet|vermutet|bezweifelt)\b)"
    r"[a-zäöüß]+(?:t|en)\s+werden\b"
)
RULE_WORDING = (
    r"\b(?:muss|müssen|musst|muß|soll|sollen|sollte|sollten)\b",
    # "darf nicht", and the negation at the end of its clause: "darf die Dichtung nicht ersetzen".
    r"\b(?:darf|dürfen)(?:\s+[^\s,;:.]+){0,6}?\s+(?:nicht|kein\w*)\b",
    _PERMISSION,
    # "Das Ventil ist sofort zu schließen": the modal passive. Not "ist es, … zu" (an
    # infinitive clause after a comma) nor "ist einfach zu verwenden" (how easy a thing is).
    rf"\b(?:ist|sind)\b(?!\s+es\b)(?:\s+(?!{_EASE}\s+zu\b)[^\s,]+){{0,6}}?\s+zu\s+\w+(?:en|ern|eln)\b",
    r"\b(?:ist|sind)\s+(?:\w+\s+)?(?:erforderlich|vorgeschrieben|verboten|unzulässig|zulässig|notwendig"
    r"|verpflichtend|untersagt)\b",
    r"\b(?:wird|werden)\s+(?:\w+\s+){0,3}?empfohlen\b|\bempfehlen\s+wir\b|\bwir\s+empfehlen\b"
    r"|\bes\s+empfiehlt\s+sich\b",
    # Ein Ziel: seine Zahl ("Das Ziel für 2030 liegt bei 40 %"), ein Text, der Ziele oder Grenzwerte festlegt.
    r"\bZiel(?:e|wert|werte)?\b[^.;:]{0,120}?\b(?:ist|sind|liegt\s+bei|liegen\s+bei|beträgt|betragen)\s+\d",
    r"\b(?:legt|legen|legte|legten)\b[^.;:]{0,80}?\b(?:Ziele?|Grenzwerte?|Regeln?|Obergrenzen?)\b[^.;:]{0,80}?\bfest\b",
)
# What a value compared with a threshold is classed as ("A TA > 16 mmol/L is considered high").
CLASSIFYING_VERBS = r"(?:gilt|gelten)\s+als|(?:wird|werden)\s+als\s+\S+\s+(?:angesehen|eingestuft|bezeichnet)"

CALCULATION_WORDING = (
    r"\b(?:wird|werden|wurde|wurden)\b(?:\s+\S+){0,6}?\s+(?:berechnet|ermittelt|gerundet|angegeben|bestimmt|gemessen"
    r"|abgeschätzt|vernachlässigt)\b",
    r"\bberechnet\s+sich\b|\bergibt\s+sich\s+aus\b",
    r"\bAnnahme\b[^.;:]{0,80}?\b(?:ist|war),?\s+dass\b",
    # A step of a method section, in the past passive ("Die Reihen wurden … gefiltert").
    r"\b(?:wurde|wurden)\b(?:\s+\S+){0,8}?\s+(?:verwendet|ausgewählt|angewandt|angewendet|durchgeführt|extrahiert"
    r"|analysiert|getestet|gefiltert|angepasst|ausgeschlossen|gewählt|geglättet|interpoliert|normiert|verglichen)\b",
    # Die Umformung der Daten einer Methode, im Präsens ("Fehlende Werte werden durch … ersetzt").
    r"\b(?:wird|werden)\b(?:\s+\S+){0,8}?\s+(?:ersetzt|extrahiert|verworfen|interpoliert|umgerechnet)\b",
)
CALCULATION_WORDS = r"berechnet|gerundet"

CONDITIONALS = r"Wenn|Falls|Sonst"
ALTERNATIVES = r"sonst|andernfalls"
COPYRIGHT = r"urheberrecht"
LICENSING = ""
THE_WORK = r"\bdieses?\s+(?:Werk|Dokument)"

# Relative pronouns: ", which relates …" opens a clause about a noun, not the noun itself (a
# legend's meaning ends before it).
RELATIVE_PRONOUNS = r"welche|welcher|welches"
# What a mark in a table's note stands for: "P indicates that …" (a legend under a table).
MARK_VERBS = r"bedeutet,?(?:\s+dass)?|kennzeichnet"

# The label of a revision or version line printed under a title ("Revision C", "Version 3.2").
VERSION_LABELS = r"revision|version|ausgabe|fassung|auflage"

# Definitions (definition_sentences.py, definitions.py; english.py says what each class is).
HEDGES = ()
INDEFINITE_COPULAS = ("ist",)
ONE_OF = ("einer",)
INVERTED_DEFINITIONS = (
    r"^Unter\s+(?:(?:einem|einer|einen|dem|der|den)\s+)?(?P<subject>[^,\n]{2,80}?)\s+versteht man\s+(?P<rest>\S)",
)
NOTE_LABELS = ("anmerkung", "beispiel")
ENTRY_NOTES = r"Anmerkung \d+ zum Begriff|ANMERKUNG\b|BEISPIEL\b|\[QUELLE"

# What a document names its own parts and itself with (english.py says what each class is).
GLOSSARY_HEADINGS = r"begriffe|begriffsbestimmung"
LIST_HEADINGS = r"abk[üu]rzung"
PURPOSE_HEADINGS = r"\b(?:zweck|einleitung|ziel|zusammenfassung)"
SELF_PREPOSITIONS = ("in",)
SELF_DETERMINERS = ("dieses", "diese", "dieser", "diesem", "das vorliegende", "die vorliegende", "der vorliegende")
DOCUMENT_NOUNS = ("dokument", "bericht", "handbuch", "leitfaden", "norm", "studie", "richtlinie", "arbeit", "kapitel")
POSTPOSED_DEMONSTRATIVES = ()
AIM_DETERMINERS = ("das", "der", "sein", "ihr")
AIM_QUALIFIERS = ()
AIM_NOUNS = ("ziel", "zweck", "gegenstand")
AIM_COPULAS = ("ist", "sind")
BARE_AIM_NOUNS = AIM_NOUNS
BARE_AIM_COPULAS = AIM_COPULAS
SELF_REFERENCES = ""

RESTATEMENT_MARKERS = r"d\.\s?h\."
THE_TERM = r"der begriff"
ASIDE_LABELS = r"hinweis|achtung|beispiel|schritt"

FORMULA_ARTICLES = ("die",)
BIBLIOGRAPHY_HEADINGS = r"literatur(?:verzeichnis)?"

# A legend's verb, last in a German clause ("… der Druck ist", "… die Länge bezeichnet"): no part
# of the meaning (legend.py).
LEGEND_VERBS_LAST = r"ist|sind|bezeichnet|darstellt|beschreibt"

PLAIN_CONJUNCTIONS = ("und",)
PLAIN_DISJUNCTIONS = ("oder",)

DEFINITION_LABELS = r"Definition"
TERM_DEFINING_VERBS = r"bezeichnet|ist definiert als"
UNIT_PREPOSITIONS = r"in"
IF_THEN_OPENERS = r"Wenn|Falls"
BARE_THEN_WORDS = r"dann"

# An instruction (imperatives.py): an infinitive's endings, read before the polite "Sie"
# ("Prüfen Sie die Dichtung") and last in a list item ("Dichtung auf Lecks prüfen.").
INSTRUCTION_ENDINGS = r"en|ern|eln"
POLITE_IMPERATIVE = r"Sie"

MEANING_COLUMN_HEADINGS = r"bedeutung|beschreibung|erl[äa]uterung|erkl[äa]rung"
NOT_TERM_COLUMN_HEADINGS = r"abk[üu]rz"

# Classes this language has no words in yet (english.py says what each is).
THEN_WORDS = ""
IMPLICATION_VERBS = ""
WHETHER_CONJUNCTIONS = ()
ASKING_WORDS = ""
REPORTING_VERBS = ""
POINTERS = ""
RESULT_CLAUSES = ""
GENERIC_HEADS = ()
POSSIBILITY_MODALS = ""
REASONING_MODALS = ()
FUTURE_MODALS = ()
FIRST_PERSON = ""
MECHANICS_MODALS = ()
NON_TERM_SUBJECTS = ()
NOT_DEFINING_WORDS = ""
SET_PHRASE_OPENERS = ""
DEFINITION_DETERMINERS = ()
PROSE_OPENERS = ()
WORKED_EXAMPLES = ""
