"""An API reference's own definitions: a parameter list's entries ("Parameters: count (int) – how
many …", or one bullet each) and a member's signature printed on a line of its own, its
description the paragraph below ("loadPage (number)" over "Loads a page …").

The layout, not the words, says these are definitions: an identifier, its type in parentheses and
a dash; or a line that is only an identifier and its argument list. A bare identifier line
("outline" over "Contains …") counts only in a chunk that prints a signature with its argument
list, so a lone word of running text is never read as a member. The definition is the first
sentence of what follows.
"""

from __future__ import annotations

import re

from ....contracts import Chunk, ParsedDocument
from ...document.text import Span, paragraphs, sentences
from ...language.lexicon import PARAMETER_LABELS
from ..findings import Finding, Quote

_IDENTIFIER = r"[A-Za-z_][\w.]*"
# "• count (int) – …", "Parameters: count (int, optional) -- …": the type is a word or two of code.
_PARAMETER = re.compile(
    rf"^(?:(?:{PARAMETER_LABELS})\s*:\s*|[•▪●◦‣∙·*]\s*)(?P<name>{_IDENTIFIER})\s*"
    r"\((?P<type>[\w.\[\]|]+(?:,?\s+[\w.\[\]|]+)?)\)\s*(?:--|[–—])\s+(?P<body>\S)",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(rf"^(?P<name>{_IDENTIFIER})(?:\s*\((?P<args>[^()\n]*)\))?$")


def _code_name(name: str) -> bool:
    """An identifier as code spells it: lower case first, or an underscore or dot in it."""
    return name[:1].islower() or "_" in name or "." in name


def _parameters(chunk: Chunk, paras: list[Span]) -> list[Finding]:
    text, findings = chunk.text, []
    for para in paras:
        m = _PARAMETER.match(para.of(text))
        if not m or not _code_name(m.group("name")):
            continue
        first = sentences(text, Span(para.start + m.start("body"), para.end))[0]
        if len(first.of(text).split()) < 2:
            continue
        name = m.group("name")
        findings.append(Finding(name, Quote(name, chunk), "api_reference", definition=Quote(first.of(text), chunk)))
    return findings


def _members(chunk: Chunk, paras: list[Span]) -> list[Finding]:
    text = chunk.text
    signatures = [(k, m) for k, para in enumerate(paras[:-1]) if (m := _SIGNATURE.match(para.of(text)))]
    if not any(m.group("args") is not None for _, m in signatures):
        return []
    findings = []
    for k, m in signatures:
        name, below = m.group("name"), paras[k + 1]
        said = below.of(text)
        if not (m.group("args") is not None or _code_name(name)) or not said[:1].isupper():
            continue
        if _PARAMETER.match(said) or _SIGNATURE.match(said):
            continue
        first = sentences(text, below)[0]
        if len(first.of(text).split()) < 3:
            continue
        findings.append(Finding(name, Quote(name, chunk), "api_reference", definition=Quote(first.of(text), chunk)))
    return findings


def read_api_reference(document: ParsedDocument) -> list[Finding]:
    findings = []
    for chunk in document.chunks:
        if chunk.kind != "text":
            continue
        paras = paragraphs(chunk.text)
        findings += _parameters(chunk, paras) + _members(chunk, paras)
    return findings
