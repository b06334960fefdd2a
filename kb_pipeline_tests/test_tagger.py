"""The part-of-speech tagger (kb_pipeline/knowledge/language/tagger.py): invented sentences in the
five languages it tags, asserting only the clear-cut words (articles, copulas, nouns, punctuation)
so a tagger right nine times in ten passes; and the shipped weights re-measured on the treebank
split they were not trained on, against the accuracy taggers/README.md records, so stale weights
fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_pipeline.knowledge.language.tagger import TAGGED_LANGUAGES, tag
from kb_pipeline.knowledge.language.tagger_training import TREEBANKS, read_conllu

from .conftest import SHARED

TAGGERS = Path(__file__).resolve().parents[1] / "kb_pipeline" / "knowledge" / "language" / "taggers"
UD = SHARED / "ud"


# A sentence and, per word, the tags accepted ("AUX|VERB": either; "?": not asserted).
@pytest.mark.parametrize(
    ("language", "sentence", "expected"),
    [
        ("en", "The valve is called a check valve .", "DET NOUN AUX|VERB VERB DET NOUN NOUN PUNCT"),
        ("en", "A pump moves the water into the tank .", "DET NOUN VERB DET NOUN ADP DET NOUN PUNCT"),
        ("en", "The motor is n't running .", "DET NOUN AUX PART VERB PUNCT"),
        ("de", "Ein Ventil ist ein Bauteil .", "DET NOUN AUX|VERB DET NOUN PUNCT"),
        ("de", "Die Pumpe drückt das Öl in den Tank .", "DET NOUN VERB DET NOUN ADP DET NOUN PUNCT"),
        ("fr", "Une vanne est un organe de la machine .", "DET NOUN AUX|VERB DET NOUN ADP DET NOUN PUNCT"),
        ("fr", "Le technicien vérifie l' état du filtre .", "DET NOUN VERB DET NOUN ADP NOUN PUNCT"),
        ("es", "La válvula es una pieza del motor .", "DET NOUN AUX|VERB DET NOUN ADP NOUN PUNCT"),
        ("es", "El operario cierra la tapa de la caja .", "DET NOUN VERB DET NOUN ADP DET NOUN PUNCT"),
        ("it", "La valvola è un componente della macchina .", "DET NOUN AUX|VERB DET NOUN ADP NOUN PUNCT"),
        ("it", "Il tecnico ha controllato la pompa .", "DET NOUN AUX VERB DET NOUN PUNCT"),
        ("it", "La pressione viene misurata automaticamente .", "DET NOUN AUX VERB ADV PUNCT"),
        ("it", "Il modulo Bosch ha una potenza di 5 kW .", "DET NOUN PROPN VERB DET NOUN ADP NUM ? PUNCT"),
    ],
)
def test_clear_cut_words_get_their_tags(language: str, sentence: str, expected: str) -> None:
    words = sentence.split()
    tags = tag(words, language)
    assert len(tags) == len(words)
    wrong = [
        (word, got, want)
        for word, got, want in zip(words, tags, expected.split())
        if want != "?" and got not in want.split("|")
    ]
    assert not wrong, list(zip(words, tags))


def test_every_language_tags_and_a_curly_apostrophe_reads_as_straight() -> None:
    assert TAGGED_LANGUAGES == {"en", "de", "fr", "es", "it"}
    for language in TAGGED_LANGUAGES:
        assert tag([], language) == []
        assert tag(["."], language) == ["PUNCT"]
    assert tag(["l\u2019", "état"], "fr") == tag(["l'", "état"], "fr")


def test_an_unknown_language_raises() -> None:
    with pytest.raises(ValueError):
        tag(["Hallo"], "nl")


def _recorded() -> dict[str, dict[str, str]]:
    """taggers/README.md's table: language → column → cell."""
    lines = [line for line in (TAGGERS / "README.md").read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]
    return {row["language"]: row for row in rows}


@pytest.mark.parametrize("language", ["en", "de"])
def test_shipped_weights_score_what_the_readme_records(language: str) -> None:
    row = _recorded()[language]
    split = row["measured on"].split()[0]
    trained_on = row["trained on"].split()[0]
    assert {split, trained_on} == {"dev", "test"}
    sentences, _ = read_conllu(UD / f"{TREEBANKS[language]}-ud-{split}.conllu.gz", language)
    correct = total = 0
    for words, gold in sentences:
        correct += sum(got == want for got, want in zip(tag(words, language), gold))
        total += len(gold)
    assert abs(correct / total - float(row["accuracy"])) <= 0.005
    assert correct / total > 0.85
