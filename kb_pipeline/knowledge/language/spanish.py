"""Spanish: the words and wording of every class the readers match (lexicon.py
says what each class is for)."""

from .forms import ADVERB

CODE = "es"
DEFINITE_ARTICLES = ("el", "los", "las")
INDEFINITE_ARTICLES = ("uno", "una")
DETERMINERS = ()
COPULAS = ("es", "son")
BARE_COPULAS = ()
MODALS = ("debe", "deben", "puede", "pueden", "tiene", "tienen")
PRONOUNS = ("esto", "esta", "este", "estos", "ello", "ella", "ellos", "nosotros")
AUTHORS = ("nosotros",)
NEGATIONS = ("no",)
# "sin" (without) is left out: in a formula it is the sine.
FUNCTION_WORDS = """el los las lo unos unas y o u e del al con por para sobre son está están ser su sus donde
    cuando de la en que""".split()
DOCUMENT_PARTS = ("tabla",)
KIND_NOUNS = """símbolo símbolos variable variables parámetro parámetros coeficiente coeficientes constante constantes
    atributo atributos argumento argumentos valor valores índice índices término términos factor factores""".split()
INSTRUCTION_VERBS = ()
DEFINING_VERBS = r"se define(?:n)? como|se refiere(?:n)? a|designa(?:n)?"
DISCOURSE_MARKERS = r"Por\s+ejemplo|Además|Sin\s+embargo|Luego"
CONDITION_OPENERS = (
    r"Cuando|En\s+caso\s+de|Siempre\s+que|Salvo\s+que"
    r"|A\s+menos\s+que|Para|Antes\s+de|Después\s+de|Durante"
)
AS_NEEDED = r"^(?:si\s+es|cuando\s+sea)\s+(?:necesario|posible)"
EACH_SCOPES = r"Para\s+cada"
PROVISOS = r"^(?:siempre\s+que|a\s+condición\s+de\s+que)"
TRAILING_CONDITIONS = r"cuando|en\s+caso\s+de|siempre\s+que|a\s+condición\s+de\s+que|salvo\s+que|a\s+menos\s+que|para\s+(?:todos|todas|cada)"

OPEN_MODALS = r"puede|pueden"
SUBORDINATORS = ""
RULE_NOUNS = r"reglas|requisitos|recomendaciones|instrucciones|pasos"
OUTCOME_VERBS = r"devuelve|se\s+reduce\s+a|se\s+convierte\s+en|es\s+de\s+\d"
ABSOLUTE_OUTCOMES = r"\b(?:siempre|nunca)\s+(?:devuelve|devuelven|retorna|retornan)\b"
FORMULA_NOUNS = r"fórmula|ecuación|expresión"
FOLLOWING = r"siguiente"
FORMULA_OF = r"del|para"
FORMULA_LEAD_INS = (
    r"se\s+(?:calcula|define|obtiene|expresa|determina)(?:\s+(?:como|mediante|por|con|según|a partir de))?"
    r"|(?:es|está|viene)\s+(?:dad|definid|calculad)[oa]s?(?:\s+(?:por|como|mediante))?"
)
LEGEND_VERBS = r"es|son|representa|denota"
LEGEND_OPENERS = r"donde|siendo"
WITH = r"con"
SYMBOL_DEFINING_VERBS = r"denota|representa|se\s+define\s+como"
SYMBOL_READING_VERBS = r"(?:entonces\s+)?(?:da|describe|mide|expresa|cuantifica)"
CONJUNCTIONS = r"y|e"
DISJUNCTIONS = r"o|u"
PARAMETER_LABELS = r"parámetros?|argumentos?"

RULE_WORDING = (
    r"\b(?:debe|deben|deberá|deberán|debería|deberían|hay\s+que|tiene\s+que|tienen\s+que)\b",
    r"\bse\s+(?:recomienda|recomiendan|aconseja|aconsejan|requiere|requieren|exige|exigen|prohíbe|prohíben)\b",
    rf"\b(?:es|son|está|están|queda|quedan)\s+{ADVERB}(?:obligatori[oa]s?|prohibid[oa]s?|necesari[oa]"
    r"|recomendable|aconsejable|imprescindible|permitid[oa]s?)\b",
    r"\brecomendamos\b",
)
# What a value compared with a threshold is classed as ("A TA > 16 mmol/L is considered high").
CLASSIFYING_VERBS = r"se\s+considera(?:n)?|(?:es|son)\s+considerad[oa]s?"

