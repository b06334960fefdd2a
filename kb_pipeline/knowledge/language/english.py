"""English: the words and wording of every class the readers match (lexicon.py
says what each class is for)."""

from .forms import ADVERB

CODE = "en"
DEFINITE_ARTICLES = ("the",)
INDEFINITE_ARTICLES = ("a", "an")
DETERMINERS = ("one", "any", "each")
COPULAS = ("is", "are")
BARE_COPULAS = ()
MODALS = (
    "can", "could", "may", "might", "must", "shall", "should", "will", "would", "need", "needs",
    "has", "have", "had", "was", "were", "do", "does", "did",
)  # fmt: skip
PRONOUNS = (
    "i", "you", "it", "this", "that", "these", "those", "there", "here", "which", "what", "who", "we", "they",
    "he", "she", "our", "its", "their",
)  # fmt: skip
# The authors speaking of themselves ("we", "our"): their "should" is their own reasoning.
AUTHORS = ("we", "our", "us")
NEGATIONS = ("not",)
FUNCTION_WORDS = """a an the of in on at to for from by with as and or but nor if is are was were be been being it
    its this that these those we our they their he she his her which who whom whose what when where while since because
    than then so such not no all any each both per via see let use into onto over under up out about after before
    between through during without within among also can may must shall should will would do does did has have had
    there here only some every""".split()
# What any symbol is: "the parameter k" says what kind the symbol is, not what it stands for.
# The document's own parts, as a sentence points at them ("Table 2 shows …").
DOCUMENT_PARTS = ("figure", "fig", "table", "section", "chapter", "annex", "appendix", "equation", "eq")
KIND_NOUNS = """symbol symbols variable variables parameter parameters coefficient coefficients constant constants
    attribute attributes argument arguments value values index indices indexes term terms factor factors
    quantity quantities letter letters""".split()
# Verbs a procedure, checklist or recommendation opens with. Not "Note", "See", "Consider",
# "Let", "Suppose", "Assume": they point at or set up an argument, they instruct nothing.
INSTRUCTION_VERBS = """
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
    add compute deduct divide reduce subtract
    figure
    """.split()
# Verbs that by themselves say a sentence defines its subject ("X refers to …").
DEFINING_VERBS = (
    r"(?:is|are) defined as|(?:is|are) understood as|refers? to|denotes|denote|means(?! of\b| that\b)|stands for"
)
# Connectives and discourse markers that open a sentence without making it conditional.
DISCOURSE_MARKERS = (
    r"For\s+example|For\s+instance|E\.g\.|In\s+general|In\s+practice|In\s+addition|In\s+particular"
    r"|In\s+other\s+words|In\s+fact|In\s+contrast|In\s+short|In\s+summary|In\s+this\s+\w+|On\s+the\s+other\s+hand"
    r"|At\s+the\s+same\s+time|At\s+least|After\s+all|To\s+date|To\s+do\s+(?:so|this)|To\s+this\s+end"
    r"|For\s+this\s+(?:reason|purpose)|For\s+(?:simplicity|clarity|convenience)|Additionally|Also|Moreover"
    r"|Furthermore|However|Nevertheless|Nonetheless|Still|Then|Next|Finally|First(?:ly)?|Second(?:ly)?"
    r"|Third(?:ly)?|Thus|Therefore|Hence|Accordingly|Alternatively|Optionally|Likewise|Similarly|Of\s+course"
)
# Subordinators and prepositions a leading condition opens with, possibly after an adverb of
# degree or time ("Only if", "Shortly after").
CONDITION_OPENERS = (
    r"(?:Only|Even|Especially|Just|Immediately|Directly|Shortly|Right|Soon)\s+(?:if|when|after|before|following"
    r"|upon|for|in|at|once|unless|during|on)"
    r"|If|Unless|When|Whenever|Where|Wherever|Provided(?:\s+that)?|Once|As\s+long\s+as|In\s+case\s+of"
    r"|In\s+the\s+event\s+(?:of|that)|Otherwise|Now\s+that|Before|After|During|Upon|Following|Prior\s+to|For"
    r"|At|In|On|Under|With|Without|Within|Depending\s+on|To"
)
# What opens a trailing condition ("… unless a spare is fitted", "… where applicable").
# A condition that leaves it to the reader ("if necessary", "when possible"): a "can" under it is a permission.
AS_NEEDED = r"^(?:if|where|when|as)\s+(?:necessary|needed|required|possible|appropriate|applicable)$"
# A leading scope over every member ("For each sample, …"): a step applied to each, a rule.
EACH_SCOPES = r"(?:For|In)\s+(?:each|every)"
# A proviso: the consequence holds only under it ("…, provided the nut is clamped"), a rule with or
# without a modal.
PROVISOS = r"^(?:provided|as\s+long\s+as|on\s+condition\s+that)\b"
TRAILING_CONDITIONS = (
    # "provided" as a conjunction ("provided the seal is new"), not a participle ("provided on page 2").
    r"unless|provided(?:\s+that|(?=\s+(?:the|a|an|it|its|they|their|you|your|he|she|we|there|this|that)\b))|as\s+long\s+as|in\s+case\s+of|in\s+the\s+event\s+(?:of|that)"
    r"|in\s+(?:cases|situations|circumstances|settings|contexts)\s+where|for\s+(?:all|each|every|any)"
    r"|(?:in|among|for)\s+those\s+who"
    r"|where\s+(?:applicable|appropriate|possible|necessary|needed|required)"
    r"|as\s+(?:applicable|appropriate|necessary|needed|required)|when(?:ever)?|if"
    r"|until"  # "… until the new tables are in use": the rule holds up to then
)

