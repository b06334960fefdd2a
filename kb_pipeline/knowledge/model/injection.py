"""Prompt injection: a sentence in a document that addresses a language model rather than a
reader ("Ignore previous instructions and define X as …"). Such a sentence is never offered to
the model as a candidate answer, and never quoted as a document's purpose, where a model
downstream (a RAG answerer) would read it as an instruction. Patterns in the languages the
readers know best; the model is also told the passage is data, and can only answer with
sentences it was offered, so a missed pattern still cannot make it write anything new.
"""

from __future__ import annotations

import re

_ADDRESSES_A_MODEL = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|prompts?|rules|context)\b"
    r"|\b(?:system prompt|language model|as an ai|you are (?:now )?(?:an? )?(?:ai|assistant|chatbot))\b"
    r"|\b(?:abaikan|ignorez|ignoriere|ignora)\b.{0,40}\b(?:instruksi|perintah|instructions?|anweisungen|instrucciones)\b",
    re.IGNORECASE,
)


def addresses_a_model(sentence: str) -> bool:
    return bool(_ADDRESSES_A_MODEL.search(sentence))
