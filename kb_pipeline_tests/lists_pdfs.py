"""Test PDFs for abbreviation lists, inline expansions and the brief: each layout a document
prints them in (reportlab, dev-only)."""

from __future__ import annotations

from pathlib import Path

# (abbreviation, expansion): the list pages print these; the fifth expansion is long enough to
# wrap onto a second line of its column.
LISTED = [
    ("BOD", "biochemical oxygen demand"),
    ("PoE", "Power over Ethernet"),
    ("HSR", "high-speed rail"),
    ("eWMS", "extended warehouse management system"),
    ("TSdS", "total suspended and dissolved solids, measured in raw or settled water by a laboratory-based method"),
]
BORDERLESS = [
    ("KPI", "key performance indicator"),
    ("MTBF", "mean time between failures"),
    ("OEE", "overall equipment effectiveness"),
    ("PM", "preventive maintenance, scheduled by running hours or by calendar days whichever comes first"),
    ("RCA", "root cause analysis"),
    # An abbreviation and a word the expansion ends in: one term.
    ("UV Reactor", "ultraviolet reactor"),
]
# A left cell that is no term, with text beside it: no entry, and not the row above's expansion.
BORDERLESS_NOTE = ("Note", "the figures are annual averages")
GLOSSARY_STYLE = [
    ("SCADA", "supervisory control and data acquisition"),
    ("PLC", "programmable logic controller"),
    ("HMI", "human–machine interface"),
    ("HV Cable", "high-voltage cable"),
]
# Running text: an inline expansion per sentence, and parentheticals that are none.
ENGLISH = [
    "The plant reports its output to the Transmission System Operator (TSO) every quarter.",
    "Each depot keeps a record of its end-of-line (EOL) checks and its Mixture-of-Experts (MoE) models.",
    "Backups follow the guidance of the Department of Water and Sanitation (DWS) for public utilities.",
    "The signalling stack (e.g. the European Train Control System [ETCS] [12]) is verified at each depot visit.",
    "Fabric strength is confirmed by the wet abrasion test (WAT10 or WAT20) after dyeing.",
    "The fleet uses LNG (liquefied natural gas) for its heavy trucks.",
    "Earlier work on flow curves (Smith 2020) found the same trend in the yearly energy use (kWh).",
    "The layout of the crusher is shown in the drawing (Fig. 3) and in the site plan (ABX).",
    "Operators log every stop in the new tracking system (NTS) and review the monthly safety report (QRS).",
]
FRENCH = [
    "La charte régionale d’économie circulaire (CREC) fixe les objectifs du pays.",
    "Le schéma régional de prévention, de gestion et d’élimination des déchets (SRPGED) les reprend.",
]
GERMAN = [
    "Die Anlage meldet ihre Daten an die Bundesnetzagentur (BNetzA) und an den Übertragungsnetzbetreiber (ÜNB).",
    "Der Betrieb folgt dem Erneuerbare-Energien-Gesetz (EEG) und der Technischen Anleitung zur Reinhaltung der Luft (TA Luft).",
]
SPANISH = [
    "La planta cumple la norma de la Comisión Nacional de los Mercados y la Competencia (CNMC) desde 2019.",
]
TITLE_LINES = ("Pump Station Maintenance", "and Inspection Manual")
SUBTITLE = "Second edition, revised for the 2026 season"
AUTHOR = "Prepared by the Engineering Division"
DATE = "12 March 2026"
PURPOSE = "This manual covers the inspection and maintenance of the pumps at every station of the network."