# Modals of a capability, a forecast or an option: a rule or a fact, a model decides.
OPEN_MODALS = r"can|may|could|might|requires?"
# Subordinators that make a modal's clause a supposition ("… if homogeneity is required").
SUBORDINATORS = r"if|whether|unless|why|how|when|whenever|where|wherever|while|whilst|although|though|because|since"
# What a list's lead-in names when the items under it are rules.
RULE_NOUNS = r"rules?|requirements?|recommendations?|instructions?|precautions?|steps|procedure"
# What a value comes to ("the call returns None").
OUTCOME_VERBS = (
    r"returns?|yields?|evaluates\s+to|is\s+set\s+to|takes\s+the\s+value|reduces?\s+to|simplif(?:y|ies)\s+to"
    r"|(?:approximately\s+)?equals|becomes|(?:is|are|remains)\s+(?:unchanged\s+at\s+|about\s+|approximately\s+)?[$€£]?\d"
)
# What a value always or never comes to: a convention without a condition ("It never returns null").
ABSOLUTE_OUTCOMES = r"\b(?:always|never)\s+(?:returns?|yields?|evaluates\s+to)\b"
# Words for any formula: a lead-in ending in one names no quantity.
FORMULA_NOUNS = r"formula|equation|expression|relation"
# Words that announce what follows: a lead-in ending in one names nothing.
FOLLOWING = r"following|simple"
# What joins a formula's name to what it computes ("the formula for the load factor").
FORMULA_OF = r"for|of"
# The verb phrase a formula's lead-in ends with ("is given by", "is computed as").
FORMULA_LEAD_INS = (
    r"(?:is|are|was|were|can be|may be|will be|is then|are then)\s+(?:given|computed|calculated|defined|expressed"
    r"|obtained|determined|written|estimated|approximated|evaluated|represented|described|modell?ed)"
    r"(?:\s+(?:by|as|from|with|using|through|via))?"
    r"|(?:is|are)\s+(?:the following|as follows)|reads|becomes|equals"
)
# A symbol's legend: the verb between a symbol and its meaning ("p is the pressure"), what opens
# the legend after a formula ("where …", "with …"), the verbs of a defining statement ("q denotes …").
LEGEND_VERBS = r"is|are|denotes|represents|stands\s+for"
LEGEND_OPENERS = r"where|wherein|whereby|in which"
WITH = r"with"
SYMBOL_DEFINING_VERBS = r"denotes|represents|stands\s+for|is\s+defined\s+as"
# Verbs that say what a symbol is only before a noun phrase ("B measures the load on …").
SYMBOL_READING_VERBS = r"(?:gives|describes|measures|expresses|quantifies)"
CONJUNCTIONS = r"and"
DISJUNCTIONS = r"or"
# The label of an API reference's parameter list ("Parameters: count (int) – …").
PARAMETER_LABELS = r"parameters?|params|arguments?|args"

