"""The lexicon: the closed word classes of every language the readers know, one module per
language (english.py, french.py, german.py, spanish.py, indonesian.py), joined by lexicon.py into
the one list per class every reader takes its words from. A new language is one more module with
the same names, listed in lexicon.py's `LANGUAGES`."""
