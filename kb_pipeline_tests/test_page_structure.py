"""Structure on every page (issue 37), on generated documents parsed by the real MinerU (flash):
a numbered heading alone above a class diagram under a running head of the same words (set
whole, or with its number tabbed apart, under a head set so too; the diagram drawn, or a
picture without caption); a chapter page under a trademark band and a part name, where MinerU lists a section heading it
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
from kb_pipeline_tests.samples import write_with_second_page_turned

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


def _tabbed_heading(number: str, title: str):
    """A heading whose number is set off from its title by a tab (a word processor's numbered
    heading): two runs of text far apart on one line, set only a little larger than the head."""
    from reportlab.platypus import Flowable

    class TabbedHeading(Flowable):
        def wrap(self, *_):
            return 440, 14

        def draw(self):
            self.canv.setFont("Helvetica-Bold", 10)
            self.canv.drawString(0, 3, number)
            self.canv.drawString(90, 3, title)

    return TabbedHeading()


def _diagram_picture(names: list[str]):
    """A class diagram exported as a picture (boxes and names in pixels, no text layer)."""
    from PIL import Image, ImageDraw
    from reportlab.platypus import Image as Picture

    picture = Image.new("RGB", (1200, 1000), "white")
    draw = ImageDraw.Draw(picture)
    for k, name in enumerate(names):
        x, y = 50 + (k % 3) * 380, 80 + (k // 3) * 500
        draw.rectangle([x, y, x + 330, y + 250], outline="black", fill=(255, 255, 215), width=3)
        draw.text((x + 100, y + 20), name, fill="black")
    png = io.BytesIO()
    picture.save(png, "PNG")
    png.seek(0)
    return Picture(png, width=440, height=367)


def diagram_standard_pdf(
    path: Path, running_head: str, *, number_apart: bool = False, pictures: bool = False, head_number: str = ""
) -> None:
    """A data-model standard: three sections of text, then a page per subsection of chapter 4
    holding nothing but its numbered heading, a class diagram and its caption; the running head
    (`running_head`, the words of two of those headings) and the page number on every page.
    `number_apart`: each diagram page's heading stands just under the head with its number set
    apart by a tab; `pictures`: the diagrams are pictures without a caption; `head_number`: the
    running head carries that section number, set apart from its words by a tab."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    width, height = A4

    def head(c, doc) -> None:
        c.saveState()
        c.setFont("Helvetica", 8)
        if head_number:
            c.drawString(72, height - 30, head_number)
        c.drawString(162 if head_number else 72, height - 30, running_head)
        c.drawRightString(width - 72, 30, str(doc.page))
        c.restoreState()

    story = []
    for title in ("1 Scope", "2 Conformance", "3 Overview of the model"):
        story += [Paragraph(title, ss["Heading1"]), *[Paragraph(BODY, ss["BodyText"])] * 4]
    story += [PageBreak(), Paragraph("4 Network model", ss["Heading1"]), *[Paragraph(BODY, ss["BodyText"])] * 3]
    names = ["Valve", "Hydrant", "Pump", "Meter", "Reservoir", "Pipe", "Junction", "Tank"]
    for n, (number, title) in enumerate(DIAGRAM_SECTIONS):
        style = ss["Heading2"] if number.count(".") == 1 else ss["Heading3"]
        heading = _tabbed_heading(number, title) if number_apart else Paragraph(f"{number} {title}", style)
        story += [PageBreak(), heading]
        boxes = [names[(n + k) % len(names)] for k in range(5)]
        if pictures:
            story.append(_diagram_picture(boxes))
        else:
            story.append(_class_diagram(boxes))
            story.append(Paragraph(f"Figure {n + 1} — Class diagram of {title.lower()}", ss["Italic"]))
    story += [PageBreak(), Paragraph("5 Code lists", ss["Heading1"]), *[Paragraph(BODY, ss["BodyText"])] * 4]
    SimpleDocTemplate(str(path), pagesize=A4, invariant=True, topMargin=34 if number_apart else 45).build(
        story, onFirstPage=head, onLaterPages=head
    )


DIAGRAM_CHAPTERS = [("5", "Pipe network"), ("6", "Water network"), ("7", "Pipe network metering")]