# The wording of a rule: obligations, prohibitions, recommendations and permissions that settle a
# sentence as a rule (RULE_WORDING), and how a value is computed, sourced or modelled
# (CALCULATION_WORDING), with the pieces they are built of.

# What one expects, fears or sees: "is to be expected" states no duty.
_EPISTEMIC = r"expected|anticipated|hoped|feared|seen|found|noted|regretted|welcomed|wondered|doubted|believed"
# "may be" + the participle of something done to a thing is a permission ("The filter may be
# replaced by hand"); a participle of knowing, causing, relating, needing, harming or changing
# makes it a possibility ("may be caused by", "may be damaged", "may be viewed as").
_NOT_DONE_BY_THE_READER = (
    r"caused|explained|attributed|related|associated|linked|correlated|expected|anticipated|seen|found|noted"
    r"|known|identified|regarded|considered|viewed|deemed|thought|believed|described|called|termed|compared"
    r"|needed|required|necessitated|missed|exaggerated|understated|overestimated|underestimated|biased"
    r"|confounded|affected|influenced|driven|determined|damaged|broken|lost|exposed|infected|contaminated"
    r"|impaired|injured|harmed|destroyed|corrupted|compromised|delayed|increased|decreased|reduced|elevated"
    r"|lowered|raised|enhanced|improved|worsened|altered|changed|limited|restricted|involved|included"
    r"|obtained|achieved|reached|observed|detected|measured|estimated|overlooked|tempted"
)
# Irregular participles of handling (the -ed ones are read by their ending).
_IRREGULAR_PARTICIPLES = (
    r"done|made|kept|held|set|put|cut|run|left|sent|laid|fed|hung|shut|split|spread|spun|wound|bent|bound|stuck"
    r"|taken|given|shown|written|rewritten|chosen|worn|sewn|drawn|thrown|withdrawn|overridden|undertaken"
)
_PERMISSION = (
    rf"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)\bmay\s+(?:also\s+|then\s+)?be\s+{ADVERB}"
    rf"(?!(?:{_NOT_DONE_BY_THE_READER})\b)(?:\w{{2,}}ed|{_IRREGULAR_PARTICIPLES})\b"
)
# "may be considered in/for/when …": a guideline's conditional recommendation; "may be considered
# preliminary" (a complement) is a judgement.
_MAY_BE_CONSIDERED = (
    r"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)\bmay\s+(?:also\s+)?be\s+considered"
    r"(?=\s+(?:in|for|when|if|where|whenever|only|after|before|during|as\s+an?)\b|\s*[.;:,])"
)
# "Operators may consider …": an option offered; not the authors' "we may consider" nor a judgement
# "may consider X to be Y".
_MAY_CONSIDER = r"(?<!\bwe\s)(?<!\bone\s)(?<!\bI\s)\bmay\s+(?:also\s+)?consider\b(?!(?:\s+[^\s.;:]+){1,5}?\s+to\s+be\b)"
# How a value is computed, sourced, rounded, modelled or expressed in a unit.
_CALCULATED = (
    r"calculated|computed|derived|estimated|evaluated|averaged|summed|rounded(?:\s+(?:up|down|off))?|truncated"
    r"|expressed|measured|converted|normali[sz]ed|weighted|approximated|modell?ed|assumed|neglected|ignored"
    r"|discarded|sourced"
)
# What a method section does to its data, as participles ("were filtered") and as the authors'
# verbs ("we filtered").
_METHOD_STEPS = (
    r"extracted|chosen|selected|used|employed|applied|performed|constructed|analy[sz]ed|tested|split|fitted"
    r"|filtered|sampled|aggregated|interpolated|scaled|transformed|excluded|removed|replaced|constrained|set"
    r"|initiali[sz]ed|trained|divided|grouped|classified|compared|standardi[sz]ed|smoothed|resampled|decided"
)
_AUTHORS_STEPS = (
    r"used|applied|employed|chose|selected|adopted|set|modified|augmented|initiali[sz]ed?|extracted|constructed"
    r"|fitted|trained|filtered|sampled|aggregated|interpolated|scaled|transformed|excluded|removed|replaced"
    r"|considered|standardi[sz]ed|smoothed|resampled|split|divided|grouped"
)
_TRANSFORMS = (
    r"extracted|shuffled|replaced|discarded|re-?initiali[sz]ed|constrained|replicated|resampled|interpolated|chosen"
    r"|permuted|perturbed|concatenated|projected|clipped|masked|padded"
)
RULE_WORDING = (
    r"\bshall\b",
    r"\bmust\b",
    r"\bshould\b",
    r"\bought\s+to\b",
    rf"\b(?:is|are|be)\s+{ADVERB}(?:not\s+)?{ADVERB}(?:required|mandatory|obligatory|prohibited|forbidden"
    r"|permitted|allowed|recommended|advised|encouraged|discouraged)\b",
    rf"(?<![^\W\d_])(?:we|i)\s+{ADVERB}recommend\b",  # "2We recommend": a footnote mark glued on
    r"\brecommends?\s+that\b",
    r"\bneeds?\s+to\b",
    r"\b(?:has|have)\s+to\s+be\b",
    rf"\bit\s+is\s+{ADVERB}(?:important|essential|necessary|critical|crucial|vital|imperative|advisable"
    r"|inadvisable|preferable|mandatory|unreasonable|good\s+practice|best\s+practice)\b"
    r"(?:,[^,.]{1,30},)?\s+(?:to|that)\b",
    # "is to be replaced"; not "is to be expected": an expectation, not a duty.
    rf"\b(?:is|are)\s+(?:not\s+)?to\s+be\b(?!\s+(?:{_EPISTEMIC})\b)",
    _PERMISSION,
    _MAY_BE_CONSIDERED,
    _MAY_CONSIDER,
    r"\b(?:make|be)\s+sure\b",
    # A target: a goal's figure ("The target for 2030 is 40 %"), a text that sets targets or rules
    # ("The decree sets new limits …"), an aim with its horizon ("aims to halve … by 2040").
    r"\b(?:targets?|goals?|objectives?)\b[^.;:]{0,120}?\b(?:is|are)\s+(?:set\s+(?:at|to)\s+)?[$€£]?\d",
    r"\b(?:sets?|set\s+out|lays?\s+down|laid\s+down)\s+(?:the\s+|a\s+|new\s+|its\s+|their\s+)*(?:\w+\s+)?"
    r"(?:targets?|limits?|rules?|thresholds?|ceilings?|caps?)\b",
    r"\b(?:aims?|aimed)\s+(?:to|at)\b[^.;:]{0,160}?\b(?:by|before)\s+\d{4}\b|\b(?:is|are)\s+targeted\s+(?:for|by|in)\s+\d{4}\b",
)
# What a value compared with a threshold is classed as ("A TA > 16 mmol/L is considered high").
CLASSIFYING_VERBS = r"(?:is|are)\s+(?:considered|regarded\s+as|deemed|classed\s+as|classified\s+as)"

