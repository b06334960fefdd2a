"""Sample PDFs the project generates: the shipped drop-folder samples and test documents.

`python -m kb_pipeline_tests.samples DIR` writes the samples that ship in `data/knowledge_docs/`.
They are made here, with reportlab (a dev-only dependency, hence in the tests package, not in
kb_pipeline), so the repository redistributes nothing it does not own.
The standard-shaped one mirrors the parsing contract's reference document: numbered headings
1. / 2.1. / 2.1.1., a product formula, a ruled table of numbers, a figure, a running header and
page numbers in the footer.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path


def _styles():
    from reportlab.lib.styles import getSampleStyleSheet

    return getSampleStyleSheet()


def _figure_png() -> bytes:
    """A small bar chart drawn with Pillow (a MinerU dependency), so the PDF embeds a raster."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (480, 260), "white")
    draw = ImageDraw.Draw(image)
    draw.line([(40, 220), (460, 220)], fill="black", width=2)
    draw.line([(40, 20), (40, 220)], fill="black", width=2)
    for i, height in enumerate([150, 120, 180, 90]):
        x = 70 + i * 100
        draw.rectangle([x, 220 - height, x + 60, 220], fill=(60, 110, 170))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _page_furniture(header: str):
    from reportlab.lib.pagesizes import A4

    def draw(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(72, A4[1] - 40, header)
        canvas.drawCentredString(A4[0] / 2, 30, f"{doc.page}")
        canvas.restoreState()

    return draw


def standard_pdf(path: Path) -> None:
    """A production-parameter standard, shaped like the contract's reference document."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import cm
    from reportlab.platypus import Image, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    ss = _styles()
    doc = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        title="Standard Parameter Produksi",
        invariant=True,
        topMargin=2.2 * cm,
        bottomMargin=2 * cm,
    )
    table = Table(
        [
            ["Unit", "PA (%)", "UA (%)", "Produksi (BCM/jam)"],
            ["HD785", "90", "85", "5600"],
            ["PC2000", "88", "80", "1250"],
            ["D375A", "92", "78", "730"],
        ],
        style=TableStyle(
            [("GRID", (0, 0), (-1, -1), 0.8, colors.black), ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey)]
        ),
    )
    story = [
        Paragraph("Standard Parameter Produksi &amp; ECA", ss["Title"]),
        Paragraph("1. PENDAHULUAN", ss["Heading1"]),
        Paragraph(
            "Standard Parameter ini merupakan pedoman dalam perhitungan parameter produksi yang "
            "meliputi Qty, PA, UA dan PTY. Dokumen ini berlaku untuk seluruh site operasi.",
            ss["BodyText"],
        ),
        Paragraph("2. PENJELASAN PARAMETER", ss["Heading1"]),
        Paragraph("2.1. Production Parameter", ss["Heading2"]),
        Paragraph("2.1.1. Production", ss["Heading3"]),
        Paragraph(
            "Adalah serangkaian kegiatan yang dilakukan untuk menciptakan nilai tambah terhadap "
            "sumber daya. Produksi dihitung dengan rumus berikut:",
            ss["BodyText"],
        ),
        Paragraph("Production = MOHH x Qty x PA x UA x Pty", ss["Code"]),
        Paragraph("2.1.2. Quantity (Qty)", ss["Heading3"]),
        Paragraph(
            "Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi dalam suatu "
            "periode. Nilai target adalah 5600 BCM per hari.",
            ss["BodyText"],
        ),
        PageBreak(),
        Paragraph("2.1.3. Physical of Availability (PA)", ss["Heading3"]),
        Paragraph("PA menyatakan persentase waktu unit siap beroperasi. Target per unit:", ss["BodyText"]),
        Paragraph("Tabel 1. Target PA dan UA per unit", ss["BodyText"]),
        table,
        Spacer(1, 12),
        Paragraph("PA = (Total Hours - Breakdown Hours) / Total Hours x 100%", ss["Code"]),
        Paragraph("2.2. Efficiency Parameter", ss["Heading2"]),
        Paragraph(
            "Efisiensi dipantau setiap shift. Grafik berikut menunjukkan produksi rata-rata per "
            "minggu pada kuartal pertama.",
            ss["BodyText"],
        ),
        Image(io.BytesIO(_figure_png()), width=10 * cm, height=5.4 * cm),
        Paragraph("Gambar 1. Produksi rata-rata mingguan (BCM)", ss["BodyText"]),
        Paragraph("3. PENUTUP", ss["Heading1"]),
        Paragraph("Parameter di atas ditinjau ulang setiap tahun oleh departemen produksi.", ss["BodyText"]),
    ]
    furniture = _page_furniture("STD-2026-006 Standard Parameter Produksi")
    doc.build(story, onFirstPage=furniture, onLaterPages=furniture)


def manual_pdf(path: Path) -> None:
    """A short maintenance manual: roman-numbered sections, lettered subsections, a list."""
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    ss = _styles()
    doc = SimpleDocTemplate(str(path), title="Pump Maintenance Manual", invariant=True)
    story = [
        Paragraph("Pump Maintenance Manual", ss["Title"]),
        Paragraph("I. SCOPE", ss["Heading1"]),
        Paragraph(
            "This manual covers routine maintenance of the P-100 centrifugal pump series used "
            "in dewatering. It applies to every unit installed after 2019.",
            ss["BodyText"],
        ),
        Paragraph("II. PROCEDURES", ss["Heading1"]),
        Paragraph("A. Daily inspection", ss["Heading2"]),
        Paragraph(
            "Check the seal for leaks, the bearing temperature (below 85 °C) and the discharge "
            "pressure (between 3.5 and 4.2 bar).",
            ss["BodyText"],
        ),
        Paragraph("B. Monthly service", ss["Heading2"]),
        Paragraph(
            "Replace the lubricant every 500 operating hours and record the vibration level. "
            "Efficiency is computed as eta = Q x H / (367 x P).",
            ss["BodyText"],
        ),
        Paragraph("III. REFERENCES", ss["Heading1"]),
        Paragraph("Manufacturer datasheet P-100, revision 4.", ss["BodyText"]),
    ]
    furniture = _page_furniture("Pump Maintenance Manual — P-100")
    doc.build(story, onFirstPage=furniture, onLaterPages=furniture)


def text_pdf(path: Path, paragraphs: list[str], title: str = "Test document", **build) -> None:
    """A plain text PDF: one paragraph per entry. `build` goes to reportlab (e.g. `encrypt`)."""
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    ss = _styles()
    doc = SimpleDocTemplate(str(path), title=title, invariant=True, **build)
    doc.build([Paragraph(p, ss["BodyText"]) for p in paragraphs])


def story_pdf(path: Path, story: list[tuple[str, str | list[list[str]]]], title: str) -> None:
    """A PDF of (style, content) paragraphs, one style of reportlab's sample sheet each
    ("Heading1", "BodyText", "Code", …), or "display", a centred line as papers set an equation,
    "field", body text set apart from the paragraph above (an API reference's field list), or
    "table", whose content is rows of cells drawn as a ruled two-column table."""
    from reportlab.lib import colors
    from reportlab.lib.enums import TA_CENTER
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    ss = _styles()
    display = ParagraphStyle("display", parent=ss["BodyText"], alignment=TA_CENTER, spaceBefore=6, spaceAfter=6)
    field = ParagraphStyle("field", parent=ss["BodyText"], spaceBefore=14)
    flow = []
    for style, content in story:
        if style == "table":
            grid = TableStyle([("GRID", (0, 0), (-1, -1), 0.8, colors.black), ("VALIGN", (0, 0), (-1, -1), "TOP")])
            cells = [[Paragraph(c, ss["BodyText"]) for c in row] for row in content]
            flow += [Table(cells, colWidths=[120, 300], style=grid), Spacer(1, 12)]
        else:
            assert isinstance(content, str)
            flow.append(Paragraph(content, {"display": display, "field": field}.get(style) or ss[style]))
    SimpleDocTemplate(str(path), title=title, invariant=True).build(flow)


def write_with_second_page_turned(drawn: io.BytesIO, path: Path, *, shown_upright: bool = True) -> None:
    """Write the A4 document `drawn` to `path` with its second page's content turned a quarter
    anticlockwise on a portrait page (an exact transformation), and, `shown_upright`, that page
    marked `/Rotate 90`, so that a viewer shows it as an upright landscape page."""
    import pypdf
    from pypdf import Transformation
    from pypdf.generic import RectangleObject
    from reportlab.lib.pagesizes import A4

    width, height = A4
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(drawn))
    page = writer.pages[1]
    page.add_transformation(Transformation((0, 1, -1, 0, width, 0)))  # exact quarter turn
    page.mediabox = RectangleObject([0, 0, width, height])
    if shown_upright:
        page.rotate(90)
    with path.open("wb") as f:
        writer.write(f)


def math_paper_pdf(path: Path) -> None:
    """A six-page mathematics paper: numbered sections, theorem-like paragraphs opened by a bold
    run-in label on a line of its own ("Definition 1.", "Proposition 3."), and alternating
    running heads from page 2 on, next to the page number, as journals set them: the authors
    on even pages (three), a short title on odd ones (two)."""
    import random

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    ss = _styles()
    label = ParagraphStyle("label", parent=ss["BodyText"], fontName="Helvetica-Bold", spaceBefore=8)
    vocabulary = (
        "operator subspace sequence partial sums converges norm bounded family coefficients finite set "
        "closed dense linear map kernel image basis dual space weak topology compact embedding "
        "measure integral limit inequality estimate constant function domain boundary value "
        "eigenvalue spectrum resolvent semigroup generator trace class ideal lattice order"
    ).split()
    rng = random.Random(21)  # fixed: the same PDF every time

    def prose(sentences: int) -> str:
        # Varied words, so that no body line repeats at the top of two pages like a running head.
        return " ".join(
            " ".join(rng.choice(vocabulary) for _ in range(14)).capitalize() + "." for _ in range(sentences)
        )

    story = [
        Paragraph("Convergence of partial sums in closed subspaces", ss["Title"]),
        Paragraph("J. Aligon, P. Marcel and E. Negre", ss["BodyText"]),
    ]
    labels = iter(["Definition 1.", "Lemma 2.", "Proposition 3.", "Proof.", "Theorem 4 (Main result).", "Remark 5."])
    for number, name in enumerate(["Introduction", "Preliminaries", "Main results", "Applications"], start=1):
        story.append(Paragraph(f"{number} {name}", ss["Heading2"]))
        story.append(Paragraph(prose(26), ss["BodyText"]))
        for _ in range(2 if number > 1 else 0):
            story.append(Paragraph(next(labels), label))
            story.append(Paragraph(prose(22), ss["BodyText"]))

    def running_head(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 9)
        top = A4[1] - 40
        if doc.page % 2 == 0:
            canvas.drawString(72, top, str(doc.page))
            canvas.drawString(110, top, "J. Aligon et al.")
        else:
            canvas.drawRightString(A4[0] - 110, top, "Partial sums in subspaces")
            canvas.drawRightString(A4[0] - 72, top, str(doc.page))
        canvas.restoreState()

    doc = SimpleDocTemplate(str(path), title="Convergence of partial sums", invariant=True)
    doc.build(story, onLaterPages=running_head)


def long_pdf(
    path: Path,
    pages: int,
    *,
    lines_per_page: int = 40,
    heading_every: int = 20,
    seams: dict[int, str] | None = None,
    title: str = "Long handbook",
) -> None:
    """A long text PDF of exactly `pages` A4 pages: `lines_per_page` lines of body text a page,
    a numbered heading ("k. Section k") opening every `heading_every`-th page, a running header
    and a page number. `seams` maps a page number to "paragraph" or "table": one paragraph, or
    one ruled table, that starts on that page and continues on the next (the case a page window
    boundary must not split). Drawn on the canvas, so it is fast for thousands of pages."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas as pdf_canvas

    seams = seams or {}
    width, height = A4
    words = (
        "the pump station operates under the maintenance plan and each valve is checked at every "
        "shift while the operator records pressure flow and temperature readings"
    ).split()
    top, left, step = height - 80, 72, 17

    def line(n: int) -> str:
        return " ".join(words[(n * 5 + i) % len(words)] for i in range(12))

    c = pdf_canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setTitle(title)
    n_line = 0
    section = 0
    for page in range(1, pages + 1):
        c.setFont("Helvetica", 8)
        c.drawString(left, height - 40, f"{title} - rev. 3")
        c.drawCentredString(width / 2, 30, str(page))
        y = top
        rows = lines_per_page
        if (page - 1) % heading_every == 0:
            section += 1
            c.setFont("Helvetica-Bold", 14)
            c.drawString(left, y, f"{section}. Section {section} of the handbook")
            y -= 28
            rows -= 2
        seam = seams.get(page) or seams.get(page - 1)
        starts_seam = page in seams
        if seam == "table" and not starts_seam:
            y = _table_rows(c, page, False, left, y + 10) - 24
        c.setFont("Helvetica", 10)
        for r in range(rows):
            if seam == "table" and (starts_seam and r >= rows - 8 or not starts_seam and r < 8):
                continue
            text = line(n_line)
            n_line += 1
            # A paragraph ends with a full stop after every 6 lines; the seam paragraph runs on
            # over the page break (no full stop on this page's last lines or the next's first).
            in_seam_par = seam == "paragraph" and (starts_seam and r >= rows - 6 or not starts_seam and r < 6)
            if r % 6 == 5 and not in_seam_par:
                text += "."
            if r % 6 == 0 and r and not (seam == "paragraph" and not starts_seam and r == 6) and not in_seam_par:
                y -= 6  # paragraph gap
            c.drawString(left, y, text)
            y -= step - 3
        if seam == "table" and starts_seam:
            _table_rows(c, page, True, left, y)
        c.showPage()
    c.save()


def _table_rows(c, page: int, first_part: bool, left: float, y: float) -> float:
    """Half of a ruled 4-column table: the first part ends a page, the second opens the next.
    Returns the y of the table's bottom rule."""
    col = [0, 110, 220, 330, 440]
    rows = [["Unit", "Pressure (bar)", "Flow (m3/h)", "Status"]] if first_part else []
    start = 0 if first_part else 6
    rows += [
        [f"P-{100 + page + i}", f"{3 + (i % 5) * 0.2:.1f}", f"{120 + i * 7}", "ok" if i % 3 else "check"]
        for i in range(start, start + 6)
    ]
    if first_part:
        y -= 20
    row_h = 16
    c.setFont("Helvetica", 9)
    for r, cells in enumerate(rows):
        top_y = y - r * row_h
        for x0, cell in zip(col, cells):
            c.drawString(left + x0 + 4, top_y - 12, cell)
        c.line(left, top_y, left + col[-1], top_y)
    bottom_y = y - len(rows) * row_h
    c.line(left, bottom_y, left + col[-1], bottom_y)
    for x0 in col:
        c.line(left + x0, y, left + x0, bottom_y)
    return bottom_y


def glossary_pdf(path: Path) -> None:
    """A one-page glossary laid out in two columns, terms left and definitions right, where one
    definition block runs into the next term's: "Cycle time (CT)" has no block of its own, and
    which sentence of the block before it defines it is for the language model to pick (the
    case the embedded model is there for; `make run` shows its calls)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas as pdf_canvas

    c = pdf_canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setTitle("Haulage Terms")
    y = A4[1] - 80
    for font, size, text, gap in (
        ("Helvetica-Bold", 18, "Haulage Terms", 40),
        ("Helvetica-Bold", 13, "1. Purpose", 22),
        ("Helvetica", 10, "This glossary defines the haulage terms used in the site's production reports.", 36),
        ("Helvetica-Bold", 13, "2. Glossary", 28),
    ):
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= gap
    entries = [
        (
            "Haul road",
            [
                "A road built for trucks that carry ore or waste from the pit",
                "to the dump. The time a loaded truck takes to travel from the",
                "loading point to the dump and back. It is measured from the",
                "dispatch system's records.",
            ],
        ),
        ("Cycle time (CT)", []),
        (
            "Payload",
            ["The mass of material a truck carries in one trip, read from", "the truck's on-board weighing system."],
        ),
        ("Queue time", ["The time a truck waits at the loading point before it is loaded."]),
    ]
    c.setFont("Helvetica", 10)
    for term, lines in entries:
        c.drawString(72, y, term)
        below = y
        for line in lines:
            c.drawString(200, below, line)
            below -= 13
        y = min(y - 13, below) - 12
    c.showPage()
    c.save()


SAMPLES = {"STD_2026_006_parameter_produksi.pdf": standard_pdf, "pump_maintenance_manual.pdf": manual_pdf}
# Shipped for `make run` to show the language model at work, but not the tests' drop-folder
# input (each would ask the model); tests use it by name.
DEMO_SAMPLES = {"haulage_glossary.pdf": glossary_pdf}


def write_samples(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in {**SAMPLES, **DEMO_SAMPLES}.items():
        make(folder / name)
        written.append(folder / name)
    return written


if __name__ == "__main__":
    for written in write_samples(Path(sys.argv[1] if len(sys.argv) > 1 else "data/knowledge_docs")):
        print(written)
