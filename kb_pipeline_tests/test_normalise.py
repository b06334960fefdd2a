"""The normaliser on real MinerU 4.0.12 flash output (../shared/fixtures, and a PDF MinerU
parses here): the contract's boundary rules, verbatim text, headings, furniture."""

from __future__ import annotations

import re
from functools import cache

import pytest

from kb_pipeline.contracts import CHUNK_ID_PATTERN, Chunk
from kb_pipeline.normalise import build_chunks
from kb_pipeline.normalise.drafts import ITEM_SEPARATOR, MAX_CHUNK_CHARS
from kb_pipeline.normalise.furniture import running_furniture
from kb_pipeline.normalise.headings import HeadingTracker, heading_rejection, looks_like_page_number, numbered
from kb_pipeline.normalise.item_text import ItemText, item_text
from kb_pipeline.normalise.layer_text import formula_text
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.parsing.raw_output import RawOutput, load_raw_output
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.pipeline import Parsing, process_document
from kb_pipeline.quality.verbatim import source_pieces, verbatim_violations
from kb_pipeline_tests.samples import text_pdf

from .conftest import FIXTURE_NAMES, FIXTURE_PDFS, MINERU_FIXTURES, TEXT_FIXTURES

_FURNITURE = {"header", "footer", "page_number", "aside_text"}


@cache
def normalised(name: str) -> tuple[RawOutput, tuple[Chunk, ...]]:
    raw = load_raw_output(MINERU_FIXTURES / name)
    with PdfTextLayer(FIXTURE_PDFS / f"{name}.pdf") as text_layer:
        return raw, tuple(build_chunks(name, raw, text_layer))


def _is_heading_item(item: dict) -> bool:
    return item["type"] == "text" and bool(item.get("text_level"))


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_every_chunk_is_made_of_verbatim_pieces_of_its_source_items(name):
    raw, chunks = normalised(name)
    with PdfTextLayer(FIXTURE_PDFS / f"{name}.pdf") as text_layer:
        for chunk in chunks:
            assert verbatim_violations(chunk, source_pieces(chunk, raw, text_layer)) == [], chunk.chunk_id


def _v1_unrendered(text: str) -> str:
    """content_list.json's Markdown rendering, undone independently of the normaliser."""
    text = re.sub(r"</?(sub|sup)>", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("**", "")
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!$|~<>])", r"\1", text)


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_paragraph_text_equals_mineru_item_text_without_markdown(name):
    """Cross-checks the v2 raw spans against v1's rendered strings: no word changed, no markup left."""
    raw, chunks = normalised(name)
    checked = 0
    for chunk in chunks:
        for index in chunk.source_items:
            item = raw.items[index]
            if item["type"] == "text" and not re.search(r"\\|<|\*\*|\]\(", item["text"]):
                assert item["text"] in chunk.text
            elif item["type"] == "text":
                assert _v1_unrendered(item["text"]) in chunk.text, (chunk.chunk_id, index)
                checked += 1
    if name in ("demo1", "demo3"):
        assert checked > 0  # these fixtures hold escaped and <sub>/<sup> text: the path ran


