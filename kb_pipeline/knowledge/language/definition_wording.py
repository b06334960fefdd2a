"""The closed classes a definition is stated with, per language (constructions.py reads them):
copulas, naming verbs, defining verbs, the words a class noun's restriction opens with, and the
pronouns a sentence points back with. Multi-word entries are token sequences as analysis.py cuts
them ("known as" → ("known", "as")). Open classes (what is a noun, where a phrase ends) come
from the sentence analysis, never from a list here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    """ "known as | referred to as" → (("known", "as"), ("referred", "to", "as"))."""
    return tuple(tuple(p.split()) for p in text.split("|") if p.strip())


@dataclass(frozen=True, eq=False)
class DefinitionWording:
    # "X is a Y …": the copula between a term and its class.
    copulas: tuple[tuple[str, ...], ...]
    # "Y is called X", "Y heißt X": the copula or auxiliary before a naming participle (may be
    # empty: the naming verb stands alone).
    naming_auxiliaries: tuple[tuple[str, ...], ...]
    # "called", "known as", "termed": after them stands the term, before them its definition.
    naming: tuple[tuple[str, ...], ...]
    # A verb-final language frames the term: "Y wird als X bezeichnet" (the frame's opening, and
    # the participles that close it).
    framed_naming: tuple[tuple[str, ...], ...]
    framed_naming_close: frozenset[str]
    # "X refers to / means / is defined as Y": before them the term, after them its definition.
    defining: tuple[tuple[str, ...], ...]
    # "On appelle X Y", "Unter X versteht man Y", "Per X si intende Y": the term follows these.
    inverted: tuple[tuple[str, ...], ...]
    # "…, which means / i.e." and the second half of "Unter X versteht man": between term and definition.
    inverted_links: tuple[tuple[str, ...], ...]
    # What a class noun's restriction opens with besides a preposition or participle: relative
    # pronouns and conjunctions ("a method that …", "ein Verfahren, das …").
    restrictions: frozenset[str]
    # "the term X", "der Begriff X": the words that only say X is a term.
    term_markers: frozenset[str]
    # Adjectives that evaluate rather than classify: "an effective means of …" says how good a
    # thing is, not what it is.
    evaluations: frozenset[str]
    # What opens a clause that a verb says (never a definition: "X means that …").
    complementizers: frozenset[str]
    # The endings of a verb form that also names a thing ("Downsizing is …", "dry running").
    gerund_endings: tuple[str, ...]
    # A verb-second language puts any adverb or object first ("Leider ist die …"): a lone word
    # before its copula is read as a term only when an indefinite article opens the class.
    verb_second: bool
    # The indefinite articles of an apposition that classifies ("grief, a response to …").
    indefinite_articles: frozenset[str]
    # "X consists of / is made up of Y": what a thing is made of, said of a term.
    composition: tuple[tuple[str, ...], ...]
    # "Scientists refer to Y as X": the verb before Y, the word between Y and X.
    naming_active: tuple[tuple[str, ...], ...]
    naming_active_link: str
    # The copulas of a plural subject, whose class noun may stand without an article ("Veins are
    # vessels that …").
    plural_copulas: tuple[tuple[str, ...], ...]
    # Negations (never a definition), "of" (a noun phrase goes on through it: "the measure of
    # randomness"), "or" (an alternative name set off by commas).
    negations: frozenset[str]
    of: frozenset[str]
    alternatives: frozenset[str]
    # A symbol's legend: "wobei X … bezeichnet", "où X est …", "Es sei X …", "soit X …". The
    # openers (English "where" is the formula readers'), the verb that follows the symbol, the
    # verb that ends a verb-final legend, and the openers of "let X be …".
    legend_openers: tuple[tuple[str, ...], ...]
    legend_verbs: tuple[tuple[str, ...], ...]
    legend_verbs_last: frozenset[str]
    let_openers: tuple[tuple[str, ...], ...]
    # Adjectives that point at another thing of a list or a text ("the last is …", "the former"):
    # a term made of them alone names nothing.
    pointing_adjectives: frozenset[str]
    # A subject that points back at what the sentence before said ("This process is called …").
    anaphora: frozenset[str]

    @cached_property
    def verb_words(self) -> frozenset[str]:
        """The first words of every verb a construction is read by: a term never holds one (a
        tagger may read "refers" as a noun; the construction's own words say it is none)."""
        phrases = (
            self.copulas + self.naming_auxiliaries + self.naming + self.defining + self.composition + self.framed_naming
        )
        return frozenset(p[0] for p in phrases)


WORDING: dict[str, DefinitionWording] = {
    "en": DefinitionWording(
        copulas=_phrases("is | are | was | were"),
        naming_auxiliaries=_phrases("is | are | was | were | is also | are also | is sometimes | are sometimes"),
        naming=_phrases("called | termed | named | known as | referred to as | designated as"),
        framed_naming=(),
        framed_naming_close=frozenset(),
        defining=_phrases(
            "refers to | refer to | means | denotes | denote | stands for | is defined as | are defined as"
            " | is the term for | are the terms for | is a term for | is a term used for | is used to describe"
            " | are used to describe"
        ),
        inverted=(),
        inverted_links=(),
        restrictions=frozenset("that which who whose whom where when in which by which through which".split()),
        term_markers=frozenset("term word phrase expression notion concept".split()),
        evaluations=frozenset(
            "effective important useful good great major key main simple easy common typical efficient powerful popular excellent essential critical crucial significant necessary better best ideal convenient valuable helpful interesting difficult hard".split()
        ),
        complementizers=frozenset("that".split()),
        gerund_endings=("ing",),
        verb_second=False,
        indefinite_articles=frozenset("a an".split()),
        composition=_phrases(
            "consists of | consist of | is made up of | are made up of | is composed of | are composed of | comprises | comprise"
        ),
        naming_active=_phrases("refer to | refers to | referred to"),
        naming_active_link="as",
        plural_copulas=_phrases("are"),
        negations=frozenset("not never no".split()),
        of=frozenset(["of"]),
        alternatives=frozenset(["or"]),
        legend_openers=(),
        legend_verbs=(),
        legend_verbs_last=frozenset(),
        let_openers=(),
        pointing_adjectives=frozenset(
            "last latter former first second third next previous following above below same other".split()
        ),
        anaphora=frozenset("this these that those it they such".split()),
    ),
    "de": DefinitionWording(
        copulas=_phrases("ist | sind"),
        naming_auxiliaries=_phrases("wird | werden | wird auch | werden auch"),
        naming=_phrases("heißt | heißen | nennt man | bezeichnet man als | genannt"),
        framed_naming=_phrases("wird als | werden als | wird auch als | werden auch als"),
        framed_naming_close=frozenset("bezeichnet genannt definiert".split()),
        defining=_phrases("bezeichnet | bedeutet | ist definiert als | wird definiert als | steht für"),
        inverted=_phrases("unter | als"),
        inverted_links=_phrases("versteht man | bezeichnet man | wird verstanden"),
        restrictions=frozenset("der die das welcher welche welches dessen deren bei dem bei der in dem".split()),
        term_markers=frozenset("begriff ausdruck wort".split()),
        evaluations=frozenset(
            "wichtig wichtige wichtiger wichtiges nützlich nützliche gut gute guter einfach einfache wesentlich wesentliche häufig häufige typisch typische effizient effiziente".split()
        ),
        complementizers=frozenset("dass".split()),
        gerund_endings=(),
        verb_second=True,
        indefinite_articles=frozenset("ein eine einer eines einem einen".split()),
        composition=_phrases("besteht aus | bestehen aus | setzt sich zusammen aus | setzen sich zusammen aus"),
        naming_active=(),
        naming_active_link="",
        plural_copulas=_phrases("sind"),
        negations=frozenset("nicht kein keine keinen keiner nie".split()),
        of=frozenset("von des der".split()),
        alternatives=frozenset(["oder"]),
        legend_openers=_phrases("wobei | wo | worin"),
        legend_verbs=_phrases("ist | sind | bezeichnet | steht für"),
        legend_verbs_last=frozenset("bezeichnet bezeichnen ist sind darstellt angibt beschreibt".split()),
        let_openers=_phrases("es sei | sei | seien"),
        pointing_adjectives=frozenset(
            "letzte letzter letztere erste erster zweite folgende obige gleiche andere".split()
        ),
        anaphora=frozenset("dies diese dieser dieses es sie".split()),
    ),
    "fr": DefinitionWording(
        copulas=_phrases("est | sont"),
        naming_auxiliaries=_phrases("est | sont | est aussi | sont aussi | est également | sont également"),
        naming=_phrases("appelé | appelée | appelés | appelées | dit | dite | dits | dites | nommé | nommée"),
        framed_naming=(),
        framed_naming_close=frozenset(),
        defining=_phrases("désigne | désignent | signifie | se définit comme | est défini comme | est définie comme"),
        inverted=_phrases("on appelle | on nomme | on entend par | on désigne par"),
        inverted_links=(),
        restrictions=frozenset("qui que dont où lequel laquelle lesquels lesquelles".split()),
        term_markers=frozenset("terme mot notion expression concept".split()),
        evaluations=frozenset(
            "important importante efficace utile bon bonne simple facile fréquent fréquente essentiel essentielle majeur majeure principal principale".split()
        ),
        complementizers=frozenset("que qu'".split()),
        gerund_endings=(),
        verb_second=False,
        indefinite_articles=frozenset("un une".split()),
        composition=_phrases(
            "se compose de | se composent de | est constitué de | est constituée de | sont constitués de | consiste en"
        ),
        naming_active=(),
        naming_active_link="",
        plural_copulas=_phrases("sont"),
        negations=frozenset("ne n' pas jamais".split()),
        of=frozenset("de du des d'".split()),
        alternatives=frozenset(["ou"]),
        legend_openers=_phrases("où"),
        legend_verbs=_phrases("est | sont | désigne | représente"),
        legend_verbs_last=frozenset(),
        let_openers=_phrases("soit | soient"),
        pointing_adjectives=frozenset(
            "dernier dernière premier première second seconde suivant suivante même autre".split()
        ),
        anaphora=frozenset("ce cela ceci il elle ils elles".split()),
    ),
    "es": DefinitionWording(
        copulas=_phrases("es | son"),
        naming_auxiliaries=_phrases("se | es | son | también se"),
        naming=_phrases(
            "llama | llaman | denomina | denominan | conoce como | conocen como | llamado | llamada | denominado | denominada"
        ),
        framed_naming=(),
        framed_naming_close=frozenset(),
        defining=_phrases("significa | designa | se define como | se refiere a | se entiende como"),
        inverted=_phrases("se entiende por | se denomina | se llama"),
        inverted_links=(),
        restrictions=frozenset("que cual cuales cuyo cuya donde quien".split()),
        term_markers=frozenset("término palabra noción concepto expresión".split()),
        evaluations=frozenset(
            "importante eficaz útil bueno buena sencillo sencilla fácil frecuente esencial principal".split()
        ),
        complementizers=frozenset("que".split()),
        gerund_endings=(),
        verb_second=False,
        indefinite_articles=frozenset("un una".split()),
        composition=_phrases(
            "se compone de | se componen de | consiste en | consisten en | está formado por | está formada por"
        ),
        naming_active=(),
        naming_active_link="",
        plural_copulas=_phrases("son"),
        negations=frozenset("no nunca".split()),
        of=frozenset("de del".split()),
        alternatives=frozenset(["o"]),
        legend_openers=_phrases("donde"),
        legend_verbs=_phrases("es | son | denota | representa"),
        legend_verbs_last=frozenset(),
        let_openers=_phrases("sea | sean"),
        pointing_adjectives=frozenset(
            "último última primero primera segundo segunda siguiente mismo misma otro otra".split()
        ),
        anaphora=frozenset("esto este esta estos estas ello".split()),
    ),
    "it": DefinitionWording(
        copulas=_phrases("è | sono"),
        naming_auxiliaries=_phrases("si | è | sono | viene | vengono"),
        naming=_phrases("chiama | chiamano | chiamato | chiamata | detto | detta | denomina | denominato | denominata"),
        framed_naming=(),
        framed_naming_close=frozenset(),
        defining=_phrases("indica | significa | designa | si definisce come | si intende"),
        inverted=_phrases("si intende per | per"),
        inverted_links=_phrases("si intende | s' intende"),
        restrictions=frozenset("che cui quale quali dove".split()),
        term_markers=frozenset("termine parola nozione concetto espressione".split()),
        evaluations=frozenset(
            "importante efficace utile buono buona semplice facile frequente essenziale principale".split()
        ),
        complementizers=frozenset("che".split()),
        gerund_endings=(),
        verb_second=False,
        indefinite_articles=frozenset("un uno una un'".split()),
        composition=_phrases("è costituito da | è costituita da | sono costituiti da | consiste in | si compone di"),
        naming_active=(),
        naming_active_link="",
        plural_copulas=_phrases("sono"),
        negations=frozenset("non mai".split()),
        of=frozenset("di del della dei degli delle dello".split()),
        alternatives=frozenset(["o", "oppure"]),
        legend_openers=_phrases("dove"),
        legend_verbs=_phrases("è | sono | indica | rappresenta"),
        legend_verbs_last=frozenset(),
        let_openers=_phrases("sia | siano"),
        pointing_adjectives=frozenset(
            "ultimo ultima primo prima secondo seconda seguente stesso stessa altro altra".split()
        ),
        anaphora=frozenset("questo questa questi queste ciò".split()),
    ),
}
