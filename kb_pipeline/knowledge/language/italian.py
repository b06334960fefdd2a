"""Italian: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "it"
GLOSSARY_HEADINGS = r"definizioni"
LIST_HEADINGS = r"abbreviazion|acronimo"
PURPOSE_HEADINGS = r"\bscopo"
SELF_REFERENCES = ""