def test_verbatim_check_catches_a_reflowed_text():
    raw, chunks = normalised("demo1")
    chunk = next(c for c in chunks if c.kind == "text" and " the " in c.text and ", " in c.text)
    with PdfTextLayer(FIXTURE_PDFS / "demo1.pdf") as text_layer:
        pieces = source_pieces(chunk, raw, text_layer)
    # A line break inside a paragraph, and whitespace normalised: both change an item's words.
    reflowed = chunk.model_copy(update={"text": chunk.text.replace(", ", ",\n", 1)})
    squeezed = chunk.model_copy(update={"text": chunk.text.replace(" ", "  ", 1)})
    cleaned = chunk.model_copy(update={"text": chunk.text.replace(" the ", " teh ", 1)})
    assert verbatim_violations(chunk, pieces) == []
    assert verbatim_violations(reflowed, pieces)
    assert verbatim_violations(squeezed, pieces)
    assert verbatim_violations(cleaned, pieces)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_no_chunk_crosses_a_heading(name):
    raw, chunks = normalised(name)
    heading_items = [
        i for i, item in enumerate(raw.items) if _is_heading_item(item) and heading_rejection(item["text"]) is None
    ]
    for chunk in chunks:
        if chunk.heading_path and " ".join(chunk.text.split(ITEM_SEPARATOR)) == chunk.heading_path[-1]:
            # A section with no body keeps its heading's items as its one chunk.
            assert all(_is_heading_item(raw.items[i]) for i in chunk.source_items), chunk.chunk_id
            continue
        first, last = min(chunk.source_items), max(chunk.source_items)
        assert not [i for i in heading_items if first < i <= last], chunk.chunk_id
        assert not [i for i in chunk.source_items if i in heading_items]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_one_table_or_chart_per_chunk_and_nothing_else_in_it(name):
    raw, chunks = normalised(name)
    for chunk in chunks:
        kinds = [raw.items[i]["type"] for i in chunk.source_items]
        if chunk.kind in ("table", "chart"):
            assert kinds == [chunk.kind]
            assert chunk.is_tabular == (chunk.kind == "table")
        else:
            assert "table" not in kinds and "chart" not in kinds
    n_tables = sum(item["type"] == "table" for item in raw.items)
    assert sum(c.kind == "table" for c in chunks) == n_tables


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_page_furniture_never_enters_text(name):
    """Running furniture (what repeats in the top or bottom band) stays out of `text`; a one-off
    "header" MinerU typed by position alone is body text and is kept."""
    raw, chunks = normalised(name)
    texts = [item_text(v2) for v2 in raw.items_v2]
    furniture, demoted = running_furniture(raw.items, texts, raw.n_pages)
    assert not furniture & demoted
    assert all(raw.items[i]["type"] in ("header", "footer", "aside_text") for i in demoted)
    in_chunks = {i for chunk in chunks for i in chunk.source_items}
    assert not in_chunks & furniture
    assert {i for i in demoted if texts[i].text.strip()} <= in_chunks
    for chunk in chunks:
        for i in furniture:
            text = raw.items[i].get("text", "")
            if raw.items[i]["type"] in ("header", "footer") and len(text) > 10:
                assert text not in chunk.text


def test_running_furniture_is_what_repeats_in_the_page_bands():
    """Isolates the repetition rule on hand-made items: a footer on every page (with its page
    number) is furniture, also on the page where MinerU typed it as text; a "header" seen once
    is body text."""
    items, texts = [], []
    for page in range(6):
        items.append({"type": "footer" if page else "text", "page_idx": page, "bbox": [100, 950, 900, 970]})
        texts.append(ItemText(text=f"Safety manual, rev. B - page {page + 1}"))
    items.append({"type": "header", "page_idx": 2, "bbox": [100, 30, 900, 60]})
    texts.append(ItemText(text="TABLE OF CONTENTS (continued)"))
    furniture, demoted = running_furniture(items, texts, n_pages=6)
    assert furniture == set(range(6)) and demoted == {6}


def test_a_title_recurring_under_another_number_is_not_running_furniture():
    """Two sections with one title ("2.1 LRS model", "3.1 LRS model"): the second, typed
    "header" at the top of its page, repeats no line, so it is body text, not furniture; a
    running header naming one section on every page still is."""
    items = [
        {"type": "text", "text_level": 1, "page_idx": 1, "bbox": [100, 400, 900, 420]},
        {"type": "header", "page_idx": 4, "bbox": [100, 30, 900, 60]},
    ]
    texts = [ItemText(text="2.1 LRS model"), ItemText(text="3.1 LRS model")]
    for page in range(6):
        items.append({"type": "header", "page_idx": page, "bbox": [100, 60, 900, 80]})
        texts.append(ItemText(text=f"{page + 1} 4.2 Results"))
    furniture, demoted = running_furniture(items, texts, n_pages=6)
    assert demoted == {1} and furniture == set(range(2, 8))


