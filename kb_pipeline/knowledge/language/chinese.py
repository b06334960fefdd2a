"""Chinese: recognised only where a document names its own parts and itself (lexicon.py,
`RECOGNISED_ONLY`); no reader reads its sentences. english.py says what each class is."""

CODE = "zh"
# Written without spaces between words: a heading word may stand inside a compound, no `\b`.
GLOSSARY_HEADINGS = r"术语"
LIST_HEADINGS = r"缩略|缩写"
PURPOSE_HEADINGS = r"摘要"
SELF_REFERENCES = r"本(?:文|报告|文件|指南|手册|标准)"
