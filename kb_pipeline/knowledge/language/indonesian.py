"""Indonesian: the words and wording of every class the readers match (lexicon.py says what each
class is for). Indonesian has no article: its copulas are read where the layout says the subject
is a term."""

CODE = "id"
DEFINITE_ARTICLES = ()
INDEFINITE_ARTICLES = ("suatu", "sebuah")
DETERMINERS = ("seorang", "salah satu")
COPULAS = ("adalah", "merupakan", "ialah", "yaitu")
# The copulas of a language without articles: their noun phrase opens with the noun itself.
BARE_COPULAS = COPULAS
MODALS = ("harus", "dapat", "bisa", "akan", "perlu", "wajib", "boleh", "sudah", "telah")
PRONOUNS = ("ini", "itu", "kami", "kita", "mereka", "ia", "dia")
AUTHORS = ("kami",)
NEGATIONS = ("tidak", "bukan")
FUNCTION_WORDS = """yang dan di ke dari untuk dengan pada adalah ialah dalam atau ini itu oleh sebagai bagi
    tanpa""".split()
DOCUMENT_PARTS = ("tabel", "gambar")
KIND_NOUNS = "simbol variabel parameter koefisien konstanta atribut argumen nilai indeks faktor".split()
INSTRUCTION_VERBS = """periksa ganti catat isi ukur hitung buka tutup pasang jangan hindari ikuti baca simpan cek
    lepas pastikan perhatikan bersihkan tekan""".split()
DEFINING_VERBS = r"didefinisikan sebagai|diartikan sebagai"
DISCOURSE_MARKERS = r"Misalnya|Contohnya|Selain\s+itu|Namun|Kemudian"
CONDITION_OPENERS = (
    r"Jika|Apabila|Bila|Jikalau|Bilamana|Dalam\s+hal"
    r"|Kecuali|Sebelum|Setelah|Sesudah|Selama|Untuk|Pada\s+saat|Ketika"
)
AS_NEEDED = r"^(?:jika|bila|apabila)\s+(?:perlu|diperlukan|memungkinkan)"
EACH_SCOPES = r"Untuk\s+(?:setiap|tiap|masing-masing)"
PROVISOS = r"^(?:asalkan|dengan\s+syarat)\b"
TRAILING_CONDITIONS = r"jika|apabila|bila|kecuali|asalkan|dengan\s+syarat|dalam\s+hal|untuk\s+(?:semua|setiap)"

OPEN_MODALS = r"dapat|bisa|diperlukan|memerlukan"
SUBORDINATORS = r"jika|apabila"
RULE_NOUNS = r"aturan|persyaratan|ketentuan|langkah|rekomendasi|petunjuk"
OUTCOME_VERBS = r"menghasilkan|bernilai"
ABSOLUTE_OUTCOMES = r"\b(?:selalu|tidak\s+pernah)\s+(?:menghasilkan|bernilai|mengembalikan)\b"
FORMULA_NOUNS = r"rumus|persamaan"
FOLLOWING = r"berikut"
FORMULA_OF = r"untuk"
FORMULA_LEAD_INS = r"dihitung(?:\s+(?:dengan|sebagai|menggunakan|berdasarkan))?"
LEGEND_VERBS = r"adalah|ialah|merupakan|menyatakan"
LEGEND_OPENERS = r"dimana|di mana"
WITH = r"dengan"
SYMBOL_DEFINING_VERBS = r"menyatakan|melambangkan"
# Without articles, a reading verb has no noun phrase to open: none listed.
SYMBOL_READING_VERBS = ""
CONJUNCTIONS = r"dan"
DISJUNCTIONS = r"atau"
PARAMETER_LABELS = r"parameter|argumen"

RULE_WORDING = (
    r"\b(?:harus|wajib|diwajibkan|diharuskan|dianjurkan|disarankan|direkomendasikan|sebaiknya|hendaknya"
    r"|perlu|dilarang|diperbolehkan|diizinkan)\b",
    r"\btidak\s+(?:boleh|diperbolehkan|diizinkan)\b",
    r"\bkami\s+(?:merekomendasikan|menyarankan|menganjurkan)\b",
)
# What a value compared with a threshold is classed as ("A TA > 16 mmol/L is considered high").
CLASSIFYING_VERBS = r"dianggap|digolongkan\s+sebagai"

CALCULATION_WORDING = (
    r"\b(?:dihitung|dinyatakan\s+dalam|dibulatkan|ditentukan|diukur|dijumlahkan|diperoleh\s+dari"
    r"|diambil\s+dari)\b",
)
CALCULATION_WORDS = r"dihitung|perhitungan|rumus"