def test_body_text_on_two_pages_of_one_parity_is_not_furniture():
    """Isolates the parity rule on hand-made items: in an 8-page report, two source notes at the
    foot of pages 2 and 4 (the same line, digits aside) are text; a header on pages 2, 4 and 6
    only, an alternating running head, is furniture."""
    items = [
        {"type": "text", "page_idx": 1, "bbox": [100, 900, 900, 920]},
        {"type": "text", "page_idx": 3, "bbox": [100, 900, 900, 920]},
    ]
    texts = [
        ItemText(text="Source: Ministry of Energy, 2021 survey."),
        ItemText(text="Source: Ministry of Energy, 2022 survey."),
    ]
    for page in (1, 3, 5):
        items.append({"type": "header", "page_idx": page, "bbox": [100, 30, 900, 60]})
        texts.append(ItemText(text="J. Aligon et al."))
    furniture, _demoted = running_furniture(items, texts, n_pages=8)
    assert furniture == {2, 3, 4}


def test_page_numbers_typed_as_text_stay_out():
    # unittest_test's page number "1" arrives as a plain text item at the page bottom.
    raw, chunks = normalised("unittest_test")
    stray = [i for i, item in enumerate(raw.items) if item["type"] == "text" and item["text"] == "1"]
    assert stray and not any(set(stray) & set(c.source_items) for c in chunks)
    assert looks_like_page_number("12", [480, 940, 520, 960])
    assert not looks_like_page_number("12", [480, 400, 520, 420])


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_no_page_numbers_in_heading_paths(name):
    _raw, chunks = normalised(name)
    for chunk in chunks:
        for entry in chunk.heading_path:
            assert not re.fullmatch(r"[\d.\s]+", entry), (chunk.chunk_id, entry)


def test_heading_path_is_rooted_at_the_top_level_section():
    _raw, chunks = normalised("sample")
    production = next(c for c in chunks if c.section_no == "2.1.1")
    assert production.heading == "Production"
    assert production.heading_path == ["2. PENJELASAN PARAMETER", "2.1. Production Parameter", "2.1.1. Production"]
    assert "2.1.1. Production" not in production.text  # the heading line is not part of text
    pa = next(c for c in chunks if c.section_no == "2.1.3")
    assert pa.heading == "Physical of Availability (PA)"  # verbatim, not tidied
    assert pa.page_idx == 1 and pa.page_no == 2


def test_depth_comes_from_numbering_not_text_level():
    _raw, chunks = normalised("demo1")
    by_section = {c.section_no: c for c in chunks}
    # demo1's outline puts every section under the paper's title: the author's structure.
    title = "The response of flow duration curves to afforestation"
    assert by_section["4.3"].heading_path == [title, "4. Results", "4.3. Timing of flow reductions"]
    assert by_section["5"].heading_path == [title, "5. Discussion"]
    _raw, chunks = normalised("demo2")
    lettered = next(c for c in chunks if c.section_no == "C")
    assert lettered.heading_path == ["III. METHOD", "C. Disparity Selection and Confidence Assessment"]


def test_heading_numbering_rules():
    assert numbered("2.1.1. Production") == ("arabic", "2.1.1", "Production")
    assert numbered("4.1 Datasets and Evaluation") == ("arabic", "4.1", "Datasets and Evaluation")
    assert numbered("1. 7") is None  # page-number pollution: the contract's known gap
    assert numbered("2005 Elsevier") is None
    tracker = HeadingTracker()
    for line in ["1. Scope", "2. Terms", "2.1. Production"]:
        tracker.enter(line)
    assert tracker.path == ["2. Terms", "2.1. Production"]
    assert tracker.continues_numbering("2.2. Quantity")
    assert tracker.continues_numbering("3. Closing")
    assert not tracker.continues_numbering("5. Something")
    assert not tracker.continues_numbering("2.2. This is a numbered sentence.")


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_chunk_ids_pages_and_trace(name):
    raw, chunks = normalised(name)
    for seq, chunk in enumerate(chunks):
        assert chunk.chunk_id == f"{name}::{seq:04d}" and CHUNK_ID_PATTERN.match(chunk.chunk_id)
        pages = sorted({raw.items[i]["page_idx"] for i in chunk.source_items})
        assert chunk.page_idxs == pages and chunk.page_idx == pages[0]
        assert chunk.bbox == raw.items[chunk.source_items[0]]["bbox"]
        assert chunk.kind != "equation"  # see docs/decisions.md
        for image in chunk.images:
            assert (MINERU_FIXTURES / name / image).is_file()


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_formulas_stay_in_their_text_chunk_with_text_layer_characters(name):
    raw, chunks = normalised(name)
    equations = [i for i, item in enumerate(raw.items) if item["type"] == "equation"]
    with PdfTextLayer(FIXTURE_PDFS / f"{name}.pdf") as text_layer:
        for index in equations:
            chunk = next(c for c in chunks if index in c.source_items)
            assert chunk.kind == "text" and chunk.has_formula
            assert raw.items[index]["img_path"] in chunk.images
            expected = formula_text(text_layer, raw.items[index])
            assert expected and expected in chunk.text
            assert chunk.latex == []  # flash gives no LaTeX, and none is invented


