"""Structure on every page (issue 37), on generated documents parsed by the real MinerU (flash):
a numbered heading alone above a class diagram under a running head of the same words; a
chapter page under a trademark band and a part name, where MinerU lists a section heading it
typed "header" before the chapter title above it; running titles MinerU types as titles; and a
`/Rotate 90` page whose table is drawn turned again, its text running two ways; a bookmarked
chapter title set on three lines."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from kb_pipeline.normalise import furniture
from kb_pipeline.normalise.item_text import ItemText

BODY = (
    "The model describes each asset of the network with its identifier, its location and the date "
    "it was put into service, so that records can be exchanged between utilities and regulators."
)
DIAGRAM_SECTIONS = [
    ("4.1", "Pipe network"),
    ("4.1.1", "Valves"),
    ("4.1.2", "Pipe network nodes"),
    ("4.2", "Water network"),
    ("4.2.1", "Pumps"),
    ("4.3", "Pipe network metering"),
]


def _class_diagram(names: list[str]):
    """A UML-like class diagram drawn with lines and labels: five boxes joined by associations."""
    from reportlab.lib import colors
    from reportlab.platypus import Flowable

    class Diagram(Flowable):
        def wrap(self, *_):
            return 440, 420

        def draw(self):
            c = self.canv
            centres = []
            for (x, y), name in zip([(10, 250), (240, 250), (10, 20), (240, 20), (125, 140)], names):
                attributes = [f"+{name.lower()}Id: Identifier", "+inService: Date", "+owner: Party"]
                height = 20 + 12 * len(attributes)
                c.setFillColor(colors.Color(1, 1, 0.85))
                c.rect(x, y, 190, height, fill=1)
                c.line(x, y + height - 18, x + 190, y + height - 18)
                c.setFillColor(colors.black)
                c.setFont("Helvetica-Bold", 8)
                c.drawCentredString(x + 95, y + height - 13, name)
                c.setFont("Helvetica", 7)
                for k, attribute in enumerate(attributes):
                    c.drawString(x + 5, y + height - 30 - 12 * k, attribute)
                centres.append((x + 95, y + height / 2))
            for a, b in zip(centres, centres[1:]):
                c.line(*a, *b)

    return Diagram()


def diagram_standard_pdf(path: Path, running_head: str) -> None:
    """A data-model standard: three sections of text, then a page per subsection of chapter 4
    holding nothing but its numbered heading, a class diagram and its caption; the running head
    (`running_head`, the words of two of those headings) and the page number on every page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    width, height = A4

    def head(c, doc) -> None:
        c.saveState()
        c.setFont("Helvetica", 8)
        c.drawString(72, height - 30, running_head)
        c.drawRightString(width - 72, 30, str(doc.page))
        c.restoreState()

    story = []
    for title in ("1 Scope", "2 Conformance", "3 Overview of the model"):
        story += [Paragraph(title, ss["Heading1"]), *[Paragraph(BODY, ss["BodyText"])] * 4]
    story += [PageBreak(), Paragraph("4 Network model", ss["Heading1"]), *[Paragraph(BODY, ss["BodyText"])] * 3]
    names = ["Valve", "Hydrant", "Pump", "Meter", "Reservoir", "Pipe", "Junction", "Tank"]
    for n, (number, title) in enumerate(DIAGRAM_SECTIONS):
        style = ss["Heading2"] if number.count(".") == 1 else ss["Heading3"]
        story += [PageBreak(), Paragraph(f"{number} {title}", style)]
        story.append(_class_diagram([names[(n + k) % len(names)] for k in range(5)]))
        story.append(Paragraph(f"Figure {n + 1} — Class diagram of {title.lower()}", ss["Italic"]))
    story += [PageBreak(), Paragraph("5 Code lists", ss["Heading1"]), *[Paragraph(BODY, ss["BodyText"])] * 4]
    SimpleDocTemplate(str(path), pagesize=A4, invariant=True, topMargin=45).build(
        story, onFirstPage=head, onLaterPages=head
    )


AREAS = ["northern", "southern", "eastern", "western", "central"]
BAND = "AquaGrid\u00ae Network Services"
PART = "SERVICE DELIVERY"


