"""Italian: the words and wording of every class the readers match (lexicon.py says what each
class is for)."""

from .forms import ADVERB, APOSTROPHE

CODE = "it"
DEFINITE_ARTICLES = ("il", "lo", "la", "gli", "le")
INDEFINITE_ARTICLES = ("un", "uno", "una")
DETERMINERS = ("dei", "degli", "delle")
COPULAS = ("è", "sono")
BARE_COPULAS = ()
MODALS = ("deve", "devono", "può", "possono", "dovrà", "dovranno", "potrà", "potranno")
PRONOUNS = ("esso", "essa", "essi", "esse", "questo", "questa", "questi", "queste", "ciò", "noi")
AUTHORS = ("noi",)
NEGATIONS = ("non",)
# Words Spanish or French share ("la", "le", "un", "si") are theirs: listed here they would tip a
# Spanish or French sentence to Italian (lexicon.languages counts each language's own list);
# "i" is left out, as in a formula it is an index.
FUNCTION_WORDS = """il lo gli di del dello della dei degli delle al allo alla ai agli alle dal dallo dalla dai
    dagli dalle nel nello nella nei negli nelle sul sullo sulla sui sugli sulle con per tra fra ed è sono che non
    questo questa essere anche""".split()
DOCUMENT_PARTS = ("tabella",)
KIND_NOUNS = """simbolo simboli variabile variabili parametro parametri coefficiente coefficienti costante costanti
    attributo attributi argomento argomenti valore valori indice indici termine termini fattore fattori grandezza
    grandezze""".split()
INSTRUCTION_VERBS = ()
DEFINING_VERBS = r"(?:è|sono)\s+definit[oaie]\s+come|si\s+definisce|si\s+riferisce\s+a|designa(?:no)?"
DISCOURSE_MARKERS = r"Ad\s+esempio|Per\s+esempio|Inoltre|Tuttavia|Infine|Quindi|In\s+questo\s+caso"
CONDITION_OPENERS = (
    r"Se|Qualora|Quando|Purché|Nel\s+caso|In\s+caso\s+d\w*|A\s+condizione\s+che|Sempre\s+che|Salvo\s+che"
    r"|A\s+meno\s+che|Per|Prima\s+d\w*|Dopo|Durante"
)
AS_NEEDED = r"^(?:se|quando)\s+(?:necessario|possibile|del\s+caso)"
EACH_SCOPES = r"Per\s+(?:ogni|ciascun[oa]?)"
PROVISOS = r"^(?:purché|a\s+condizione\s+che|sempre\s+che|sempreché)"
TRAILING_CONDITIONS = (
    r"qualora|purché|in\s+caso\s+d\w*|nel\s+caso\s+in\s+cui|a\s+condizione\s+che|sempre\s+che|salvo\s+che"
    r"|a\s+meno\s+che|fino\s+a\s+quando|per\s+(?:tutti|tutte|ogni|ciascun[oa]?)"
)

OPEN_MODALS = r"può|possono|potrà|potranno|dovrebbe|dovrebbero|è\s+possibile"
SUBORDINATORS = r"se"
RULE_NOUNS = r"regole|requisiti|raccomandazioni|istruzioni|obblighi|passi"
# What a value comes to under a condition; in the future a contract binds a party with
# ("In caso di decesso, l'Impresa corrisponderà …", "… sarà liquidato …").
OUTCOME_VERBS = r"restituisce|si\s+riduce\s+a|diventa|vale|[^\W\d_]+rà|[^\W\d_]+ranno"
ABSOLUTE_OUTCOMES = r"\b(?:restituisce|restituiscono)\s+(?:sempre|mai)\b"
FORMULA_NOUNS = r"formula|equazione|relazione"
FOLLOWING = r"seguente"
FORMULA_OF = r"di|del|della|per"
FORMULA_LEAD_INS = (
    r"si\s+(?:calcola|definisce|ottiene|esprime|determina)(?:\s+(?:come|mediante|con|secondo))?"
    r"|(?:è|sono)\s+(?:dat|definit|calcolat)[oaie](?:\s+(?:da|come|mediante))?"
)
LEGEND_VERBS = r"è|sono|rappresenta|indica|denota"
LEGEND_OPENERS = r"dove|essendo|in\s+cui"
WITH = r"con"
SYMBOL_DEFINING_VERBS = r"denota|rappresenta|indica|si\s+definisce\s+come|è\s+definit[oa]\s+come"
SYMBOL_READING_VERBS = r"(?:allora\s+)?(?:dà|descrive|misura|esprime|quantifica)"
CONJUNCTIONS = r"e|ed"
DISJUNCTIONS = r"o|oppure"
PARAMETER_LABELS = r"parametr[oi]|argoment[oi]"