def chapter_diagrams_pdf(path: Path) -> None:
    """Four pages of text under the running head "Pipe network", then a page per chapter
    holding only its numbered title and a class diagram; the title stands where the head
    stands on the other pages, in the head's size, and those pages print no head."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    width, height = A4
    c = Canvas(str(path), pagesize=A4, invariant=True)
    names = ["Valve", "Hydrant", "Pump", "Meter", "Reservoir", "Pipe", "Junction"]
    for page, (number, title) in enumerate([("1", "Scope"), ("2", "Conformance"), ("3", "Terms"), ("4", "Model")]):
        c.setFont("Helvetica", 9)
        c.drawString(72, height - 30, "Pipe network")
        c.setFont("Helvetica-Bold", 14)
        c.drawString(72, height - 80, f"{number} {title}")
        c.setFont("Helvetica", 10)
        for k in range(12):
            c.drawString(
                72, height - 110 - 14 * k, f"Clause {number} applies to record {k + 1} of each asset kept by a utility."
            )
        c.drawCentredString(width / 2, 30, str(page + 1))
        c.showPage()
    for n, (number, title) in enumerate(DIAGRAM_CHAPTERS):
        c.setFont("Helvetica", 9)
        c.drawString(72, height - 30, f"{number} {title}")
        diagram = _class_diagram([names[(n + k) % len(names)] for k in range(5)])
        diagram.wrapOn(c, width, height)
        diagram.drawOn(c, 72, height - 540)
        c.setFont("Helvetica", 10)
        c.drawCentredString(width / 2, 30, str(n + 5))
        c.showPage()
    c.save()


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
    write_with_second_page_turned(buffer, path)


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


BUSES = (
    "Buses on the corridor run every ten minutes in the peak and every twenty minutes off peak, and the "
    "operator reports punctuality to the authority each month so that delays can be traced."
)
MEASURES = [
    ("3.1", "Regional rail"),
    ("3.2", "Improvement of regional bus services and their connections to rail stations"),
    ("3.2.1", "Interchange at the main station"),
    ("3.3", "Cycling"),
    ("3.4", "Park and ride sites on the outer ring road corridor"),
    ("3.5", "Freight"),
]


def two_column_plan_pdf(path: Path) -> None:
    """A transport plan in two columns: numbered headings set bold at the body's size and
    leading, with no space around them, some wrapping onto a second line in the narrow column
    (MinerU merges each into the paragraph under it)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    body = ParagraphStyle("body", fontName="Helvetica", fontSize=9, leading=11)
    heading = ParagraphStyle("heading", fontName="Helvetica-Bold", fontSize=9, leading=11)
    chapter = ParagraphStyle("chapter", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceAfter=6)
    width, height = A4
    column = (width - 164) / 2
    doc = BaseDocTemplate(str(path), pagesize=A4, invariant=True)
    frames = [Frame(72, 72, column, height - 144, id="left"), Frame(92 + column, 72, column, height - 144, id="right")]
    doc.addPageTemplates([PageTemplate(frames=frames)])
    story = [Paragraph("3 Transport measures", chapter)]
    for number, title in MEASURES:
        story += [Paragraph(f"{number} {title}", heading), *[Paragraph(BUSES, body)] * 2]
    doc.build([*story, Paragraph("4 Monitoring", chapter), *[Paragraph(BUSES, body)] * 3])


GROUPS = "ABC"


