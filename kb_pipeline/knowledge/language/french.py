"""French: the words and wording of every class the readers match (lexicon.py
says what each class is for)."""

from .forms import ADVERB, APOSTROPHE

CODE = "fr"
DEFINITE_ARTICLES = ("le", "la", "les")
INDEFINITE_ARTICLES = ("un", "une")
# French elides "le"/"la" before a vowel: "l'eau", "l’usine".
ELIDED_ARTICLE = r"l['’]"
DETERMINERS = ("des", "du", "de")
COPULAS = ("est", "sont")
BARE_COPULAS = ()
MODALS = ("doit", "doivent", "peut", "peuvent", "sera", "seront", "était", "ont")
PRONOUNS = ("il", "elle", "ils", "elles", "cela", "ceci", "ce", "cette", "ces", "on", "nous")
AUTHORS = ("nous",)
NEGATIONS = ("pas", "ne")
FUNCTION_WORDS = """le la les l un une des du de d et ou où en au aux par pour sur dans avec sans est sont été être que
    qui dont ce cet cette ces se sa son ses leur leurs il elle ils elles nous vous on ne pas plus comme""".split()
DOCUMENT_PARTS = ("tableau",)
KIND_NOUNS = """symbole symboles variable variables paramètre paramètres coefficient coefficients constante constantes
    attribut attributs argument arguments valeur valeurs indice indices terme termes facteur facteurs
    grandeur""".split()
INSTRUCTION_VERBS = ()
DEFINING_VERBS = r"(?:est|sont) d[ée]fini(?:e|s|es)? comme|d[ée]signe(?:nt)?|signifie(?:nt)?"
DISCOURSE_MARKERS = (
    r"Ainsi|Par\s+exemple|En\s+outre|De\s+plus|Cependant|Toutefois|Enfin|Ensuite|Pour\s+ce\s+faire|Pour\s+cela"
)
CONDITION_OPENERS = (
    r"Si|S['’]il|Lorsque|Lorsqu['’]|Quand|Dès\s+que"
    r"|En\s+cas\s+d|Dans\s+le\s+cas|Sauf\s+si|À\s+moins|Pour|Avant|Après|Pendant|Lors\s+d"
)
AS_NEEDED = r"^(?:si|lorsque)\s+(?:nécessaire|besoin|possible)"
EACH_SCOPES = r"Pour\s+(?:chaque|chacune?\s+des)"
PROVISOS = r"^(?:à\s+condition\s+qu|pourvu\s+qu|sous\s+réserve\s+qu)"
TRAILING_CONDITIONS = (
    r"sauf\s+si|à\s+moins\s+qu|si|s['’]il|lorsque|lorsqu['’]|quand|en\s+cas\s+d|dans\s+le\s+cas\s+où"
    r"|pour\s+(?:les|tous|toutes|chaque)"
    r"|jusqu['’]à\s+ce\s+qu(?:e|['’])|à\s+condition\s+qu(?:e|['’])|pourvu\s+qu(?:e|['’])|sous\s+réserve\s+qu(?:e|['’])"
)

OPEN_MODALS = r"devrai(?:t|ent)|peu(?:t|vent)"
SUBORDINATORS = r"si"
RULE_NOUNS = r"règles?|exigences?|recommandations?|consignes?|étapes"
OUTCOME_VERBS = r"renvoie|retourne|vaut|se\s+réduit\s+à|devient|est\s+(?:de|égale?\s+à)\s+\d"
ABSOLUTE_OUTCOMES = r"\b(?:renvoie|renvoient|retourne|retournent|vaut|valent)\s+(?:toujours|jamais)\b"
FORMULA_NOUNS = r"formule|équation|relation"
FOLLOWING = r"suivante"
FORMULA_OF = r"de|du|des"
FORMULA_LEAD_INS = (
    r"(?:est|sont)\s+(?:donn|calcul|défini|exprim|obtenu|détermin)\w*(?:\s+(?:par|comme|selon|avec|à partir de))?"
    r"|se\s+(?:calcule|définit|détermine|exprime|obtient)(?:\s+(?:par|comme|selon|avec|à partir de))?|s'écrit"
)
LEGEND_VERBS = r"est|sont|désigne|représente"
LEGEND_OPENERS = r"où"
WITH = r"avec"
SYMBOL_DEFINING_VERBS = r"désigne|représente|est\s+défini(?:e)?\s+(?:comme|par)"
SYMBOL_READING_VERBS = r"(?:alors\s+)?(?:donne|décrit|mesure|exprime|quantifie)"
CONJUNCTIONS = r"et"
DISJUNCTIONS = r"ou"
PARAMETER_LABELS = r"paramètres?|arguments?"