RULE_WORDING = (
    r"\b(?:deve|devono|dovrà|dovranno|occorre|bisogna)\b",
    r"\b(?:è|sono|sarà|saranno)\s+tenut[oaie]\s+a\b",
    # "Tale importo non potrà essere superiore …": a limit, where "può" alone is an option.
    r"\bnon\s+(?:può|possono|potrà|potranno)\b",
    r"\bsi\s+(?:raccomanda|raccomandano|consiglia|consigliano|richiede|richiedono|prescrive|vieta|vietano)\b",
    rf"\b(?:è|sono)\s+{ADVERB}(?:obbligatori[oa]|vietat[oaie]|necessari[oa]|consigliat[oaie]|raccomandat[oaie]"
    r"|richiest[oaie]|ammess[oaie]|consentit[oaie])\b",
    # "ha la facoltà di riscattare": a right the text grants.
    r"\bha(?:nno)?\s+(?:\w+\s+)?(?:la\s+)?facoltà\s+di\b",
)
# What a value compared with a threshold is classed as ("A TA > 16 mmol/L is considered high").
CLASSIFYING_VERBS = r"(?:è|sono)\s+considerat[oaie]|si\s+considera(?:no)?"

CALCULATION_WORDING = (
    r"\bsi\s+(?:calcola|calcolano|esprime|esprimono|arrotonda|arrotondano|determina|determinano|ottiene|ottengono"
    r"|stima|stimano)\b",
    r"\bcalcolat[oaie]\s+come\b",
)
CALCULATION_WORDS = r"calcolat[oaie]"

CONDITIONALS = r"Se|Qualora"
ALTERNATIVES = r"altrimenti|in\s+caso\s+contrario"
COPYRIGHT = rf"diritt[oi]\s+d{APOSTROPHE}autore"
LICENSING = ""
THE_WORK = r"\bquest[ao]\s+(?:opera|pubblicazione)"

# An instruction (imperatives.py): an infinitive before its object's determiner ("Verificare il sigillo").
INSTRUCTION_OBJECTS = rf"il|lo|la|gli|le|l{APOSTROPHE}|un|uno|una|tutti|tutte|ogni|ciascun[oa]?"

# Relative pronouns: ", which relates …" opens a clause about a noun, not the noun itself (a
# legend's meaning ends before it).
RELATIVE_PRONOUNS = r"che|cui|il\s+quale|la\s+quale|i\s+quali|le\s+quali"
# What a mark in a table's note stands for: "P indicates that …" (a legend under a table).
MARK_VERBS = r"indica(?:\s+che)?|rappresenta"

# The label of a revision or version line printed under a title ("Revision C", "Version 3.2").
VERSION_LABELS = r"revisione|versione|edizione"

# Definitions (definition_sentences.py, definitions.py; english.py says what each class is).
HEDGES = ()
INDEFINITE_COPULAS = ("è",)
ONE_OF = ()
INVERTED_DEFINITIONS = (r"^Si intende per\s+(?P<subject>[^,:\n]{2,80}?)\s*[,:]\s*(?P<rest>\S)",)
NOTE_LABELS = ("nota", "esempio")
ENTRY_NOTES = r"NOTA\b|ESEMPIO\b"

# What a document names its own parts and itself with (english.py says what each class is).
GLOSSARY_HEADINGS = r"definizioni|glossario"
LIST_HEADINGS = r"abbreviazion|acronimo"
PURPOSE_HEADINGS = r"\bscopo"
SELF_PREPOSITIONS = ("in", "nel", "nella")
SELF_DETERMINERS = ("questo", "questa", "il presente", "la presente")
DOCUMENT_NOUNS = ("documento", "rapporto", "manuale", "guida", "studio", "articolo", "capitolo")
POSTPOSED_DEMONSTRATIVES = ()
AIM_DETERMINERS = ("lo", "il", "la")
AIM_QUALIFIERS = ()
AIM_NOUNS = ("scopo", "obiettivo", "oggetto")
AIM_COPULAS = ("è",)
BARE_AIM_NOUNS = ()
BARE_AIM_COPULAS = ()
SELF_REFERENCES = ""

RESTATEMENT_MARKERS = r"cioè|ossia"
THE_TERM = r"il termine"
ASIDE_LABELS = r"nota|esempio|fonte|passo"

FORMULA_ARTICLES = ("la", "il")
BIBLIOGRAPHY_HEADINGS = r"riferimenti|bibliografia"

PLAIN_CONJUNCTIONS = ("e",)
PLAIN_DISJUNCTIONS = ("o",)

DEFINITION_LABELS = r"Definizione"
TERM_DEFINING_VERBS = r"si intende"
UNIT_PREPOSITIONS = r"in"
IF_THEN_OPENERS = r"Se|Quando"
THEN_WORDS = r"allora"

# An instruction (imperatives.py): an infinitive's endings ("Verificare il sigillo").
INSTRUCTION_ENDINGS = r"are|ere|ire"

MEANING_COLUMN_HEADINGS = r"significato|descrizione|definizione"
NOT_TERM_COLUMN_HEADINGS = r"sigla|abbreviaz"

# Classes this language has no words in yet (english.py says what each is).
BARE_THEN_WORDS = ""
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