CALCULATION_WORDING = (
    rf"\b(?:is|are|was|were|shall\s+be|must\s+be|should\s+be|to\s+be)\s+(?:not\s+)?{ADVERB}(?:then\s+|first\s+)?"
    rf"(?:{_CALCULATED})\s+(?:as|by|from|using|with|in|to|on|over|per|according|via|through|into|if"
    r"|when)\b",  # not "that": "it is estimated that …" reports a finding
    r"\b(?:is|are)\s+(?:not\s+)?taken\s+(?:as|from|to\s+be|into\s+account)\b",
    # A modelling convention of a method section: an assumption the calculation rests on, a
    # term it leaves out. Not an assumption about the reader ("It is assumed that you …").
    r"\b(?:it\s+is\s+assumed|we\s+assume)\s+that\b(?!\s+(?:you|the\s+readers?|readers)\b)",
    # The assumption named as a noun ("The assumption made for these runs is that …").
    r"\bassumption\b[^.;:]{0,80}?\b(?:is|was)\s+that\b(?!\s+(?:you|the\s+readers?|readers)\b)",
    r"\b(?:can|may)\s+(?:safely\s+)?be\s+(?:neglected|ignored|disregarded)\b",
    r"\b(?:is|are)\s+determined\s+(?:from|as|using|according\s+to)\b",
    # A step of a method section, told in the past passive or by the authors ("The series were
    # filtered by …", "we used a spline to …"): how the values were obtained.
    # Not in a relative clause ("a network which was trained to …" names a thing), nor done by a
    # cited work ("was applied by [12]").
    rf"\b(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)(?:was|were)\s+(?:not\s+)?{ADVERB}(?:then\s+|first\s+|also\s+"
    rf"|subsequently\s+)?(?:{_METHOD_STEPS})\s+(?:as|by(?!\s+\[)|from|for|to|on|against|into|using|with|in|along|over"
    r"|at|according|so\s+that)\b",
    rf"\bwe\s+(?:then\s+|first\s+|also\s+|further\s+|have\s+)?{ADVERB}(?:{_AUTHORS_STEPS})\b",
    # A method's transformation of its data told in the present ("the weights are shuffled along
    # …", "the left side is replaced by …"): not the verbs a manual uses of its own objects.
    rf"\b(?<!\bwhich\s)(?<!\bthat\s)(?:is|are)\s+(?:then\s+|first\s+|also\s+)?{ADVERB}(?:{_TRANSFORMS})"
    r"\s+(?:by|from|along|across|into|to|with|using|at)\b",
)
CALCULATION_WORDS = r"calculated|computed|formula|rounded"