# "peut être" + participle: a permission, with the exclusions of English "may be".
_NOT_DONE = (
    r"dû|due?s?|vue?s?|perçue?s?|connue?s?|réduite?s?|compromise?s?|(?:caus|expliqu|attribu|li|associ|corrél"
    r"|attend|trouv|constat|observ|consid[ée]r|regard|estim|jug|affect|influenc|endommag|perd|expos|infect"
    r"|contamin|alt[ée]r|modifi|limit|retard|augment|diminu|nécessit|requ|exig)\w*"
)
_PERMISSION = (
    r"(?<!\bqui\s)\bpeu(?:t|vent)\s+(?:également\s+|aussi\s+)?être\s+"
    rf"(?!(?:{_NOT_DONE}|celui|ceci|ici|parmi|ainsi|lui)(?![\w'’]))"
    r"(?:[a-zà-ÿ]{2,}(?:ée?s?|ie?s?|ue?s?)|[a-zà-ÿ]*(?:mi|pri|fai|ouver|offer|cri)(?:t|s)e?s?)(?![\w'’])"
)
RULE_WORDING = (
    r"\bdoi(?:t|vent|vra|vront)\b",
    r"\bil\s+faut\b",
    rf"\bil\s+convient\s+d(?:e\b|{APOSTROPHE})",
    rf"\bil\s+(?:est|sera)\s+{ADVERB}(?:recommandé|conseillé|nécessaire|indispensable|important|essentiel"
    rf"|obligatoire|interdit|impératif|préférable|déconseillé)\s+(?:de\b|d{APOSTROPHE}|que\b)",
    rf"\b(?:est|sont)\s+{ADVERB}(?:obligatoires?|interdite?s?|recommandée?s?|exigée?s?|requise?s?"
    r"|prescrite?s?|proscrite?s?|autorisée?s?|déconseillée?s?)\b",
    r"\b(?:est|sont)\s+à\s+\w+(?:er|ir|re)\b",
    r"\bnous\s+recommandons\b",
    r"\b(?:est|sont)\s+tenue?s?\s+de\b",
    _PERMISSION,
    # "La loi impose aux exploitants de déclarer …", "oblige les communes à publier …": the
    # verbs of obligation with their object and infinitive (not "L'objectif est de …").
    rf"\bimpos(?:e|ent|ait|aient|era|eront)\s+(?:à|aux)\b[^.;:]{{0,120}}?\bd(?:e\s+|{APOSTROPHE})\w+(?:er|ir|re)\b",
    r"\boblig(?:e|ent|eait|eaient|era|eront)\s+(?:les?|la|l['’]|aux?)\b[^.;:]{0,120}?\bà\s+\w+(?:er|ir|re)\b",
    # Une cible : le chiffre d'un objectif ("L'objectif … est de 40 %"), un texte qui fixe des
    # objectifs ou des règles, une visée et son horizon ("vise à … d'ici 2040", "est visée en 2028").
    r"\bobjectifs?\b[^.;:]{0,120}?\b(?:est|sont)\s+(?:de\s+|fixée?s?\s+à\s+)?\d",
    rf"\b(?:fixe|fixent|a\s+fixé|ont\s+fixé|fixera|fixeront)\s+(?:les?|la|l{APOSTROPHE}|des|de|du|une?|ses|leurs?)\s*"
    r"(?:\w+\s+)?(?:objectifs?|règles?|seuils?|plafonds?|limites?)\b",
    rf"\b(?:vise|visent)\s+à\b[^.;:]{{0,160}}?(?:à\s+l{APOSTROPHE}horizon|d{APOSTROPHE}ici(?:\s+à)?)\s+\d{{4}}\b"
    rf"|\b(?:est|sont)\s+visée?s?\s+(?:en|pour|à\s+l{APOSTROPHE}horizon|d{APOSTROPHE}ici)\s+\d{{4}}\b",
)
# What a method section does to its data, as participles ("filtré", "retenu").
_METHOD_STEPS = (
    r"extrait|choisi|sélectionné|utilisé|appliqué|effectué|réalisé|construit|analysé|testé|ajusté|filtré"
    r"|échantillonné|exclu|retenu|agrégé|interpolé|lissé|normalisé|comparé"
)
# What a value compared with a threshold is classed as ("A TA > 16 mmol/L is considered high").
CLASSIFYING_VERBS = r"(?:est|sont)\s+(?:considérée?s?|classée?s?)\s+comme"