CONDITIONALS = r"Jika|Apabila|Bila"
ALTERNATIVES = r"jika\s+tidak|bila\s+tidak"
COPYRIGHT = r"hak\s+cipta"
LICENSING = r"\blisensi"
THE_WORK = ""

# Relative pronouns: ", which relates …" opens a clause about a noun, not the noun itself (a
# legend's meaning ends before it).
RELATIVE_PRONOUNS = r"yang"
# What a mark in a table's note stands for: "P indicates that …" (a legend under a table).
MARK_VERBS = r"menunjukkan(?:\s+bahwa)?|melambangkan"

# The label of a revision or version line printed under a title ("Revision C", "Version 3.2").
VERSION_LABELS = r"revisi|versi|edisi"

# Definitions (definition_sentences.py, definitions.py; english.py says what each class is).
# An indefinite subject ("Suatu X adalah …") is not read in Indonesian: no copula listed for it.
HEDGES = ()
INDEFINITE_COPULAS = ()
ONE_OF = ()
INVERTED_DEFINITIONS = (r"^Yang dimaksud dengan\s+(?P<subject>[^,\n]{2,80}?)\s+(?:adalah|ialah|yaitu)\s+(?P<rest>\S)",)
NOTE_LABELS = ("catatan", "contoh")
ENTRY_NOTES = r"CATATAN\b|CONTOH\b|\[SUMBER"

# What a document names its own parts and itself with (english.py says what each class is).
# Without articles the aim's noun opens its sentence bare, and "ini" follows the document's noun.
GLOSSARY_HEADINGS = r"istilah|definisi"
LIST_HEADINGS = r"singkatan|akronim"
PURPOSE_HEADINGS = r"\b(?:pendahuluan|tujuan|maksud|ruang lingkup)"
SELF_PREPOSITIONS = ()
SELF_DETERMINERS = ()
DOCUMENT_NOUNS = ("dokumen", "laporan", "pedoman", "standar", "panduan", "buku", "modul", "prosedur")
POSTPOSED_DEMONSTRATIVES = ("ini",)
AIM_DETERMINERS = ()
AIM_QUALIFIERS = ()
AIM_NOUNS = ()
AIM_COPULAS = ()
BARE_AIM_NOUNS = ("tujuan", "maksud", "ruang lingkup")
BARE_AIM_COPULAS = ("adalah", "ialah", "yaitu")
SELF_REFERENCES = ""

RESTATEMENT_MARKERS = ""
THE_TERM = r"istilah"
ASIDE_LABELS = r"catatan|contoh|sumber|perhatian|langkah"

FORMULA_ARTICLES = ()
BIBLIOGRAPHY_HEADINGS = r"daftar\s+pustaka|referensi"

PLAIN_CONJUNCTIONS = ("dan",)
PLAIN_DISJUNCTIONS = ("atau",)

DEFINITION_LABELS = r"Definisi"
TERM_DEFINING_VERBS = r"adalah|merupakan|menyatakan|ialah|yaitu|yakni"
UNIT_PREPOSITIONS = r"dalam"
IF_THEN_OPENERS = r"Apabila|Jika|Bila|Jikalau"
BARE_THEN_WORDS = r"maka"

# An instruction (imperatives.py): no infinitive's ending; a verb in -kan ("Pastikan",
# "Gunakan"), but not a word with a noun's or a passive's prefix ("Berdasarkan", "Dikarenakan").
IMPERATIVE_SUFFIX = r"kan"
NOT_IMPERATIVES = r"(?:Ber|Di|Ter|Me|Pe|Ke|Se)[a-z]+|Berdasarkan|Dikarenakan"

# "Hal ini …" ("this matter"): a pointer, no term (definition_words.py).
NON_TERM_SUBJECTS = ("hal",)

MEANING_COLUMN_HEADINGS = r"keterangan|deskripsi|pengertian|arti\b|makna|uraian|penjelasan"
NOT_TERM_COLUMN_HEADINGS = r"singkatan|akronim"

# Classes this language has no words in yet (english.py says what each is).
THEN_WORDS = ""
IMPLICATION_VERBS = ""
WHETHER_CONJUNCTIONS = ()
ASKING_WORDS = ""
REPORTING_VERBS = ""
POINTERS = ""
RESULT_CLAUSES = ""
GENERIC_HEADS = ()
INSTRUCTION_ENDINGS = ""
POSSIBILITY_MODALS = ""
REASONING_MODALS = ()
FUTURE_MODALS = ()
FIRST_PERSON = ""
MECHANICS_MODALS = ()
NOT_DEFINING_WORDS = ""
SET_PHRASE_OPENERS = ""
DEFINITION_DETERMINERS = ()
PROSE_OPENERS = ()
WORKED_EXAMPLES = ""