def chapter_pages_pdf(path: Path) -> Path:
    """Three chapters a page, each titled "n Chapter …" with its first section "n.1 …" close
    under it (MinerU merges the two into one "header" item), written as it is and with its
    cross-reference table damaged (every offset wrong: MinerU's reader rebuilds it). Returns
    the damaged copy."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    story = []
    for chapter, group in enumerate(GROUPS, 1):
        story.append(Paragraph(f"{chapter} Measures of group {group} services", ss["Heading1"]))
        for section, district in enumerate("XYZ", 1):
            story.append(Paragraph(f"{chapter}.{section} District {district} of group {group}", ss["Heading2"]))
            story += [Paragraph(BUSES, ss["BodyText"])] * 2
        story.append(PageBreak())
    SimpleDocTemplate(str(path), pagesize=A4, invariant=True, pageCompression=0).build(story)
    data = path.read_bytes()
    damaged = re.sub(rb"startxref\s+\d+", b"startxref\n999", data)
    damaged = re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m[1]) + 7), damaged)
    copy = path.with_name(f"{path.stem}_damaged.pdf")
    copy.write_bytes(damaged)
    return copy


HYDRANTS = "The operator inspected {} hydrants in the district during the year and replaced those that failed."


def running_name_report_pdf(path: Path) -> None:
    """Six pages, each opening with a numbered heading, under a short section name set large at
    the top of every page just above it: MinerU merges the name and the heading into one
    "header" item on every page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    width, height = A4

    def name(c, doc) -> None:
        c.saveState()
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, height - 64, "Findings")
        c.setFont("Helvetica", 8)
        c.drawCentredString(width / 2, 30, str(doc.page))
        c.restoreState()

    story = []
    for n, district in enumerate(AREAS + ["coastal"], 1):
        story.append(Paragraph(f"{n} Results for the {district} district", ss["Heading1"]))
        story += [Paragraph(" ".join([HYDRANTS.format(10 * n + k)] * 3), ss["BodyText"]) for k in range(3)]
        story.append(PageBreak())
    SimpleDocTemplate(str(path), pagesize=A4, invariant=True, topMargin=80).build(
        story, onFirstPage=name, onLaterPages=name
    )


CARRIED = (
    "2.1 Measures for the maintenance of the pipe network and its",
    "valves and hydrants of the northern district",
)


