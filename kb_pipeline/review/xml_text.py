"""Characters XML 1.0 cannot hold (the C0 controls but tab, newline and carriage return; the
surrogates; U+FFFE and U+FFFF): not even as a character reference, so a TBX or SKOS file holding
one does not parse. The desk refuses them on input and the TBX writer refuses to write them."""

from __future__ import annotations

import re

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_illegal(text: str) -> str | None:
    """Where `text`'s first XML-illegal character is, in words ("U+0007 at character 12",
    1-based); None when it has none."""
    found = _ILLEGAL.search(text)
    return f"U+{ord(found.group()):04X} at character {found.start() + 1}" if found else None