def test_formula_characters_come_from_the_text_layer():
    raw, chunks = normalised("unittest_test")
    chunk = next(c for c in chunks if c.has_formula)
    assert "(1 − λ) · C(p, p¯) + λ · wt(p, pt−1) · Ca(p, p¯)" in chunk.text


def test_figures_with_captions_are_their_own_chunks_and_bare_ones_are_kept():
    raw, chunks = normalised("demo1")
    fig1 = next(c for c in chunks if c.text.startswith("Fig. 1."))
    assert fig1.kind == "image" and fig1.images == ["images/page_1_image_5.jpg"]
    # The three caption-less logos on page 0 are not dropped: their images ride on a chunk.
    logos = {"images/page_0_image_0.jpg", "images/page_0_image_1.jpg", "images/page_0_image_3.jpg"}
    assert logos <= {image for c in chunks for image in c.images}


def test_every_content_item_is_traceable_or_deliberately_left_out():
    """Nothing lost: each item is in some chunk's source_items, or is furniture, a heading,
    or empty."""
    for name in FIXTURE_NAMES:
        raw, chunks = normalised(name)
        traced = {i for c in chunks for i in c.source_items}
        for i, item in enumerate(raw.items):
            if i in traced or item["type"] in _FURNITURE or _is_heading_item(item):
                continue
            assert item["type"] == "text" and (
                not item["text"].strip() or looks_like_page_number(item["text"], item["bbox"])
            ), (name, i)


def test_flash_figure_text_is_document_text_not_a_generated_description():
    _raw, chunks = normalised("demo2")
    figure = next(c for c in chunks if c.text.startswith("Figure 2:"))
    assert "Frame 30" in figure.text and figure.generated_description is None


def test_scanned_fixture_yields_no_text_chunk_but_keeps_its_images_traceable():
    raw, chunks = normalised("scanned_small_ocr")
    assert not any(c.kind == "text" for c in chunks)
    image_items = {i for i, item in enumerate(raw.items) if item["type"] == "image"}
    assert image_items <= {i for c in chunks for i in c.source_items}


def test_safety_net_limit():
    for name in TEXT_FIXTURES:
        _raw, chunks = normalised(name)
        for chunk in chunks:
            # A single item longer than the limit cannot be split without breaking verbatim.
            assert len(chunk.text) <= MAX_CHUNK_CHARS or len(chunk.source_items) == 1


def test_safety_net_splits_a_long_unheaded_document_at_item_boundaries(layout, tmp_path):
    """Real MinerU on a generated 20,000-character document with no headings: the 6,000-character
    net cuts it into several chunks, each at an item boundary, nothing lost or reordered."""
    sentence = "The conveyor belt tension is checked at every shift change and logged with the unit number {n}. "
    pdf = tmp_path / "long_notes.pdf"
    text_pdf(pdf, [sentence.format(n=n) * 5 for n in range(40)])
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    chunks = run.document.chunks
    raw = load_raw_output(run.raw.path)
    texts = [item_text(v2) for v2 in raw.items_v2]
    furniture, _demoted = running_furniture(raw.items, texts, raw.n_pages)
    body = [
        i
        for i, item in enumerate(raw.items)
        if item["type"] in ("text", "header", "footer") and i not in furniture and texts[i].text.strip()
    ]
    assert len(chunks) >= 3 and all(c.kind == "text" and c.heading is None for c in chunks)
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    # Every body item, once, in order: the cuts fall between items, never inside one.
    assert [i for c in chunks for i in c.source_items] == body
    with PdfTextLayer(run.raw.path / SOURCE_COPY) as text_layer:
        for chunk in chunks:
            assert verbatim_violations(chunk, source_pieces(chunk, raw, text_layer)) == []
