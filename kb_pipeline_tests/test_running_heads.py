"""Running heads MinerU types as body text (issue 29), on generated papers parsed by the real
MinerU (flash). Set with wide margins, the heads stand below the 12 % band; MinerU calls them
text. They are each page's first (or last) line at the same place on most pages, so they are
furniture; a line that recurs in the body (a warning, a table's repeated header row, a source
note under a table on two pages) is not."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kb_pipeline.normalise import furniture
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pipeline import Parsing, process_document

N_PAGES = 8


def paper_pdf(path: Path, texts: dict[str, str], head_from_edge: float, footer: bool) -> None:
    """An 8-page paper, a section a page: the short title on even pages and the authors on odd
    ones (from page 3) at `head_from_edge` points below the top, the journal's mark as far above
    the bottom on every page (`footer`), a warning opening sections 2, 4 and 6 and closing 3,
    a table on pages 2 and 4 with a source note under it, and a table that runs over pages 6
    and 7 with its header row repeated."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

    ss = getSampleStyleSheet()
    width, height = A4

    def furniture(c, doc) -> None:
        c.saveState()
        c.setFont("Times-Italic", 9)
        if doc.page % 2 == 0:
            c.drawString(72, height - head_from_edge, texts["short_title"])
        elif doc.page > 1:
            c.drawRightString(width - 72, height - head_from_edge, texts["authors"])
        if footer:
            c.drawString(72, head_from_edge - 9, texts["mark"])
        c.restoreState()

    grid = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])
    story = [Paragraph(texts["title"], ss["Title"])]
    for section in range(1, N_PAGES + 1):
        story.append(Paragraph(f"{section} {texts['section']} {section}", ss["Heading1"]))
        if section in (2, 4, 6):
            story.append(Paragraph(texts["warning"], ss["BodyText"]))
        for k in range(3 if section in (2, 4) else 4):
            story.append(Paragraph(texts["body"].format(f"{section}.{k}"), ss["BodyText"]))
        if section == 3:
            story.append(Paragraph(texts["warning"], ss["BodyText"]))
        if section in (2, 4):
            story.append(Table([texts["header"], ["S1", "101", "601"], ["S2", "102", "602"]], style=grid))
            story.append(Paragraph(texts["source"], ss["BodyText"]))
        if section == 6:
            rows = [texts["header"], *[[f"S{n}", str(100 + n), str(600 + n)] for n in range(45)]]
            story.append(Table(rows, style=grid, repeatRows=1))
        story.append(PageBreak())
    SimpleDocTemplate(
        str(path), pagesize=A4, invariant=True, topMargin=head_from_edge + 12, bottomMargin=head_from_edge + 12
    ).build(story[:-1], onFirstPage=furniture, onLaterPages=furniture)


ENGLISH = {
    "title": "Groundwater recharge in boreal catchments",
    "short_title": "Recharge in boreal catchments",
    "authors": "M. Lindqvist et al.",
    "mark": "HydroNordic Review",
    "section": "Measurements at site",
    "warning": "Warning: samples must be kept below four degrees until they are analysed.",
    "body": "The measurements of series {} were taken at the outflow of the catchment, where the stream "
    "leaves the peat bog, and compared with the rainfall of the same weeks at the nearest station.",
    "header": ["Station", "Recharge (mm)", "Rainfall (mm)"],
    "source": "Source: national hydrological survey, station records.",
}
GERMAN = {
    "title": "Grundwasserneubildung in borealen Einzugsgebieten",
    "short_title": "Neubildung in borealen Gebieten",
    "authors": "K. Brandstätter u. a.",
    "mark": "Hydrologische Mitteilungen",
    "section": "Messungen am Standort",
    "warning": "Achtung: Die Proben sind bis zur Analyse unter vier Grad zu lagern.",
    "body": "Die Messungen der Reihe {} wurden am Auslass des Einzugsgebiets vorgenommen, wo der Bach "
    "das Moor verlässt, und mit dem Niederschlag derselben Wochen an der nächsten Station verglichen.",
    "header": ["Station", "Neubildung (mm)", "Niederschlag (mm)"],
    "source": "Quelle: Landesamt für Hydrologie, Stationsdaten.",
}


@pytest.fixture(scope="module")
def runs(parses, tmp_path_factory):
    folder = tmp_path_factory.mktemp("heads")
    out = {}
    # English: heads and mark 140 pt from the edges; German: the usual 40 pt, and no mark, so
    # the source notes are the last lines of their pages.
    for name, texts, edge, footer in [("en", ENGLISH, 140, True), ("de", GERMAN, 40, False)]:
        pdf = folder / f"{name}.pdf"
        paper_pdf(pdf, texts, edge, footer)
        out[name] = (texts, parses.run(pdf))
    return out


