"""The active glossary as TBX (ISO 30042:2019, the TBX-Basic dialect, DCA style), the format
terminology tools import: one `conceptEntry` per approved term; the term and its full form as
two `termSec` of one `langSec` (termType abbreviation / fullForm); the approved definition with
its source (document and page); the decision as the term's administrativeStatus and a
transaction (who, when, whether edited).

The payloads do not say a document's language, so `langSec` carries the language given
(`und`, "undetermined", by default): a person who knows it says it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..knowledge.payloads.contracts import GlossaryEntry
from .corpus import Corpus
from .export import ActiveEntry, current_terms, source_reference
from .xml_text import xml_illegal

NAMESPACE = "urn:iso:std:iso:30042:ed-2"
# The schema of the TBX-Basic 1.0 release, pinned: it declares ISO 30042:2019's namespace, which
# the export writes (the repository's newer files moved to "urn:iso:std:iso:30042:ed:3.0").
SCHEMA = (
    "https://raw.githubusercontent.com/LTAC-Global/TBX-Basic_dialect/6d29eb584c4bbb83e2039997486a5a18566b21fa/"
    "docs/TBX-Basic_dialect_1.0/DCA/TBXcoreStructV03_TBX-Basic_integrated.rng"
)
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# TBX-Basic's picklist: an approved entry is the preferred term; a source since changed is only admitted.
PREFERRED, ADMITTED = "preferredTerm-admn-sts", "admittedTerm-admn-sts"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    # ElementTree writes any character; one XML cannot hold would make the file unreadable.
    where = xml_illegal(text or "") or next(filter(None, map(xml_illegal, attributes.values())), None)
    if where:
        raise ValueError(f"{tag}: {where} is not a character XML can hold: no TBX written")
    element = ET.SubElement(parent, tag, attributes)
    element.text = text
    return element


def _term(lang_sec: ET.Element, term: str, term_type: str | None, status: str) -> None:
    term_sec = _sub(lang_sec, "termSec")
    _sub(term_sec, "term", term)
    if term_type:
        _sub(term_sec, "termNote", term_type, type="termType")
    _sub(term_sec, "termNote", status, type="administrativeStatus")


def to_tbx(entries: list[ActiveEntry], corpus: Corpus, language: str = "und") -> str:
    """The TBX document (UTF-8 text, with its XML declaration). TBX-Basic's body holds at least
    one conceptEntry: no entries, no document (ValueError), as for an ill-formed text."""
    if not entries:
        raise ValueError("no approved term: TBX-Basic needs at least one conceptEntry")
    root = ET.Element("tbx", {"type": "TBX-Basic", "style": "dca", XML_LANG: language, "xmlns": NAMESPACE})
    header = _sub(root, "tbxHeader")
    _sub(_sub(_sub(header, "fileDesc"), "sourceDesc"), "p", "kb-pipeline review desk: the approved glossary")
    body = _sub(_sub(root, "text"), "body")
    terms = current_terms(corpus)
    for entry in entries:
        try:
            _concept(body, entry, terms.get(entry.term_id), language)
        except ValueError as e:
            raise ValueError(f"{entry.term_id} ({entry.term}): {e}") from e
    ET.indent(root)
    declaration = f'<?xml version="1.0" encoding="UTF-8"?>\n<?xml-model href="{SCHEMA}" type="application/xml" ' + (
        'schematypens="http://relaxng.org/ns/structure/1.0"?>\n'
    )
    return declaration + ET.tostring(root, encoding="unicode") + "\n"


def _concept(body: ET.Element, entry: ActiveEntry, glossary: GlossaryEntry | None, language: str) -> None:
    concept = _sub(body, "conceptEntry", id=entry.term_id)
    # The core structure's order: a concept's own information before its langSec.
    transaction = _sub(concept, "transacGrp")
    _sub(transaction, "transac", "modification" if entry.edited else "origination", type="transactionType")
    _sub(transaction, "date", entry.decided_at[:10])
    _sub(transaction, "transacNote", entry.reviewer, type="responsibility")
    lang_sec = _sub(concept, "langSec", **{XML_LANG: language})
    if entry.definition:
        group = _sub(lang_sec, "descripGrp")
        _sub(group, "descrip", entry.definition, type="definition")
        _sub(group, "admin", source_reference(entry, glossary), type="source")
    status = ADMITTED if entry.source_changed or entry.orphaned else PREFERRED
    full_name = glossary.full_name if glossary else None
    _term(lang_sec, entry.term, "abbreviation" if full_name else None, status)
    if full_name:
        _term(lang_sec, full_name, "fullForm", status)
