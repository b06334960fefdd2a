"""Japanese: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "ja"
# Written without spaces between words: a heading word may stand inside a compound, no `\b`.
GLOSSARY_HEADINGS = r"用語"
LIST_HEADINGS = r"略語|略号"
PURPOSE_HEADINGS = r"概要|目的"
SELF_REFERENCES = ""