CALCULATION_WORDING = (
    r"\bse\s+(?:calcula|calculan|expresa|expresan|redondea|redondean|determina|determinan|obtiene|obtienen"
    r"|mide|miden|estima|estiman)\b",
)
CALCULATION_WORDS = r"calculad[oa]s?"

CONDITIONALS = r"Cuando"
ALTERNATIVES = r"de\s+lo\s+contrario|en\s+caso\s+contrario"
COPYRIGHT = r"derechos\s+de\s+autor"
LICENSING = ""
THE_WORK = r"\besta\s+(?:obra|publicación)"

# An instruction (imperatives.py): an infinitive before its object's determiner ("Verificar el sello").
INSTRUCTION_OBJECTS = r"el|la|los|las|un|una|su|sus|todos?|todas?|cada|al"

# Relative pronouns: ", which relates …" opens a clause about a noun, not the noun itself (a
# legend's meaning ends before it).
RELATIVE_PRONOUNS = r"que|cual|cuales|quien|quienes"
# What a mark in a table's note stands for: "P indicates that …" (a legend under a table).
MARK_VERBS = r"indica(?:\s+que)?|representa"

# The label of a revision or version line printed under a title ("Revision C", "Version 3.2").
VERSION_LABELS = r"revisión|versión|edición"

# Definitions (definition_sentences.py, definitions.py; english.py says what each class is).
HEDGES = ()
INDEFINITE_COPULAS = ("es",)
ONE_OF = ()
INVERTED_DEFINITIONS = (r"^Se entiende por\s+(?P<subject>[^,:\n]{2,80}?)\s*[,:]\s*(?P<rest>\S)",)
NOTE_LABELS = ("nota", "ejemplo")
ENTRY_NOTES = r"NOTA\b|EJEMPLO\b"

# What a document names its own parts and itself with (english.py says what each class is).
GLOSSARY_HEADINGS = r"glosario|definiciones"
LIST_HEADINGS = r"abreviatura|siglas|acrónimo"
PURPOSE_HEADINGS = r"\b(?:objetivo|resumen|introduc)"
SELF_PREPOSITIONS = ("en",)
SELF_DETERMINERS = ("este", "esta", "estos", "estas", "el presente", "la presente")
DOCUMENT_NOUNS = ("documento", "informe", "guía", "estudio", "artículo", "capítulo")
POSTPOSED_DEMONSTRATIVES = ()
AIM_DETERMINERS = ("el", "su")
AIM_QUALIFIERS = ()
AIM_NOUNS = ("propósito", "objetivo", "objeto")
AIM_COPULAS = ("es", "son")
BARE_AIM_NOUNS = ()
BARE_AIM_COPULAS = ()
SELF_REFERENCES = ""

RESTATEMENT_MARKERS = r"es decir"
THE_TERM = r"el término"
ASIDE_LABELS = r"nota|ejemplo|fuente|paso"

FORMULA_ARTICLES = ("la", "el")
BIBLIOGRAPHY_HEADINGS = r"referencias|bibliografía"

PLAIN_CONJUNCTIONS = ("y",)
PLAIN_DISJUNCTIONS = ("o",)

DEFINITION_LABELS = r"Definición"
TERM_DEFINING_VERBS = r"significa|se refiere a|se define como"
UNIT_PREPOSITIONS = r"en"
IF_THEN_OPENERS = r"Si|Cuando"
THEN_WORDS = r"entonces"

# An instruction (imperatives.py): an infinitive's endings ("Verificar el sello").
INSTRUCTION_ENDINGS = r"ar|er|ir"

MEANING_COLUMN_HEADINGS = r"significado|descripci|definici"

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
NOT_TERM_COLUMN_HEADINGS = ""
SET_PHRASE_OPENERS = ""
DEFINITION_DETERMINERS = ()
PROSE_OPENERS = ()
WORKED_EXAMPLES = ""