def banded_report_pdf(path: Path) -> None:
    """A report under a dark band carrying a trademark name on every page, and the part's short
    name in bold capitals above the chapter title opening each page after the first. The
    chapter title and its first section's heading stand close under the part name: MinerU types
    them "header"."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    width, height = A4

    def furniture_of(c, doc) -> None:
        c.saveState()
        c.setFillColor(colors.Color(0.05, 0.3, 0.5))
        c.rect(0, height - 56, width, 56, fill=1, stroke=0)
        c.setFillColor(colors.white)
        c.setFont("Helvetica-Bold", 20)
        c.drawString(60, height - 36, BAND)
        c.setFillColor(colors.black)
        c.setFont("Helvetica", 8)
        c.drawRightString(width - 60, 30, str(doc.page))
        if doc.page > 1:
            c.setFont("Helvetica-Bold", 13)
            c.drawString(72, height - 80, PART)
        c.restoreState()

    story = [Paragraph("Annual network report", ss["Title"]), Paragraph(" ".join([BODY] * 3), ss["BodyText"])]
    for chapter, area in enumerate(AREAS, 1):
        story += [PageBreak(), Paragraph(f"Chapter {chapter}. Findings of the {area} area", ss["Heading1"])]
        for section, district in enumerate(["upper", "lower"], 1):
            story.append(Paragraph(f"{chapter}.{section} Measurements in the {district} district", ss["Heading2"]))
            story += [Paragraph(" ".join([BODY] * 3), ss["BodyText"])] * 3
    SimpleDocTemplate(str(path), pagesize=A4, invariant=True).build(
        story, onFirstPage=furniture_of, onLaterPages=furniture_of
    )


PROGRAMMES = ["Primary health clinics", "District hospitals", "Water and sanitation", "Rural road maintenance"]
TABLE = [["Programme", "2019 actual", "2020 actual", "2021 budget"]] + [
    [name, *(f"{(i + 3) * 1000 + k * 137:,}" for k in (1, 2, 3))] for i, name in enumerate(PROGRAMMES)
]
NOTE = "Note {}: the figures of the annex are given in thousand euros at current prices."


def two_way_page_pdf(path: Path) -> None:
    """Three A4 pages; the middle one is a landscape page shown by `/Rotate 90` whose title and
    notes stand upright and whose table is drawn turned a quarter again (its text runs down the
    page as displayed): the upright text is most of the page, so the page is read as it stands."""
    import pypdf
    from pypdf import Transformation
    from pypdf.generic import RectangleObject
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Frame, Paragraph, Table, TableStyle

    width, height = A4
    ss = getSampleStyleSheet()
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=A4, invariant=True)
    for title in ("1 Budget overview", None, "2 Outlook"):
        if title is None:
            c.setPageSize((height, width))
            c.setFont("Helvetica-Bold", 14)
            c.drawString(50, width - 50, "Annex 2. Expenditure of the ministry by programme and year")
            c.setFont("Helvetica", 10)
            for k in range(8):
                c.drawString(50, width - 70 - 14 * k, NOTE.format(k + 1))
            style = TableStyle([("FONTSIZE", (0, 0), (-1, -1), 9), ("GRID", (0, 0), (-1, -1), 0.5, colors.black)])
            table = Table(TABLE, colWidths=[150, 80, 80, 80], style=style)
            _w, h = table.wrapOn(c, 600, 800)
            c.saveState()
            c.translate(450, width - 120)
            c.rotate(-90)
            table.drawOn(c, 0, -h)
            c.restoreState()
        else:
            c.setPageSize(A4)
            body = "The budget of the ministry grew in each of the years this report covers."
            Frame(60, 60, width - 120, height - 120).addFromList(
                [Paragraph(title, ss["Heading1"]), *[Paragraph(body, ss["BodyText"])] * 3], c
            )
        c.showPage()
    c.save()
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(buffer))
    page = writer.pages[1]
    page.add_transformation(Transformation((0, 1, -1, 0, width, 0)))  # exact quarter turn
    page.mediabox = RectangleObject([0, 0, width, height])
    page.rotate(90)
    with path.open("wb") as f:
        writer.write(f)


LAB = "The laboratory tests each sample twice and reports the mean of the two readings to the clinic within a week."
CHAPTERS = [
    ("CHAPTER 1. INTRODUCTION", ["CHAPTER 1. INTRODUCTION"]),
    (
        "CHAPTER 2. LABORATORY-BASED REFLEX TESTING AND REFLEX SAMPLE COLLECTION FOR VIRAEMIA",
        ["CHAPTER 2. LABORATORY-BASED", "REFLEX TESTING AND REFLEX SAMPLE", "COLLECTION FOR VIRAEMIA"],
    ),
    ("CHAPTER 3. MONITORING", ["CHAPTER 3. MONITORING"]),
]


def bookmarked_chapters_pdf(path: Path) -> None:
    """Three chapters a page, each bookmarked with its whole title; the second's title set in
    large capitals on three lines (MinerU: three title items), its sections bookmarked below."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Frame, Paragraph

    width, height = A4
    ss = getSampleStyleSheet()
    c = Canvas(str(path), pagesize=A4, invariant=True)
    for n, (bookmark, lines) in enumerate(CHAPTERS, 1):
        c.bookmarkPage(f"c{n}")
        c.addOutlineEntry(bookmark, f"c{n}", level=0)
        c.setFont("Helvetica-Bold", 20)
        y = height - 90
        for line in lines:
            c.drawString(72, y, line)
            y -= 26
        story = []
        for k, name in enumerate(["Background", "Recommendations"], 1):
            c.bookmarkPage(f"c{n}.{k}")
            c.addOutlineEntry(f"{n}.{k} {name}", f"c{n}.{k}", level=1)
            story += [Paragraph(f"{n}.{k} {name}", ss["Heading2"]), *[Paragraph(LAB, ss["BodyText"])] * 4]
        Frame(60, 60, width - 120, y - 70).addFromList(story, c)
        c.showPage()
    c.save()


