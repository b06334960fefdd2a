"""`ParsedDocument.source_title`: the document's own title, not its file name.

In order:
1. the PDF's metadata Title, when it is meaningful — not empty, not what a tool filled in
   ("Microsoft Word - report.doc", "untitled", "Slide 1"), not a file name or path, not an id
   (a number, a DOI, a single token with digits such as "ED-2013-018");
2. else the first title item of MinerU's content list, verbatim (its raw v2 spans);
3. else the source file's stem.
Surrounding white space is trimmed; nothing else is changed.
"""

from __future__ import annotations

import re
from pathlib import Path

from .normalise.item_text import spans_text
from .parsing.raw_output import RawOutput

_TOOL_PREFIX = re.compile(r"^\s*microsoft\s+(?:word|powerpoint|excel|office\s+\w+)\s*-", re.IGNORECASE)
_PLACEHOLDER = re.compile(
    r"^(?:untitled(?:\s+document)?|no\s+title|title|none|null|n/?a|unknown|default|"
    r"(?:document|doc|slide|layout|presentation|book|page|template|powerpoint\s+presentation)\s*\d*)$",
    re.IGNORECASE,
)
_FILE_NAME = re.compile(
    r"\.(?:pdf|docx?|dotx?|rtf|odt|tex|txt|indd|qxd|qxp|ps|eps|dvi|pptx?|xlsx?|html?|md|pages|wpd)$", re.IGNORECASE
)
_PATH = re.compile(r"^(?:[a-z]:[\\/]|/|~/)|\\", re.IGNORECASE)
_ID = re.compile(r"^(?:doi:|urn:|isbn|issn|arxiv:|https?://|www\.)|^10\.\d{4,}/", re.IGNORECASE)
_LETTER_RUN = re.compile(r"[^\W\d_]{2,}")


def is_meaningful_title(title: str | None) -> bool:
    """Whether a metadata Title names the document rather than a file, a tool or an id."""
    value = (title or "").strip()
    if not value or any(p.search(value) for p in (_TOOL_PREFIX, _PLACEHOLDER, _FILE_NAME, _PATH, _ID)):
        return False
    if sum(ch.isalpha() for ch in value) < 3 or not _LETTER_RUN.search(value):
        return False  # numbers, codes, punctuation
    if " " not in value and (any(ch.isdigit() for ch in value) or "_" in value):
        return False  # one token with digits or underscores: an id or a file name ("us-018", "22_12_20_PV")
    return True


def pdf_metadata_title(pdf: Path) -> str | None:
    """The Title of the PDF's document information dictionary, or None when unreadable."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(str(pdf))
    except pypdfium2.PdfiumError:
        return None
    try:
        return document.get_metadata_dict().get("Title")
    finally:
        document.close()


def first_title_item(raw: RawOutput) -> str | None:
    """The first title item MinerU found (a content_list "text" with a text_level) that has a
    letter, verbatim from its raw spans."""
    for item, item_v2 in zip(raw.items, raw.items_v2):
        if item["type"] != "text" or not item.get("text_level"):
            continue
        content = item_v2.get("content")
        text = spans_text(content.get("title_content")) if isinstance(content, dict) else ""
        text = (text or item.get("text") or "").strip()
        if any(ch.isalpha() for ch in text):
            return text
    return None


def choose_source_title(metadata_title: str | None, first_title: str | None, file_stem: str) -> str:
    if metadata_title is not None and is_meaningful_title(metadata_title):
        return metadata_title.strip()
    return first_title or file_stem


def source_title(pdf: Path, raw: RawOutput, source_path: Path) -> str:
    """`pdf` is the file whose metadata is read (the copy MinerU parsed); `source_path` the
    original, whose stem is the last resort."""
    return choose_source_title(pdf_metadata_title(pdf), first_title_item(raw), source_path.stem)