CALCULATION_WORDING = (
    rf"\b(?:est|sont|a\s+été|ont\s+été)\s+{ADVERB}(?:calculée?s?|exprimée?s?|arrondie?s?|obtenue?s?|estimée?s?|déterminée?s?"
    r"|mesurée?s?|modélisée?s?|négligée?s?)\s+(?:à\s+partir|en|par|selon|comme|sur\s+la\s+base|avec"
    r"|en\s+fonction)\b",
    r"\bse\s+calculent?\b|\bon\s+calcule\b|\b(?:est|sont)\s+pris(?:e|es)?\s+en\s+compte\b",
    r"\bhypothèse\b[^.;:]{0,80}?\b(?:est|était)\s+qu(?:e\b|['’])",
    # A step of a method section, in the past passive or by the authors ("Les séries ont été
    # filtrées par …", "nous avons retenu …").
    rf"\b(?:a|ont)\s+été\s+{ADVERB}(?:{_METHOD_STEPS})(?:e|s|es)?\s+(?:à\s+partir|pour|par|sur|comme|selon|avec|en"
    r"|dans|afin)\b",
    rf"\bnous\s+avons\s+{ADVERB}(?:{_METHOD_STEPS})\b",
    # La transformation des données d'une méthode, au présent ("les valeurs sont remplacées par …").
    rf"\b(?<!\bqui\s)(?:est|sont)\s+{ADVERB}(?:remplacé|extrait|écarté|rééchantillonné|interpolé|tronqué|permuté)(?:e|s|es)?"
    r"\s+(?:par|à\s+partir|de|le\s+long|dans|en)\b",
)
CALCULATION_WORDS = r"calculée?s?|arrondie?s?"

CONDITIONALS = r"Si|Lorsque|Sinon"
ALTERNATIVES = r"sinon"
COPYRIGHT = r"droits?\s+d['’]auteur"
LICENSING = ""
THE_WORK = r"\bcette\s+(?:publication|œuvre)"

# An instruction (imperatives.py): an infinitive before its object's determiner ("Vérifier le
# joint"); words with an infinitive's ending that are none; what makes the clause finite (a form
# of être, avoir or a modal, a subject pronoun: then the first word is a noun, "Nombre des sites a
# augmenté"); and what opens a subordinate clause, whose finite verb is its own.
INSTRUCTION_OBJECTS = (
    r"le|la|les|l['’]|un|une|des|du|ce|cet|cette|ces|son|sa|ses|leur|leurs|tout|tous|toute|toutes|chaque"
    r"|régulièrement|systématiquement"
)
NOT_INFINITIVES = ("entre", "contre", "outre", "notre", "votre", "autre")
FINITE_FORMS = (
    r"est|sont|était|étaient|sera|seront|serait|seraient|fut|furent|a|ont|avait|avaient|aura|auront|aurait"
    r"|auraient|peut|peuvent|pourra|pourront|pourrait|doit|doivent|devra|devront|devrait|va|vont|fait|font"
    r"|il|elle|ils|elles|on|je|nous"
)
SUBORDINATE_CLAUSE = (
    r"\b(?:que|qui|dont|où|si|lorsque|quand|car|puisque|comme|afin)(?![\w'’])|\b(?:qu|lorsqu)['’]|\bs['’](?=ils?\b)"
)