@pytest.fixture(scope="module")
def runs(tmp_path_factory, parses):
    folder = tmp_path_factory.mktemp("page_structure")
    diagrams, report, two_way = folder / "diagrams.pdf", folder / "report.pdf", folder / "two_way.pdf"
    diagram_standard_pdf(diagrams, "Pipe network")
    banded_report_pdf(report)
    two_way_page_pdf(two_way)
    chapters = folder / "chapters.pdf"
    bookmarked_chapters_pdf(chapters)
    return {
        "chapters": parses.run(chapters),
        "diagrams": parses.run(diagrams),
        "report": parses.run(report),
        "two_way": parses.run(two_way),
    }


def test_a_numbered_heading_above_a_diagram_opens_its_section_under_a_same_word_running_head(runs):
    run = runs["diagrams"]
    started = {chunk.heading_path[-1]: chunk.page_idx for chunk in run.document.chunks if chunk.heading_path}
    for page, (number, title) in enumerate(DIAGRAM_SECTIONS, 2):
        assert started.get(f"{number} {title}") == page, (number, title)
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    assert ("4 Network model", "4.1 Pipe network", "4.1.1 Valves") in paths
    assert ("4 Network model", "4.2 Water network", "4.2.1 Pumps") in paths
    # The running head itself is furniture: no chunk says it.
    assert not any(line == "Pipe network" for chunk in run.document.chunks for line in chunk.text.split("\n"))
    assert run.checks["text_verbatim"].passed


def test_chapter_titles_and_their_first_sections_under_a_band_each_open_their_own_section(runs):
    run = runs["report"]
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    # MinerU types the chapter title and the heading under it "header"; on pages 2-5 it merges
    # them into one item, on the last it lists "5.1 …" before the chapter title above it.
    for chapter, area in enumerate(AREAS, 1):
        for section, district in enumerate(["upper", "lower"], 1):
            wanted = (
                f"Chapter {chapter}. Findings of the {area} area",
                f"{chapter}.{section} Measurements in the {district} district",
            )
            assert wanted in paths, wanted
    assert not any("5.1 Measurements" in chunk.text for chunk in run.document.chunks)
    text = "\n".join(chunk.text for chunk in run.document.chunks)
    assert BAND not in text and PART not in text
    assert run.checks["text_verbatim"].passed


def _title(page: int, top: int, text: str) -> tuple[dict, ItemText]:
    return {"type": "text", "text_level": 1, "page_idx": page, "bbox": [120, top, 480, top + 30]}, ItemText(text=text)


