"""Sections that only index the document and pollute retrieval when packaged.

Once such a title is seen, every content block is skipped until the next title.
"""

from __future__ import annotations

import re

from .text_cleaning import clean_section_title

LOW_VALUE_SECTION_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"^(table of )?contents$",
        r"^list of (figures|tables)$",
        r"^rev\.\s*\w+",  # "Rev. A", "Rev. 1.2"
        r"^(revision|document|change)\s*history$",
        r"^目\s*录$",
    )
)


def is_low_value_section(title: str) -> bool:
    clean = clean_section_title(title)
    return any(pattern.match(clean) for pattern in LOW_VALUE_SECTION_PATTERNS)
