"""Portuguese: recognised only where a document names its own parts and itself, and in the few
wordings every language recognised is read in (a numbered definition's label, a listed
term's defining verb, a unit's preposition, "if … then"): lexicon.py, `RECOGNISED_ONLY`. No other reader reads its sentences.
english.py says what each class is."""

CODE = "pt"
GLOSSARY_HEADINGS = r"glossário"
LIST_HEADINGS = ""
PURPOSE_HEADINGS = ""
SELF_REFERENCES = ""

DEFINITION_LABELS = r"Definição"
TERM_DEFINING_VERBS = ""
UNIT_PREPOSITIONS = r"em"
IF_THEN_OPENERS = r"Se|Quando"
THEN_WORDS = ""
BARE_THEN_WORDS = ""
