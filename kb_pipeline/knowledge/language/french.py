"""French: its closed word classes (see lexicon.py for what each class is for)."""

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
TRAILING_CONDITIONS = (
    r"sauf\s+si|à\s+moins\s+qu|si|s['’]il|lorsque|lorsqu['’]|quand|en\s+cas\s+d|dans\s+le\s+cas\s+où"
    r"|pour\s+(?:les|tous|toutes|chaque)"
)

OPEN_MODALS = r"devrai(?:t|ent)|peu(?:t|vent)"
SUBORDINATORS = r"si"
RULE_NOUNS = r"règles?|exigences?|recommandations?|consignes?|étapes"
OUTCOME_VERBS = r"renvoie|retourne|vaut|se\s+réduit\s+à"
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
CONJUNCTIONS = r"et"