def test_a_title_repeating_in_the_top_band_is_furniture_unless_numbered():
    """Isolates the furniture rule on MinerU-shaped items (the dev corpus's guideline has the
    part's name typed a title at the top of three chapter-opening pages): a short unnumbered
    title at one place in the top band of three pages runs; numbered headings there do not."""
    pairs = [_title(page, 70, "SIMPLIFIED SERVICE DELIVERY") for page in (3, 9, 15)]
    # "4 Pipe network", "5 Pipe network", …: the same line once the page numbers are set aside.
    pairs += [_title(page, 70, f"{k} Pipe network") for k, page in enumerate((4, 10, 16), 4)]
    pairs += [_title(page, 70, "Valves") for page in (5, 11)]  # two pages: not yet a running line
    items, texts = [p[0] for p in pairs], [p[1] for p in pairs]
    found, _demoted = furniture.running_furniture(items, texts, n_pages=20)
    assert found == {0, 1, 2}


def test_a_table_drawn_turned_on_an_upright_page_keeps_its_words_and_its_cells(runs):
    """MinerU reads the turned table with its words split ("P ro gramme") and no cells; its text
    is the text layer's lines, cut into cells at the column gutters, and the page keeps its words."""
    import pypdfium2

    run = runs["two_way"]
    (table,) = [chunk for chunk in run.document.chunks if chunk.kind == "table"]
    assert table.page_idx == 1
    assert table.text.split("\n") == [" | ".join(row) for row in TABLE]
    assert table.table_html is not None and "<td>Primary health clinics</td><td>3,137</td>" in table.table_html
    page_text = "\n".join(chunk.text for chunk in run.document.chunks if 1 in chunk.page_idxs)
    assert "P ro gramme" not in page_text
    assert "Note 8: the figures of the annex" in page_text
    pdf = pypdfium2.PdfDocument(str(run.raw.path / "origin.pdf"))
    words = re.findall(r"\S+", pdf[1].get_textpage().get_text_range())
    kept = set(re.findall(r"\S+", page_text))
    assert sum(word in kept for word in words) >= 0.95 * len(words)
    assert run.checks["text_verbatim"].passed and run.checks["text_coverage"].passed


def test_a_bookmarked_title_set_on_three_lines_is_one_heading_not_a_fragment(runs):
    """The bookmark names the whole title; its second and third lines join the first (the second
    alone, a title of its own, opened a fragment heading "REFLEX TESTING … VIRAEMIA")."""
    run = runs["chapters"]
    title = CHAPTERS[1][0]
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    assert (title, "2.1 Background") in paths and (title, "2.2 Recommendations") in paths
    assert not any(heading.startswith("REFLEX") for path in paths for heading in path)
    assert run.checks["text_verbatim"].passed


def test_a_plain_numbered_line_takes_its_bookmark_and_its_wrapped_end():
    """Isolates the outline rule on MinerU-shaped items (the corpus guideline's "2.1 Epidemiology
    of HCV infection and the challenge of" / "HCV elimination", set bold but typed body text,
    bookmarked "… hepatitis C virus …"): a heading-length line with the bookmark's number and
    first word is the heading, with the next line that ends the bookmark; a paragraph is not."""
    from kb_pipeline.normalise.outline import place_outline
    from kb_pipeline.pdf_text import OutlineEntry

    lines = [
        "2.1 Epidemiology of HCV infection and the challenge of",
        "HCV elimination",
        "HCV infection is a major public health problem and cause of liver disease.",
    ]
    items = [{"type": "text", "page_idx": 0, "bbox": [79, 200 + 25 * k, 900, 220 + 25 * k]} for k in range(3)]
    entry = OutlineEntry(
        "2.1 Epidemiology of hepatitis C virus infection and the challenge of HCV elimination", 2, 0, None
    )
    hits = place_outline([entry], items, [ItemText(text=line) for line in lines], set())
    assert list(hits) == [0] and hits[0].continued_by == (1,) and hits[0].cut is None
    paragraph = (
        "2.1 Epidemiology of HCV infection is described in the annex, with the challenge of elimination and its cost."
    )
    assert place_outline([entry], items[:1], [ItemText(text=paragraph)], set()) == {}
