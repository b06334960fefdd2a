"""Korean: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "ko"
# Written without spaces between words: a heading word may stand inside a compound, no `\b`.
GLOSSARY_HEADINGS = r"용어"
LIST_HEADINGS = r"약어"
PURPOSE_HEADINGS = r"개요|목적"
SELF_REFERENCES = r"(?:본|이)\s?(?:보고서|문서|연구|지침)"
