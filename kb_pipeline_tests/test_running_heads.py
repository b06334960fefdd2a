"""Running heads MinerU types as body text (issue 29), on generated papers parsed by the real
MinerU (flash). Set with wide margins, the heads stand below the 12 % band; MinerU calls them
text. They are each page's first (or last) line at the same place on most pages, so they are
furniture; a line that recurs in the body (a warning, a table's repeated header row, a source
note under a table on two pages) is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.paths import DataLayout
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
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("heads")
    parsing = Parsing.in_process(ParserConfig(), DataLayout(folder / "data"))
    out = {}
    # English: heads and mark 140 pt from the edges; German: the usual 40 pt, and no mark, so
    # the source notes are the last lines of their pages.
    for name, texts, edge, footer in [("en", ENGLISH, 140, True), ("de", GERMAN, 40, False)]:
        pdf = folder / f"{name}.pdf"
        paper_pdf(pdf, texts, edge, footer)
        out[name] = (texts, process_document(pdf, parsing))
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