def carried_heading_pdf(path: Path, *, bodiless: bool = False) -> None:
    """Three pages; a heading set on two lines is cut by the page break after its first line:
    the second stands at the top of the next page, above the section's text (`bodiless`: right
    above the next heading, the section having no text)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    width, height = A4
    c = Canvas(str(path), pagesize=A4, invariant=True)

    def lines(y: float, n: int) -> float:
        c.setFont("Helvetica", 10)
        for _ in range(n):
            c.drawString(72, y, HYDRANTS.format("the"))
            y -= 13
        return y - 10

    def heading(y: float, line: str) -> float:
        c.setFont("Helvetica-Bold", 12)
        c.drawString(72, y, line)
        return y - 20

    y = lines(heading(lines(heading(height - 80, "1 Scope"), 5) - 6, "2 Pipe network"), 40)
    heading(y - 6, CARRIED[0])
    c.showPage()
    y = lines(heading(lines(heading(height - 80, CARRIED[1]), 0 if bodiless else 6) - 6, "2.2 Pumping stations"), 8)
    c.showPage()
    lines(heading(height - 80, "3 Code lists"), 8)
    c.showPage()
    c.save()


@pytest.fixture(scope="module")
def runs(tmp_path_factory, parses):
    folder = tmp_path_factory.mktemp("page_structure")
    diagrams, report, two_way = folder / "diagrams.pdf", folder / "report.pdf", folder / "two_way.pdf"
    diagram_standard_pdf(diagrams, "Pipe network")
    apart, pictures = folder / "apart.pdf", folder / "pictures.pdf"
    diagram_standard_pdf(apart, "Pipe network", number_apart=True)
    numbered_head = folder / "numbered_head.pdf"
    diagram_standard_pdf(numbered_head, "Pipe network", number_apart=True, head_number="4.1")
    diagram_standard_pdf(pictures, "Pipe network", pictures=True)
    banded_report_pdf(report)
    two_way_page_pdf(two_way)
    chapter_pages = folder / "chapter_pages.pdf"
    damaged = chapter_pages_pdf(chapter_pages)
    running_name = folder / "running_name.pdf"
    running_name_report_pdf(running_name)
    carried = folder / "carried.pdf"
    carried_heading_pdf(carried)
    carried_bodiless = folder / "carried_bodiless.pdf"
    carried_heading_pdf(carried_bodiless, bodiless=True)
    chapter_diagrams = folder / "chapter_diagrams.pdf"
    chapter_diagrams_pdf(chapter_diagrams)
    plan = folder / "plan.pdf"
    two_column_plan_pdf(plan)
    chapters = folder / "chapters.pdf"
    bookmarked_chapters_pdf(chapters)
    return {
        "chapters": parses.run(chapters),
        "diagrams": parses.run(diagrams),
        "apart": parses.run(apart),
        "numbered_head": parses.run(numbered_head),
        "pictures": parses.run(pictures),
        "report": parses.run(report),
        "two_way": parses.run(two_way),
        "plan": parses.run(plan),
        "chapter_diagrams": parses.run(chapter_diagrams),
        "carried": parses.run(carried),
        "carried_bodiless": parses.run(carried_bodiless),
        "running_name": parses.run(running_name),
        "chapter_pages": parses.run(chapter_pages),
        "damaged": parses.run(damaged),
    }


@pytest.mark.parametrize("case", ["diagrams", "apart"])
def test_a_numbered_heading_above_a_diagram_opens_its_section_under_a_same_word_running_head(runs, case):
    """As set by a typesetter, and as a word processor sets it ("apart"): its number tabbed off
    from its title, just under the head, a little larger; MinerU reads "4.1" and "Pipe network"
    as two items, neither a title, and the title repeats the head's words at the head's place."""
    run = runs[case]
    started = {chunk.heading_path[-1]: chunk.page_idx for chunk in run.document.chunks if chunk.heading_path}
    for page, (number, title) in enumerate(DIAGRAM_SECTIONS, 2):
        assert started.get(f"{number} {title}") == page, (number, title)
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    assert ("4 Network model", "4.1 Pipe network", "4.1.1 Valves") in paths
    assert ("4 Network model", "4.2 Water network", "4.2.1 Pumps") in paths
    # The running head itself is furniture: no chunk says it.
    assert not any(line == "Pipe network" for chunk in run.document.chunks for line in chunk.text.split("\n"))
    assert run.checks["text_verbatim"].passed


def test_a_numbered_running_head_set_apart_by_a_tab_stays_furniture_on_every_page(runs):
    """The running head "4.1 <tab> Pipe network" on every page: MinerU reads its number and its
    words as two items, like a heading's set apart, but the number repeats at the head's place,
    so the pair is the running head, not a heading (it fell through to body text on each page
    where it does not continue the numbering)."""
    run = runs["numbered_head"]
    started = {chunk.heading_path[-1]: chunk.page_idx for chunk in run.document.chunks if chunk.heading_path}
    for page, (number, title) in enumerate(DIAGRAM_SECTIONS, 2):
        assert started.get(f"{number} {title}") == page, (number, title)
    lines = {line for chunk in run.document.chunks for line in chunk.text.split("\n")}
    assert "4.1" not in lines and "Pipe network" not in lines
    assert run.checks["text_verbatim"].passed


def test_the_only_line_above_a_diagram_where_the_head_stands_is_the_heading_its_number_continues(runs):
    """ "5 Pipe network" stands where "Pipe network" runs on the other pages, in its size: page
    numbers aside, the same line, so it was furniture; "6 Water network" then no longer
    continued the numbering (after 4 comes 5), and every diagram chapter was lost."""
    run = runs["chapter_diagrams"]
    started = {chunk.heading_path[0]: chunk.page_idx for chunk in run.document.chunks if chunk.heading_path}
    for page, (number, title) in enumerate(DIAGRAM_CHAPTERS, 4):
        assert started.get(f"{number} {title}") == page, (number, title)
    assert not any(line == "Pipe network" for chunk in run.document.chunks for line in chunk.text.split("\n"))
    assert run.checks["text_verbatim"].passed


def test_a_diagram_picture_without_caption_stays_under_its_heading(runs):
    """A picture with no caption under a heading with no body waited for the next text: every
    diagram went to "5 Code lists", whose section then started six pages early."""
    run = runs["pictures"]
    for page, (number, title) in enumerate(DIAGRAM_SECTIONS, 2):
        (chunk,) = [c for c in run.document.chunks if c.heading_path and c.heading_path[-1] == f"{number} {title}"]
        assert chunk.page_idxs == [page] and chunk.kind == "image" and len(chunk.images) == 1, (number, title)
    (code_lists,) = [c for c in run.document.chunks if c.heading_path == ["5 Code lists"]]
    assert code_lists.page_idxs == [2 + len(DIAGRAM_SECTIONS)] and not code_lists.images
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


def _header(page: int, text: str) -> tuple[dict, ItemText]:
    return {"type": "header", "page_idx": page, "bbox": [120, 40, 480, 60]}, ItemText(text=text)


@pytest.mark.parametrize(("head", "is_furniture"), [("Findings", True), ("Pump", False)])
def test_a_header_opening_the_lines_at_its_place_runs_only_up_to_a_words_end(head, is_furniture):
    """Isolates the rule for a running line MinerU merged with what stands under it, on
    MinerU-shaped items: "Findings" opens "Findings 4 Results …" on the other pages, so it runs;
    "Pump" only begins the word "Pumping", so it is a page's own header, read as body text."""
    pairs = [_header(0, head)]
    pairs += [
        _header(page, f"{head}{'' if is_furniture else 'ing'} {page} stations of district {page}")
        for page in (1, 2, 3, 4)
    ]
    items, texts = [p[0] for p in pairs], [p[1] for p in pairs]
    found, demoted = furniture.running_furniture(items, texts, n_pages=20)
    assert (0 in found, 0 in demoted) == (is_furniture, not is_furniture)


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


