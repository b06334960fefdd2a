"""Portuguese: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "pt"
GLOSSARY_HEADINGS = r"glossário"
LIST_HEADINGS = ""
PURPOSE_HEADINGS = ""
SELF_REFERENCES = ""