def _text(run) -> str:
    return "\n".join(chunk.text for chunk in run.document.chunks)


@pytest.mark.parametrize("name", ["en", "de"])
def test_running_heads_are_furniture_even_when_mineru_calls_them_text(runs, name):
    texts, run = runs[name]
    raw = load_raw_output(run.raw.path)
    typed = {item["type"] for item in raw.items if item.get("text", "").strip() == texts["authors"]}
    if name == "en":
        assert typed == {"text"}  # the point: MinerU's label does not say it
    text = _text(run)
    for line in ("short_title", "authors", "mark"):
        assert texts[line] not in text, line
    assert run.checks["text_verbatim"].passed


@pytest.mark.parametrize("name", ["en", "de"])
def test_lines_that_recur_in_the_body_are_kept(runs, name):
    texts, run = runs[name]
    text = _text(run)
    assert text.count(texts["warning"]) == 4
    assert text.count(texts["source"]) == 2  # on pages 2 and 4: body text, last lines or not
    header = " | ".join(texts["header"])
    assert sum(chunk.text.count(header) for chunk in run.document.chunks if chunk.kind == "table") >= 3
    assert run.checks["text_coverage"].passed


def data_model_pdf(path: Path, title: str) -> None:
    """A 3-page data-model standard whose own title is its running head and recurs as the title
    of sections 2 and 3, each opening a page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    ss = getSampleStyleSheet()
    body = (
        "The model describes each asset of the network with its identifier, its location and the date "
        "it was put into service, so that records can be exchanged."
    )

    def head(c, doc) -> None:
        c.saveState()
        c.setFont("Helvetica", 8)
        c.drawString(72, A4[1] - 40, title)
        c.drawCentredString(A4[0] / 2, 30, str(doc.page))
        c.restoreState()

    story = [Paragraph(title, ss["Title"]), Paragraph("1 Scope", ss["Heading1"]), Paragraph(body, ss["BodyText"])]
    for number, section, subsections in [
        ("2", title, ["Entities", "Attributes"]),
        ("3", title, ["Metering", "Billing"]),
        ("4", "Conformance", ["Levels", "Testing"]),
    ]:
        story += [Paragraph(f"{number} {section}", ss["Heading1"]), Paragraph(body, ss["BodyText"])]
        for k, subsection in enumerate(subsections, 1):
            story += [Paragraph(f"{number}.{k} {subsection}", ss["Heading2"]), *[Paragraph(body, ss["BodyText"])] * 3]
        story.append(PageBreak())
    SimpleDocTemplate(str(path), pagesize=A4, invariant=True).build(story[:-1], onFirstPage=head, onLaterPages=head)


def test_the_documents_title_recurring_as_a_section_title_opens_its_section(tmp_path, layout):
    """MinerU types "3 Open Data Model …" at the top of page 2 a header, as it does the running
    head above it: the same words, page numbers aside. The running head is the line at its own
    place on every page; the section title, below it, opens section 3 (which was lost, its
    subsections put under section 2)."""
    title = "Open Data Model for Water Utilities"
    pdf = tmp_path / "data_model.pdf"
    data_model_pdf(pdf, title)
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    paths = [tuple(chunk.heading_path) for chunk in run.document.chunks]
    assert (f"3 {title}", "3.1 Metering") in paths
    assert (f"2 {title}", "2.2 Attributes") in paths
    assert not any(f"2 {title}" in path and "3.1 Metering" in path for path in paths)
    # The running head itself stays furniture, on every page.
    assert not any(chunk.text.startswith(title) for chunk in run.document.chunks if chunk.page_idx > 0)
    assert run.checks["text_verbatim"].passed


def test_pages_at_place_counts_what_the_definition_says():
    # The sliding window (linear in a long document) against the definition read literally: for
    # each item, the pages of its group within `_PLACE` of its place, and whether they share a parity.
    rng = random.Random(7)
    for _ in range(50):
        items = [
            {"page_idx": rng.randrange(12), "bbox": [0, top, 1000, top + 10]}
            for top in (rng.choice([30, 38, 45, 60, 61, 90]) for _ in range(rng.randrange(1, 30)))
        ]
        group = list(range(len(items)))
        found = furniture._pages_at_place(group, items, margin=False)
        for i in group:
            pages = {
                items[j]["page_idx"]
                for j in group
                if abs(items[j]["bbox"][1] - items[i]["bbox"][1]) <= furniture._PLACE
            }
            assert found[i] == (len(pages), len({p % 2 for p in pages}) == 1)