# What a bare conditional opens with (not "For …", "At …": those are scopes).
CONDITIONALS = r"If|When|Whenever|Unless|Provided|Otherwise"
# The other branch of a condition ("… if the file is open, 0 otherwise").
ALTERNATIVES = r"otherwise"
# Wording only a publication's own terms use; wording a licence shares with a domain's rules ("a
# valid licence", "reproductive age"); the work itself named (then licence wording is about it).
COPYRIGHT = r"copyright|creative\s+commons|all\s+rights\s+reserved|disclaimer"
LICENSING = r"\blicen[cs]|\breproduc|\bendors"
THE_WORK = (
    r"\b(?:this|the\s+licensed)\s+(?:work|publication|document|report|book|material|edition|guide|manual)\b"
    r"|\b(?:under|of)\s+(?:this|the|the\s+same|a\s+similar)\s+licen[cs]e\b|\blicensed\s+under\b|\blicensor\b"
)

# Relative pronouns: ", which relates …" opens a clause about a noun, not the noun itself (a
# legend's meaning ends before it).
RELATIVE_PRONOUNS = r"which|who|whose"
# What a mark in a table's note stands for: "P indicates that …" (a legend under a table).
MARK_VERBS = r"indicates(?:\s+that)?|represents"

# The label of a revision or version line printed under a title ("Revision C", "Version 3.2").
VERSION_LABELS = r"revision|rev|version|edition|release"

# Definitions (definition_sentences.py, definitions.py): an adverb between a subject and its
# defining verb ("X is commonly defined as"); the copula after an indefinite subject ("An X is
# a …") and the numeral that may open its noun phrase ("is one of …"); an inverted definition,
# the term inside the wording, one regex each with the groups `subject` and `rest` ("On entend
# par X, …"); the labels of a note or example under a glossary's entry, as a line opens with one
# ("Note", "EXAMPLE") and as ISO 704 prints them after a definition ("Note 1 to entry").
HEDGES = (
    "commonly",
    "usually",
    "generally",
    "often",
    "typically",
    "also",
    "simply",
    "sometimes",
    "here",
    "thus",
    "now",
)
INDEFINITE_COPULAS = ("is",)
ONE_OF = ("one",)
INVERTED_DEFINITIONS = ()
NOTE_LABELS = ("note", "example")
ENTRY_NOTES = r"Note \d+ to entry|NOTE\b|Note:|EXAMPLE\b|\[SOURCE"

# An instruction (imperatives.py): a finite verb (a form of be or have, a modal) in the words
# after a base form that could be an instruction's verb makes that word a noun ("Test results
# are …", "Change requests must …").
FINITE_FORMS = r"is|are|was|were|has|have|had|can|could|will|would|may|might|must|should|shall"

