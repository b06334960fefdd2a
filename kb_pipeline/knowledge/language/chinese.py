"""Chinese: recognised only where a document names its own parts and itself, and in the few
wordings every language recognised is read in (a numbered definition's label, a listed
term's defining verb, a unit's preposition, "if … then"): lexicon.py, `RECOGNISED_ONLY`. No other reader reads its sentences.
english.py says what each class is."""

CODE = "zh"
# Written without spaces between words: a heading word may stand inside a compound, no `\b`.
GLOSSARY_HEADINGS = r"术语"
LIST_HEADINGS = r"缩略|缩写"
PURPOSE_HEADINGS = r"摘要"
SELF_REFERENCES = r"本(?:文|报告|文件|指南|手册|标准)"

DEFINITION_LABELS = ""
TERM_DEFINING_VERBS = ""
UNIT_PREPOSITIONS = ""
IF_THEN_OPENERS = ""
THEN_WORDS = ""
BARE_THEN_WORDS = ""
