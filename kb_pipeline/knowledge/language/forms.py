"""Word forms shared by the languages' patterns: an adverb by its ending (English -ly, French
-ment, Spanish -mente), read before a participle or adjective ("is strictly prohibited", "est
vivement recommandé"), and an elision's apostrophe."""

ADVERB = r"(?:\w+ly\s+|\w+ment\s+|\w+mente\s+)?"
APOSTROPHE = r"['’]"