# What a document names its own parts and itself with (brief.py, definitions.py,
# abbreviations.py): the headings of its glossary, its abbreviation list and the section stating
# its purpose (regexes, searched in a heading; a language written with spaces starts a word with
# `\b`); the document speaking of itself as a sentence's subject, "In this report …" (a
# preposition, a determiner pointing at the document, a noun for it), or, as Indonesian writes
# it, the noun before its demonstrative ("Laporan ini …"); the document naming its aim, "The main
# purpose of … is" (a determiner, a qualifier, a noun for an aim, a copula), or the aim's noun
# opening the sentence bare, as German and Indonesian may ("Ziel … ist", "Tujuan … adalah");
# and, in a language written without spaces, the whole phrase it calls itself by.
GLOSSARY_HEADINGS = r"glossar|definition|terms and definitions|terminolog"
LIST_HEADINGS = r"abbreviation|acronym"
PURPOSE_HEADINGS = r"\b(?:purpose|objective|aim|scope|introduction|abstract|summary)"
SELF_PREPOSITIONS = ("in",)
SELF_DETERMINERS = ("this", "these", "the present", "our")
DOCUMENT_NOUNS = """document report paper guide guideline handbook manual book publication notice standard study
    chapter article thesis specification note""".split()
POSTPOSED_DEMONSTRATIVES = ()
AIM_DETERMINERS = ("the", "its", "our")
AIM_QUALIFIERS = ("main", "primary", "overall", "principal")
AIM_NOUNS = ("purpose", "aim", "objective", "goal", "scope")
AIM_COPULAS = ("is", "are", "was")
BARE_AIM_NOUNS = ()
BARE_AIM_COPULAS = ()
SELF_REFERENCES = ""

# What marks a restatement ("X (i.e., …)"); the words that may stand before a term defined
# ("The term X refers to …"); labels that head a note, a source or a step, not a term
# ("Note: …", "Step 2: …").
RESTATEMENT_MARKERS = r"i\.\s?e\."
THE_TERM = r"the term"
ASIDE_LABELS = r"notes?|examples?|source|sources|warning|caution|tip|important|step"

# The article before a word for a formula ("the formula for the load factor"); the headings of
# a bibliography (its titles of other works state nothing to the reader).
FORMULA_ARTICLES = ("the",)
BIBLIOGRAPHY_HEADINGS = r"references|bibliography|literature\s+cited|works\s+cited"

# "and", "or" in their plain form, not a variant for the sound that follows (Spanish "e" before
# an i-, "u" before an o-), which reads as a symbol as often ("e – 1"): what runs a list item into
# a sentence ("…; or • …") and what joins two long forms of one abbreviation.
PLAIN_CONJUNCTIONS = ("and",)
PLAIN_DISJUNCTIONS = ("or",)

# Read in every language recognised (lexicon.py, `_recognised`): how a sentence defining a listed
# term goes on after the term, a defining verb or a copula before an article ("PA means …",
# "“Haul road” is the …"; definitions.py); the preposition before a quantity's unit in a legend
# ("… in m3/h"; formulas.py); what opens an "if … then" and the "then" after the condition's comma
# ("If X, then Y"), or with or without it (conditions.py).
# The label of a numbered definition ("Definition 2 (load factor). …"; labelled_definitions.py).
DEFINITION_LABELS = r"Definition"
TERM_DEFINING_VERBS = r"means|is defined as|refers to|denotes|stands for|is an?|is the"
UNIT_PREPOSITIONS = r"in"
IF_THEN_OPENERS = r"If|When"
THEN_WORDS = r"then"
BARE_THEN_WORDS = ""

# A subject that states a consequence, not a meaning ("X means that …"; definition_sentences.py).
IMPLICATION_VERBS = r"means? that"
# The words after which "if" or "when" asks or relates, not conditions: a verb of asking ("check
# if"), "whether", a noun of time ("the moment when"); those conjunctions (conditions.py).
WHETHER_CONJUNCTIONS = ("if", "when", "whenever")
ASKING_WORDS = (
    r"check|see|ask|know|determine|investigate|test|verify|examine|decide|wonder|find\s+out|whether"
    r"|indicate|state|specify|show|tell|report|time|times|moment|day|period|point"
)
# What makes a modal describe rather than prescribe (normative.py): a verb reporting what others
# found or advised (with a citation); a modal pointing the reader at something ("It should be
# noted that") or the authors' own reasoning or expectation ("the two values should then be
# close"); a result clause ("so narrow that the film must bend").
REPORTING_VERBS = (
    r"found|showed|shown|reported|suggested|suggests|argued|argues|proposed|proposes|concluded|concludes"
    r"|demonstrated|demonstrates|observed|noted|stated|claimed|claims|indicated?|indicates|believe|believes"
    r"|according\s+to"
)
POINTERS = (
    r"\b(?:should|must)\s+(?:also\s+)?be\s+(?:noted|mentioned|remembered|emphasi[sz]ed|stressed|pointed\s+out"
    r"|recalled|kept\s+in\s+mind|borne\s+in\s+mind|acknowledged|recogni[sz]ed|understood|observed)\b"
    r"|\b(?:should|must)\s+(?:not\s+)?(?:[\w,]+\s+){0,3}?have\s+(?:been|become|\w+ed|\w+en)\b"
    r"|\bshould\s+(?:then|therefore|thus|normally|probably|ideally|generally)\b"
    r"|\bshould\s+(?:also\s+)?be\s+(?:able|possible|similar|comparable|sufficient|expected|higher|lower|larger"
    r"|smaller|greater|close|more|less|\w+est)\b"
)
RESULT_CLAUSES = r"\b(?:so|such)\b[^.;]{0,160}?\bthat\b"
# Heads of a noun phrase that names no term ("A typical example is …", "One way is …";
# definition_words.py), singular: a plural's s is read by the pattern.
GENERIC_HEADS = """example way problem result reason question issue point step advantage drawback consequence
    solution alternative option difference case part thing feature aspect aim goal purpose objective challenge
    limitation benefit strength weakness concern factor finding contribution task idea people person""".split()

