"""An instruction: a statement that opens with a verb telling the reader what to do ("Check the
seal for leaks …", "Vérifier le joint", "Prüfen Sie die Dichtung", "Verificar el sello",
"Periksa segel …"), as manuals, procedures and recommendation lists write them.

English needs a lexicon (its base-form verbs are also nouns: "Check valves are …", so a noun
reading is ruled out by what follows); the other languages mark the form itself (an infinitive
or imperative ending before an article, "Sie" after the verb, an Indonesian -kan verb).
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# Verbs a procedure, checklist or recommendation opens with. Not "Note", "See", "Consider",
# "Let", "Suppose", "Assume": they point at or set up an argument, they instruct nothing.
_ENGLISH_VERBS = frozenset(
    """
    adjust align allow apply assess assign attach audit avoid back calculate calibrate change charge check
    choose classify clean click close collect conduct configure confirm connect contact convert copy
    deactivate define delete deliver deny determine differentiate disable disconnect discard dispose
    document download drain empty enable encrypt ensure enter establish estimate evaluate
    examine fill fit flush follow grant grease hold identify implement include incorporate inform insert
    inspect install isolate keep label limit lock log look lower lubricate maintain make mark measure
    monitor mount move multiply notify obtain offer open perform place plan position press prevent
    protect provide pull purge push raise read record refill reboot register release remove repair
    repeat replace report reset restart restrict retain return review rotate round run sanitize save
    scan secure select send separate set sign specify start stop store submit switch tag take test
    tighten track train treat turn type unlock update upload use validate verify wait wear write
    """.split()
)
# What cannot follow an imperative verb but follows a noun that looks like one ("Test results
# are …", "Use of …", "Change in …", "Record keeping is …").
_NOUN_READING = re.compile(
    r"^(?:\S+\s+){0,2}?(?:is|are|was|were|has|have|had|can|could|will|would|may|might|must|should|shall)\b"
    r"|^(?:of|in|and\s+\w+s)\b|^['’]s\b",
    _I,
)
_LABEL = re.compile(r"^\S+:")
_OBJECT = re.compile(r"[\"'“‘«(\[]*[^\W_]")
_FRENCH_ARTICLE = r"(?:le|la|les|l['’]|un|une|des|du|ce|cet|cette|ces|son|sa|ses|leur|leurs|tout|tous|toute|toutes|chaque|régulièrement|systématiquement)"
_FRENCH = re.compile(rf"^(?:Ne\s+pas\s+)?[A-ZÀ-Ý][a-zà-ÿ]+(?:er|ir|re|ez)\s+{_FRENCH_ARTICLE}(?=\s|\w)")
_FRENCH_NOT_VERBS = frozenset(
    "entre contre notre votre autre outre premier dernier hier cahier quartier chiffre".split()
)
_SPANISH = re.compile(r"^[A-ZÁÉÍÓÚ][a-záéíóúñ]+(?:ar|er|ir)\s+(?:el|la|los|las|un|una|su|sus|todos?|todas?|cada|al)\s")
_GERMAN = re.compile(r"^[A-ZÄÖÜ][a-zäöüß]+(?:en|ern|eln)\s+Sie\b")
# A German instruction item ends with its infinitive ("Dichtung auf Lecks prüfen."); German
# capitalises nouns, so a lower-case -en word last is a verb. Only in a German sentence.
_GERMAN_INFINITIVE_LAST = re.compile(r"\s[a-zäöüß]+(?:en|ern|eln)[.!]?$")
_GERMAN_WORDS = re.compile(r"\b(?:der|die|das|den|dem|des|und|mit|auf|für|bei|nach|vor|alle)\b")
_INDONESIAN_VERBS = frozenset(
    "periksa ganti catat isi ukur hitung buka tutup pasang jangan hindari ikuti baca simpan cek lepas pastikan"
    " perhatikan bersihkan tekan".split()
)
# "Pastikan", "Gunakan": a -kan verb of six letters or more ("Akan", "Bukan" are no verbs).
_INDONESIAN_KAN = re.compile(r"^[A-Z][a-z]{2,}kan$")
_INDONESIAN_NOT_VERBS = re.compile(r"^(?:Ber|Di|Ter|Me|Pe|Ke|Se)[a-z]+$|^(?:Berdasarkan|Dikarenakan)$")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def imperative_at(text: str, start: int, *, item: bool = False) -> bool:
    """Whether `text` states an instruction from `start` on (after any list marker, connective or
    condition). `item`: the text is a list item, where German writes its infinitive last."""
    head = text[start:]
    first = _WORD.match(head)
    if not first:
        return False
    word = first.group(0)
    rest = head[first.end() :].lstrip()
    lowered = word.casefold()
    if lowered in ("never", "always", "don't", "do"):
        return bool(re.match(r"not\s+[a-z]" if lowered == "do" else r"[a-z]", rest))
    # Not "RETURN CASE": a line of code or a label in capitals.
    if lowered in _ENGLISH_VERBS and (start > 0 or word[0].isupper()) and not word[1:].isupper():
        # An object follows ("Document.save", "Return type: bool" are names and labels).
        return bool(_OBJECT.match(rest)) and not _NOUN_READING.match(rest) and not _LABEL.match(rest)
    capitalised = head[:1].upper() + head[1:]
    if (m := _FRENCH.match(capitalised)) and word.casefold() not in _FRENCH_NOT_VERBS:
        return bool(m)
    if _SPANISH.match(capitalised) or _GERMAN.match(head):
        return True
    if word.casefold() in _INDONESIAN_VERBS:
        return bool(rest) and rest[0].islower()
    if _INDONESIAN_KAN.match(word) and not _INDONESIAN_NOT_VERBS.match(word):
        return bool(rest) and rest[0].islower()
    return item and bool(_GERMAN_INFINITIVE_LAST.search(head.rstrip())) and bool(_GERMAN_WORDS.search(head))