def lists_pdf(path: Path) -> None:
    """A cover (a two-line title in large type, a subtitle, an author and a date), then one page
    per layout: a ruled abbreviation table, a borderless two-column list, a glossary-style
    "ABC – long form" list, and running text in English, French, German and Spanish."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    ss = getSampleStyleSheet()
    big = ParagraphStyle("cover", parent=ss["Title"], fontSize=30, leading=34)
    sub = ParagraphStyle("subtitle", parent=ss["Normal"], fontSize=15, leading=20, alignment=1)
    body = ss["BodyText"]

    def rows(pairs):
        return [[Paragraph(a, body), Paragraph(e, body)] for a, e in pairs]

    story = [Spacer(1, 3 * cm), *[Paragraph(line, big) for line in TITLE_LINES], Spacer(1, 1.5 * cm)]
    story += [Paragraph(SUBTITLE, sub), Spacer(1, 4 * cm), Paragraph(AUTHOR, sub), Paragraph(DATE, sub)]
    story += [PageBreak(), Paragraph("Abbreviations", ss["Heading1"])]
    ruled = Table(rows(LISTED), colWidths=[3 * cm, 8 * cm])
    ruled.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story += [ruled, PageBreak(), Paragraph("Acronyms", ss["Heading1"])]
    borderless = Table(rows([*BORDERLESS, BORDERLESS_NOTE]), colWidths=[3 * cm, 8 * cm])
    borderless.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))
    story += [borderless, PageBreak(), Paragraph("List of abbreviations", ss["Heading1"])]
    story += [Paragraph(f"{a} – {e}", body) for a, e in GLOSSARY_STYLE]
    story += [PageBreak(), Paragraph("1 Introduction", ss["Heading1"]), Paragraph(PURPOSE, body)]
    story += [Paragraph(s, body) for s in ENGLISH]
    story += [Paragraph("2 Contexte", ss["Heading1"]), *[Paragraph(s, body) for s in FRENCH]]
    story += [Paragraph("3 Rechtsrahmen", ss["Heading1"]), *[Paragraph(s, body) for s in GERMAN]]
    story += [Paragraph("4 Marco normativo", ss["Heading1"]), *[Paragraph(s, body) for s in SPANISH]]
    SimpleDocTemplate(str(path), pagesize=A4, title="lists", invariant=True).build(story)


def excerpt_pdf(path: Path) -> None:
    """One page of running text, its only other line a page number: no title is printed."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    def number(canvas, doc) -> None:
        canvas.setFont("Helvetica", 9)
        canvas.drawRightString(A4[0] - 72, 40, "4-12")

    ss = getSampleStyleSheet()
    text = "The rail clip is driven home with a mallet until it seats, then checked with a feeler gauge. " * 6
    SimpleDocTemplate(str(path), pagesize=A4, title="Handbook", invariant=True).build(
        [Paragraph(text, ss["BodyText"]), Paragraph(text, ss["BodyText"])], onFirstPage=number
    )


NOTICE_TITLE = ("Interim Rates for the", "Pump Station Energy", "Charges of the Network")


def notice_pdf(path: Path) -> None:
    """A two-column notice: a masthead and a column heading set nearly as large as the title
    (more such lines than a title has), the title three lines in the largest type, drawn in
    turn with the column heading beside it."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4, invariant=True)
    top = A4[1]
    canvas.setFont("Helvetica-Bold", 12)
    canvas.drawString(50, top - 50, "Bulletin 52")
    canvas.drawString(330, top - 50, "Department of Water Works")
    canvas.drawString(330, top - 66, "Office of Network Operations")
    canvas.setFont("Helvetica-Bold", 14)
    canvas.drawString(50, top - 112, NOTICE_TITLE[0])
    canvas.setFont("Helvetica-Bold", 11.5)
    canvas.drawString(330, top - 110, "Summary of the Changes")
    canvas.drawString(330, top - 127, "Made for 2026")
    canvas.setFont("Helvetica-Bold", 14)
    for k, line in enumerate(NOTICE_TITLE[1:], start=1):
        canvas.drawString(50, top - 112 - 17 * k, line)
    canvas.setFont("Helvetica-Bold", 11.5)
    canvas.drawString(50, top - 190, "What Is New")
    canvas.setFont("Helvetica", 10)
    text = "The station operator applies the interim rate to every meter reading of the period."
    for k in range(30):
        canvas.drawString(50, top - 210 - 13 * k, text[:44] if k % 2 else text[44:])
        canvas.drawString(330, top - 150 - 13 * k, text[:44] if k % 2 else text[44:])
    canvas.showPage()
    canvas.save()