# An instruction (imperatives.py): the verb form's ending that marks one (none in English, whose
# base form is also a noun's); an adverb before the verb ("Never open …", "Always wear …",
# "Don't …") or "do" with a negation ("Do not …"); what follows a noun that looks like a base form
# ("Use of …", "Change in …", "Record and files …"); a verb that points at the text, as "See"
# does ("Look at the table").
INSTRUCTION_ENDINGS = ""
INSTRUCTION_ADVERBS = ("never", "always", "don't", "do")
NEGATED_AUXILIARIES = ("do",)
AFTER_A_NOUN = r"of|in|and\s+\w+s"
POINTING = r"look\s+at"

# A modal read in its own clause (normative.py): a modal of possibility before a requirement makes
# it a possibility ("a permit that may be required"); the authors' own obligation is their
# reasoning ("we must conclude"); "shall" after the first person is the future ("we shall return
# to this"); an obligation in a result clause is mechanics ("so narrow that the film must bend").
POSSIBILITY_MODALS = r"may|might|could|would"
REASONING_MODALS = ("should", "must")
FUTURE_MODALS = ("shall",)
FIRST_PERSON = r"I|we"
MECHANICS_MODALS = ("must",)

# Definitions (definition_words.py): a subject opening with one of these words (beside the
# pronouns and the document's parts) is no term ("One of …", "Example 3 …", "Results show …");
# what after a subject says nothing about what it is: a copula read alone, an adverb, a verb of
# depending, varying or seeming ("X often …", "X depends on …").
NON_TERM_SUBJECTS = (
    "one",
    "each",
    "all",
    "such",
    "both",
    "example",
    "note",
    "step",
    "page",
    "paragraph",
    "item",
    "result",
    "results",
)
NOT_DEFINING_WORDS = (
    r"is|are|also|often|typically|usually|generally|always|never|still|only|not|require|requires|depend|depends"
    r"|vary|varies|remain|remains|seem|seems|appear|appears|become|becomes|\w+ly"
)

# A term | description table (definition_tables.py): the header of its meaning column (a stem,
# searched in the header cell), and the first column's header that says its cells are no terms
# but abbreviations, symbols or units.
MEANING_COLUMN_HEADINGS = r"descri|defini|meaning|explanation"
NOT_TERM_COLUMN_HEADINGS = r"abbrev|acronym|symbol|notation|unit"

# What opens a trailing condition that is whole in itself, a set phrase ("… as needed", "… where
# applicable"), so nothing need follow it (conditions.py).
SET_PHRASE_OPENERS = r"as|where"

# Definitions (definitions.py): determiners a definition may open with although they are function
# words ("any substance that …", "one of …"); what opens a sub-section's prose, not an entry's
# definition ("The following …"). An instruction (imperatives.py): a step of the document's own
# worked example, narrated for the reader to follow along ("Run the statements shown in Example
# 3-10"), no rule of the domain.
DEFINITION_DETERMINERS = ("any", "one")
PROSE_OPENERS = ("the following",)
WORKED_EXAMPLES = r"(?:shown|given|listed|illustrated)\s+in\s+(?:Example|Listing)"
