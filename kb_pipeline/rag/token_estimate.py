"""Token estimate used for every size limit in the packager.

No tokenizer is a dependency, so tokens are estimated from characters:
- a wide character (CJK ideograph, kana, hangul, full-width form) counts as one token,
  because common BPE tokenizers spend at least one token on each;
- every other character counts as a quarter token (about 4 characters per token in
  English prose), rounded up.

The estimate guarantees ``len(text) <= CHARS_PER_TOKEN * estimate_tokens(text)``,
so a chunk within ``HARD_CAP_TOKENS`` is never longer than 3600 characters.
"""

from __future__ import annotations

import math
import re
import unicodedata

TARGET_MIN_TOKENS = 300
TARGET_MAX_TOKENS = 700
HARD_CAP_TOKENS = 900
CHARS_PER_TOKEN = 4

ESTIMATE_DESCRIPTION = "tokens = wide (CJK/full-width) characters + ceil(other characters / 4)"


# No code point below U+0378 is wide: only those from there on are looked up (the lookup per
# character is the packager's main cost on a long document).
_MAYBE_WIDE = re.compile("[^\x00-\u0377]")


def estimate_tokens(text: str) -> int:
    wide = sum(1 for char in _MAYBE_WIDE.findall(text) if unicodedata.east_asian_width(char) in ("W", "F"))
    return wide + math.ceil((len(text) - wide) / CHARS_PER_TOKEN)
