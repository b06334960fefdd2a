"""Korean: recognised only where a document names its own parts and itself, and in the few
wordings every language recognised is read in (a numbered definition's label, a listed
term's defining verb, a unit's preposition, "if … then"): lexicon.py, `RECOGNISED_ONLY`. No other reader reads its sentences.
english.py says what each class is."""

CODE = "ko"
# Written without spaces between words: a heading word may stand inside a compound, no `\b`.
GLOSSARY_HEADINGS = r"용어"
LIST_HEADINGS = r"약어"
PURPOSE_HEADINGS = r"개요|목적"
SELF_REFERENCES = r"(?:본|이)\s?(?:보고서|문서|연구|지침)"

DEFINITION_LABELS = ""
TERM_DEFINING_VERBS = ""
UNIT_PREPOSITIONS = ""
IF_THEN_OPENERS = ""
THEN_WORDS = ""
BARE_THEN_WORDS = ""
