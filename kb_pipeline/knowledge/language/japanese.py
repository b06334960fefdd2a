"""Japanese: recognised only where a document names its own parts and itself, and in the few
wordings every language recognised is read in (a numbered definition's label, a listed
term's defining verb, a unit's preposition, "if … then"): lexicon.py, `RECOGNISED_ONLY`. No other reader reads its sentences.
english.py says what each class is."""

CODE = "ja"
# Written without spaces between words: a heading word may stand inside a compound, no `\b`.
GLOSSARY_HEADINGS = r"用語"
LIST_HEADINGS = r"略語|略号"
PURPOSE_HEADINGS = r"概要|目的"
SELF_REFERENCES = ""

DEFINITION_LABELS = ""
TERM_DEFINING_VERBS = ""
UNIT_PREPOSITIONS = ""
IF_THEN_OPENERS = ""
THEN_WORDS = ""
BARE_THEN_WORDS = ""
