"""Italian: recognised only where a document names its own parts and itself, and in the few
wordings every language recognised is read in (a numbered definition's label, a listed
term's defining verb, a unit's preposition, "if … then"): lexicon.py, `RECOGNISED_ONLY`. No other reader reads its sentences.
english.py says what each class is."""

CODE = "it"
GLOSSARY_HEADINGS = r"definizioni"
LIST_HEADINGS = r"abbreviazion|acronimo"
PURPOSE_HEADINGS = r"\bscopo"
SELF_REFERENCES = ""

DEFINITION_LABELS = r"Definizione"
TERM_DEFINING_VERBS = r"si intende"
UNIT_PREPOSITIONS = r"in"
IF_THEN_OPENERS = r"Se|Quando"
THEN_WORDS = r"allora"
BARE_THEN_WORDS = ""