def test_a_heading_wrapped_in_a_narrow_column_and_merged_into_its_paragraph_is_cut_out_whole(runs):
    """MinerU reads "3.2 Improvement … and their" / "connections to rail stations" and the
    paragraph under them as one block; both heading lines are bold (the font is no single
    line's), and the chunk of 3.1 ran across 3.2."""
    run = runs["plan"]
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    for number, title in MEASURES:
        assert any(path[-1] == f"{number} {title}" for path in paths), number
    assert ("3 Transport measures", f"3.2 {MEASURES[1][1]}", "3.2.1 Interchange at the main station") in paths
    for chunk in run.document.chunks:
        lines = [line for line in chunk.text.split("\n") if line.strip()]
        assert not any(re.match(r"\d\.\d(\.\d)? [A-Z]", line) for line in lines), chunk.text[:80]
    assert run.checks["text_verbatim"].passed


@pytest.mark.parametrize("case", ["chapter_pages", "damaged"])
def test_a_chapter_title_and_its_first_section_merged_at_the_top_are_two_headings(runs, case):
    """MinerU types "1 Measures of group A services" and "1.1 District X of group A" one header
    item on each page (the chapter's bare number comes before the next number expected); the
    damaged copy (its cross-reference table wrong) comes out the same."""
    run = runs[case]
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    for chapter, group in enumerate(GROUPS, 1):
        title = f"{chapter} Measures of group {group} services"
        for section, district in enumerate("XYZ", 1):
            assert (title, f"{chapter}.{section} District {district} of group {group}") in paths
    assert run.checks["text_verbatim"].passed and run.checks["text_coverage"].passed


def test_a_section_name_merged_with_each_pages_heading_is_furniture_and_the_heading_opens(runs):
    """ "Findings" over "1 Results for the northern district" is one header item on every page:
    the heading is cut out of it, and the name that opens it on every page is a running head."""
    run = runs["running_name"]
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    for n, district in enumerate(AREAS + ["coastal"], 1):
        assert (f"{n} Results for the {district} district",) in paths, district
    assert not any("Findings" in chunk.text for chunk in run.document.chunks)
    assert run.checks["text_verbatim"].passed


def test_a_headings_line_carried_over_a_page_break_joins_it(runs):
    """The line at the next page's top, in the heading's font and starting in lowercase as no
    title does, ends the heading (it was the first line of the section's text)."""
    run = runs["carried"]
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    assert ("2 Pipe network", " ".join(CARRIED)) in paths
    assert ("2 Pipe network", "2.2 Pumping stations") in paths and ("3 Code lists",) in paths
    assert not any(CARRIED[1] in chunk.text for chunk in run.document.chunks)
    assert run.checks["text_verbatim"].passed


def test_a_bodiless_headings_chunk_is_its_items_text_not_the_line_joining_them(runs):
    """A heading whose two lines are two items, with no text under it, keeps a chunk: its text
    is the two items' text as the chunker joins items, the joined line only its heading."""
    run = runs["carried_bodiless"]
    (chunk,) = [c for c in run.document.chunks if c.heading_path == ["2 Pipe network", " ".join(CARRIED)]]
    assert chunk.text == "\n\n".join(CARRIED) and chunk.heading == " ".join(CARRIED)[4:]
    assert ("2 Pipe network", "2.2 Pumping stations") in [tuple(c.heading_path) for c in run.document.chunks]
    assert run.checks["text_verbatim"].passed