# Relative pronouns: ", which relates …" opens a clause about a noun, not the noun itself (a
# legend's meaning ends before it).
RELATIVE_PRONOUNS = r"qui|dont|lequel|laquelle|lesquels|lesquelles"
# What a mark in a table's note stands for: "P indicates that …" (a legend under a table).
MARK_VERBS = r"indique(?:\s+que)?|représente"

# The label of a revision or version line printed under a title ("Revision C", "Version 3.2").
VERSION_LABELS = r"révision|version|édition"

# Definitions (definition_sentences.py, definitions.py; english.py says what each class is).
HEDGES = ()
INDEFINITE_COPULAS = ("est",)
ONE_OF = ()
INVERTED_DEFINITIONS = (r"^On entend par\s+(?P<subject>[^,:\n]{2,80}?)\s*[,:]\s*(?P<rest>\S)",)
NOTE_LABELS = ("note", "exemple")
ENTRY_NOTES = r"Note \d+ à l['’]article|NOTE \d|EXEMPLE\b"

# What a document names its own parts and itself with (english.py says what each class is).
GLOSSARY_HEADINGS = r"glossaire|d[ée]finitions"
LIST_HEADINGS = r"abr[ée]viation|sigles"
PURPOSE_HEADINGS = r"\b(?:r[ée]sum[ée]|objet)"
SELF_PREPOSITIONS = ("dans",)
SELF_DETERMINERS = ("ce", "cet", "cette", "ces", "le présent", "la présente", "les présentes")
DOCUMENT_NOUNS = ("rapport", "manuel", "étude", "norme")
POSTPOSED_DEMONSTRATIVES = ()
AIM_DETERMINERS = ("l'", "l’", "le", "son", "sa")
AIM_QUALIFIERS = ()
AIM_NOUNS = ("objet", "objectif", "but")
AIM_COPULAS = ("est", "sont")
BARE_AIM_NOUNS = ()
BARE_AIM_COPULAS = ()
SELF_REFERENCES = ""

RESTATEMENT_MARKERS = r"c['’]est-à-dire"
THE_TERM = r"le terme"
ASIDE_LABELS = r"remarque|etape"

FORMULA_ARTICLES = ("la",)
BIBLIOGRAPHY_HEADINGS = r"références|bibliographie"

PLAIN_CONJUNCTIONS = ("et",)
PLAIN_DISJUNCTIONS = ("ou",)

DEFINITION_LABELS = r"Définition"
TERM_DEFINING_VERBS = r"d[ée]signe|est d[ée]fini(?:e)? comme"
UNIT_PREPOSITIONS = r"en"
IF_THEN_OPENERS = r"Si"
BARE_THEN_WORDS = r"alors"

# An instruction (imperatives.py): the endings of an infinitive or of the imperative in -ez
# ("Vérifier le joint", "Vérifiez …"), and the negation before an infinitive ("Ne pas ouvrir").
INSTRUCTION_ENDINGS = r"er|ir|re|ez"
NEGATED_INFINITIVE = r"Ne\s+pas\s+"

MEANING_COLUMN_HEADINGS = r"signification|sens\b"
NOT_TERM_COLUMN_HEADINGS = r"sigle|abr[ée]v"

# Classes this language has no words in yet (english.py says what each is).
THEN_WORDS = ""
IMPLICATION_VERBS = ""
WHETHER_CONJUNCTIONS = ()
ASKING_WORDS = ""
REPORTING_VERBS = ""
POINTERS = ""
RESULT_CLAUSES = ""
GENERIC_HEADS = ()
POSSIBILITY_MODALS = ""
REASONING_MODALS = ()
FUTURE_MODALS = ()
FIRST_PERSON = ""
MECHANICS_MODALS = ()
NON_TERM_SUBJECTS = ()
NOT_DEFINING_WORDS = ""
SET_PHRASE_OPENERS = ""
DEFINITION_DETERMINERS = ()
PROSE_OPENERS = ()
WORKED_EXAMPLES = ""
