"""The sentence analysis every language-reading reader reads (knowledge/language/analysis.py): a
chunk's language, its sentences, tokens whose offsets slice the verbatim text, a part of speech
per token and noun-phrase spans, in five languages. Invented sentences only."""

from __future__ import annotations

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.language.analysis import DocumentAnalysis, Sentence, language_of


def _analyse(*texts: str) -> tuple[DocumentAnalysis, list[Chunk]]:
    chunks = [Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind="text", text=t, page_idx=0) for k, t in enumerate(texts)]
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=chunks)
    return DocumentAnalysis(document), chunks


def _phrases(sentence: Sentence) -> list[str]:
    return [sentence.slice(*p).of(sentence.chunk.text) for p in sentence.noun_phrases]


@pytest.mark.parametrize(
    "language, text",
    [
        ("en", "The haul truck doesn't stop at the crusher."),
        ("de", "Der Förderweg führt über die Brücke zum Brecher."),
        ("fr", "Le camion s'arrête à l'entrée de la carrière."),
        ("es", "El camión se detiene en la entrada de la cantera."),
        ("it", "Il camion si ferma all'ingresso della cava."),
    ],
)
def test_each_language_is_told_and_its_tokens_slice_the_verbatim_text(language, text):
    analysis, (chunk,) = _analyse(text)
    (sentence,) = analysis.sentences(chunk)
    assert sentence.language == language
    assert all(chunk.text[t.start : t.end] == t.text for t in sentence.tokens)
    # Every character but spaces is in a token: nothing is dropped or rewritten.
    assert "".join(t.text for t in sentence.tokens) == text.replace(" ", "")
    assert sentence.tokens[-1].pos == "PUNCT"


def test_english_clitics_and_french_elisions_are_cut_as_the_treebanks_cut_them():
    analysis, (en, fr) = _analyse("The pump doesn't start.", "L'eau entre dans l'usine.")
    assert [t.text for t in analysis.sentences(en)[0].tokens] == ["The", "pump", "does", "n't", "start", "."]
    assert [t.text for t in analysis.sentences(fr)[0].tokens][:3] == ["L'", "eau", "entre"]


def test_parts_of_speech_and_noun_phrases():
    analysis, chunks = _analyse(
        "A conveyor belt is a machine that carries ore to the crusher.",
        "Ein Förderband ist eine Anlage, die das Erz zum Brecher bringt.",
        "Un convoyeur est un appareil qui transporte le minerai vers le concasseur.",
        "Una cinta transportadora es un aparato que lleva el mineral a la trituradora.",
        "Un nastro trasportatore è un impianto che porta il minerale al frantoio.",
    )
    en, de, fr, es, it = (analysis.sentences(c)[0] for c in chunks)
    assert [t.pos for t in en.tokens][:6] == ["DET", "NOUN", "NOUN", "AUX", "DET", "NOUN"]
    assert _phrases(en)[:2] == ["A conveyor belt", "a machine"]
    assert "eine Anlage" in _phrases(de) and "das Erz" in _phrases(de)
    assert "un appareil" in _phrases(fr) and "le minerai" in _phrases(fr)
    assert "un aparato" in _phrases(es) and "el mineral" in _phrases(es)
    # Romance noun phrases keep the adjective after their head.
    assert "Un nastro trasportatore" in _phrases(it)


def test_sentences_are_split_and_a_chunk_without_function_words_takes_its_documents_language():
    analysis, (prose, terse) = _analyse(
        "Die Pumpe läuft. Der Brecher steht still, und das Band ist leer.", "Pumpe 3: 40 m³/h"
    )
    assert [s.text for s in analysis.sentences(prose)] == [
        "Die Pumpe läuft.",
        "Der Brecher steht still, und das Band ist leer.",
    ]
    assert analysis.language == "de"
    assert analysis.sentences(terse)[0].language == "de"
    assert language_of("Pumpe 3: 40 m³/h", default="fr") == "fr"
