"""Dutch: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "nl"
GLOSSARY_HEADINGS = ""
LIST_HEADINGS = r"afkorting"
PURPOSE_HEADINGS = ""
SELF_REFERENCES = ""
