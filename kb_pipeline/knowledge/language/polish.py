"""Polish: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "pl"
GLOSSARY_HEADINGS = ""
LIST_HEADINGS = r"skr[óo]t"
PURPOSE_HEADINGS = ""
SELF_REFERENCES = ""
