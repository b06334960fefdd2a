"""Tests of the RAG knowledge-base packager (kb_pipeline.rag), on its one path: MinerU output
normalised into a `ParsedDocument`, then packaged (`cli.package.package_directory`).

Two groups:
- the spec's validation checklist, item by item, on every real MinerU 4.0.12 fixture with the
  PDF it parsed (copied under a temporary project root, so nothing is written into /work/shared);
- one test per packaging rule, each on a small synthetic MinerU output (content lists, middle
  JSON and a blank PDF of as many pages: no text layer) whose docstring says what it isolates.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from kb_pipeline.cli.package import main as cli_main
from kb_pipeline.cli.package import package_directory
from kb_pipeline.parsing.discovery import IncompleteOutputError, NoContentListError
from kb_pipeline.rag import format_metrics
from kb_pipeline.rag.html_table import parse_html_table
from kb_pipeline.rag.token_estimate import HARD_CAP_TOKENS, TARGET_MIN_TOKENS, estimate_tokens
from kb_pipeline.sources import doc_id_for

from .conftest import FIXTURE_NAMES, FIXTURE_PDFS, MINERU_FIXTURES

JSONL_FIELDS = {"chunk_id", "page_no", "content_type", "section_title", "chunk_text", "image_path"}
UUID_PREFIX = "63805328-1b7e-4c2a-9f3d-0123456789ab_"


# ---------------------------------------------------------------------------- helpers


def _copy_tree(source: Path, target: Path) -> None:
    """Copy without permissions: the fixtures are read-only, the copies must be writable."""
    target.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.is_dir():
            _copy_tree(entry, target / entry.name)
        else:
            shutil.copyfile(entry, target / entry.name)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


class Packaged:
    """A packaging run and its four outputs, read back from disk."""

    def __init__(self, input_dir: Path, output_dir: Path, project_root: Path, **kwargs: Any) -> None:
        self.input_dir = input_dir
        self.project_root = project_root
        self.result = package_directory(input_dir, output_dir, project_root=project_root, **kwargs)
        self.chunks = _read_jsonl(self.result.chunks_path)
        self.manifest = _read_json(self.result.manifest_path)
        self.errors = _read_json(self.result.error_report_path)
        self.metrics = self.result.metrics

    def of_type(self, content_type: str) -> list[dict[str, Any]]:
        return [chunk for chunk in self.chunks if chunk["content_type"] == content_type]

    def skipped_reasons(self) -> list[str]:
        return [entry["reason"] for entry in self.errors["skipped_blocks"]]


def _nearby_text(chunk: dict[str, Any]) -> str:
    match = re.search(r"^Nearby text: (.*)$", chunk["chunk_text"], re.MULTILINE)
    return match.group(1) if match else ""


# ---------------------------------------------------------------------------- real fixtures


@pytest.fixture(scope="module")
def fixture_runs(tmp_path_factory: pytest.TempPathFactory, shared_fixtures: Path) -> dict[str, Packaged]:
    """Every fixture copied to <project>/mineru/<name> and packaged once, project root = <project>."""
    project = tmp_path_factory.mktemp("project")
    runs = {}
    for name in FIXTURE_NAMES:
        input_dir = project / "mineru" / name
        _copy_tree(MINERU_FIXTURES / name, input_dir)
        runs[name] = Packaged(
            input_dir,
            project / "kb" / name,
            project,
            pdf=FIXTURE_PDFS / f"{name}.pdf",
            shared_output_dir=project / "shared",
        )
    return runs


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_image_paths_are_project_relative_and_exist(fixture_runs: dict[str, Packaged], name: str) -> None:
    run = fixture_runs[name]
    for chunk in run.chunks:
        path = chunk["image_path"]
        if not path:
            continue
        assert not Path(path).is_absolute(), chunk["chunk_id"]
        # Relative to the project root, not to the MinerU directory ("images/x.jpg" would be wrong).
        assert path.startswith(f"mineru/{name}/images/"), path
        assert (run.project_root / path).is_file(), path


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_figure_nearby_text_differs_from_section_title(fixture_runs: dict[str, Packaged], name: str) -> None:
    run = fixture_runs[name]
    figures = run.of_type("figure")
    if not figures:
        pytest.skip(f"{name} has no figure chunks")
    differing = [chunk for chunk in figures if _nearby_text(chunk) and _nearby_text(chunk) != chunk["section_title"]]
    assert len(differing) / len(figures) > 0.9
    assert run.metrics["figures_total"] == len(figures)
    assert run.metrics["figures_nearby_text_differs"] == len(differing)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_no_empty_chunk_text(fixture_runs: dict[str, Packaged], name: str) -> None:
    assert all(chunk["chunk_text"].strip() for chunk in fixture_runs[name].chunks)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_table_chunks_within_3600_chars(fixture_runs: dict[str, Packaged], name: str) -> None:
    for chunk in fixture_runs[name].of_type("table"):
        assert len(chunk["chunk_text"]) <= HARD_CAP_TOKENS * 4, chunk["chunk_id"]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_text_chunks_within_hard_cap(fixture_runs: dict[str, Packaged], name: str) -> None:
    for chunk in fixture_runs[name].of_type("text"):
        assert estimate_tokens(chunk["chunk_text"]) <= HARD_CAP_TOKENS, chunk["chunk_id"]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_section_titles_clean(fixture_runs: dict[str, Packaged], name: str) -> None:
    for chunk in fixture_runs[name].chunks:
        title = chunk["section_title"]
        assert title == title.strip() and "  " not in title and "\n" not in title, chunk["chunk_id"]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_records_have_exactly_six_fields(fixture_runs: dict[str, Packaged], name: str) -> None:
    run = fixture_runs[name]
    pages = _read_json(MINERU_FIXTURES / name / "fixture_meta.json")["pages"]
    for chunk in run.chunks:
        assert set(chunk) == JSONL_FIELDS
        assert chunk["content_type"] in {"text", "table", "figure", "formula"}
        assert isinstance(chunk["page_no"], int) and 1 <= chunk["page_no"] <= pages
        assert chunk["chunk_id"].startswith(f"{name}:p{chunk['page_no']}:{chunk['content_type']}:")
    assert len({chunk["chunk_id"] for chunk in run.chunks}) == len(run.chunks)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_split_tables_have_split_info(fixture_runs: dict[str, Packaged], name: str) -> None:
    run = fixture_runs[name]
    split_info = run.manifest["split_info"]
    ids = {chunk["chunk_id"] for chunk in run.chunks}
    for chunk in run.of_type("table"):
        if re.match(r"Table: .* \(Part \d+/\d+\)$", chunk["chunk_text"].splitlines()[0]):
            assert split_info[chunk["chunk_id"]]["is_split"] is True
    assert set(split_info) <= ids
    assert all(info["is_split"] is True for info in split_info.values())


@pytest.mark.usefixtures("shared_fixtures")
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_checklist_manifest_records_uuid_prefixed_files(tmp_path: Path, name: str) -> None:
    """Every file renamed with a UUID prefix, as the hosted MinerU API names them."""
    input_dir = tmp_path / "mineru" / name
    _copy_tree(MINERU_FIXTURES / name, input_dir)
    for entry in list(input_dir.iterdir()):
        if entry.is_file():
            entry.rename(input_dir / f"{UUID_PREFIX}{entry.name}")
    run = Packaged(input_dir, tmp_path / "kb", tmp_path, pdf=FIXTURE_PDFS / f"{name}.pdf")

    recorded = {path for paths in run.manifest["input_files_all"].values() if isinstance(paths, list) for path in paths}
    on_disk = {f"mineru/{name}/{entry.name}" for entry in input_dir.iterdir() if entry.is_file()}
    assert on_disk <= recorded
    files_all = run.manifest["input_files_all"]
    assert files_all["content_list"] == [f"mineru/{name}/{UUID_PREFIX}content_list.json"]
    assert files_all["content_list_v2"] == [f"mineru/{name}/{UUID_PREFIX}content_list_v2.json"]
    used = run.manifest["input_files_used"]
    # The normaliser reads both lists (text from v2, types, pages and boxes from v1) and the middle JSON.
    for role in ("content_list_v2", "content_list", "middle_json"):
        assert used[role] == f"mineru/{name}/{UUID_PREFIX}{role}.json"


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_error_report_summary_matches_lists_and_shared_copy(fixture_runs: dict[str, Packaged], name: str) -> None:
    run = fixture_runs[name]
    summary = run.errors["summary"]
    for key in ("missing_images", "skipped_blocks", "unsupported_blocks", "parse_errors"):
        assert summary[f"total_{key}"] == len(run.errors[key])
    assert run.result.shared_chunks_path == run.project_root / "shared" / f"{name}.jsonl"
    assert run.result.shared_chunks_path.read_bytes() == run.result.chunks_path.read_bytes()
    assert run.metrics["total_chunks"] == len(run.chunks)
    readme = run.result.readme_path.read_text(encoding="utf-8")
    assert "split_info" in readme and "kb_manifest.json" in readme


@pytest.mark.parametrize("name", ["demo1", "chem_intro"])
def test_chunk_ids_are_stable_across_runs(fixture_runs: dict[str, Packaged], tmp_path: Path, name: str) -> None:
    """The same output normalised and packaged again: the same chunks under the same ids, byte for byte."""
    first = fixture_runs[name]
    again = Packaged(first.input_dir, tmp_path / "again", first.project_root, pdf=FIXTURE_PDFS / f"{name}.pdf")
    assert again.result.chunks_path.read_bytes() == first.result.chunks_path.read_bytes()
    assert again.manifest["split_info"] == first.manifest["split_info"]


def test_fixture_without_images_dir_logs_every_missing_image(fixture_runs: dict[str, Packaged]) -> None:
    """scanned_small_ocr has 447 image blocks and no images/ folder."""
    run = fixture_runs["scanned_small_ocr"]
    assert len(run.errors["missing_images"]) == 447
    assert {entry["reason"] for entry in run.errors["missing_images"]} == {"image file not found"}
    assert all(chunk["image_path"] == "" for chunk in run.chunks)
    assert run.metrics["noise_blocks_skipped"]["page_header"] == 49


def test_fixture_noise_and_formulas_are_counted(fixture_runs: dict[str, Packaged]) -> None:
    """Counts checked against the fixture's own content_list_v2 (demo1: 12 headers, 12 page numbers,
    and one "footer" on one page only, which the normaliser keeps as body text: not noise)."""
    demo1 = fixture_runs["demo1"]
    assert demo1.metrics["noise_blocks_skipped"] == {
        "page_header": 12,
        "page_footer": 0,
        "page_number": 12,
        "page_aside_text": 0,
    }
    # demo3's one margin line ("arXiv:2203.00274v2 [cs.CL] 3 May 2022") is on one page only: the
    # normaliser keeps it as body text, so it is in the package, not counted as noise.
    demo3 = fixture_runs["demo3"]
    assert demo3.metrics["aside_noise"] == 0
    assert any("arXiv:2203.00274v2" in chunk["chunk_text"] for chunk in demo3.chunks)
    # Flash gives no LaTeX: every formula chunk stands on its image plus the text around it.
    for chunk in demo1.of_type("formula"):
        assert chunk["image_path"]
        assert "Text before:" in chunk["chunk_text"] or "Text after:" in chunk["chunk_text"]
    assert demo1.metrics["chunks_by_content_type"]["formula"] + demo1.metrics["skipped_formulas"] == 7


@pytest.mark.usefixtures("shared_fixtures")
def test_packaging_never_writes_into_the_input(tmp_path: Path) -> None:
    input_dir = tmp_path / "mineru" / "demo2"
    _copy_tree(MINERU_FIXTURES / "demo2", input_dir)
    before = sorted(path.relative_to(input_dir) for path in input_dir.rglob("*"))
    Packaged(input_dir, tmp_path / "kb", tmp_path, pdf=FIXTURE_PDFS / "demo2.pdf")
    assert sorted(path.relative_to(input_dir) for path in input_dir.rglob("*")) == before


# ---------------------------------------------------------------------------- synthetic input


def _spans(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "content": text}]


def para(text: str) -> dict[str, Any]:
    return {"type": "paragraph", "content": {"paragraph_content": _spans(text)}, "bbox": [0, 0, 1, 1]}


def title(text: str) -> dict[str, Any]:
    return {"type": "title", "content": {"title_content": _spans(text), "level": 2}, "bbox": [0, 0, 1, 1]}


def noise(kind: str, text: str) -> dict[str, Any]:
    return {"type": kind, "content": {f"{kind}_content": _spans(text)}, "bbox": [0, 0, 1, 1]}


def image(path: str, caption: str = "") -> dict[str, Any]:
    return {
        "type": "image",
        "content": {
            "image_source": {"path": path},
            "image_caption": _spans(caption) if caption else [],
            "image_footnote": [],
        },
        "bbox": [0, 0, 1, 1],
    }


def table(html: str, caption: str = "", path: str = "", footnote: str = "") -> dict[str, Any]:
    return {
        "type": "table",
        "content": {
            "image_source": {"path": path},
            "table_caption": _spans(caption) if caption else [],
            "table_footnote": _spans(footnote) if footnote else [],
            "html": html,
            "table_type": "simple_table",
            "table_nest_level": 1,
        },
        "bbox": [0, 0, 1, 1],
    }


def equation(path: str, latex: str = "") -> dict[str, Any]:
    return {
        "type": "equation_interline",
        "content": {
            "math_content": latex,
            "math_type": "latex",
            "image_source": {"path": path},
        },
        "bbox": [0, 0, 1, 1],
    }


def html_table(header: list[str], rows: list[list[str]]) -> str:
    cells = "".join(f"<td>{cell}</td>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tbody><tr>{cells}</tr>{body}</tbody></table>"


def sentences(count: int, words: int = 12, tag: str = "s") -> str:
    """``count`` distinct sentences of ``words`` words each (about 15 tokens per 12 words)."""
    return " ".join(" ".join([f"{tag}{n}"] + ["word"] * (words - 1)) + "." for n in range(count))


_V1_TYPES = {"page_header": "header", "page_footer": "footer", "page_aside_text": "aside_text"}


def _v1_item(item: dict[str, Any], page_idx: int) -> dict[str, Any]:
    """The content_list.json item MinerU renders beside a v2 item: its type, page and box (the
    normaliser reads text from v2, and types, pages, title levels and image paths from v1)."""
    kind = item["type"]
    v1: dict[str, Any] = {"type": _V1_TYPES.get(kind, kind), "page_idx": page_idx, "bbox": item.get("bbox")}
    if kind in ("paragraph", "title"):
        v1["type"] = "text"
        if kind == "title":
            v1["text_level"] = 1
    if kind == "equation_interline":
        v1["type"] = "equation"
    source = (item.get("content") or {}).get("image_source") if isinstance(item.get("content"), dict) else None
    if source:
        v1["img_path"] = source["path"]
    return v1


def write_mineru_output(input_dir: Path, pages: list[list[Any]], page_idxs: list[int] | None = None) -> Path:
    """MinerU 4's three files for ``pages`` (v2 items) and a blank PDF of as many pages; the PDF's path."""
    page_idxs = page_idxs or list(range(len(pages)))
    input_dir.mkdir(parents=True, exist_ok=True)
    (input_dir / "content_list_v2.json").write_text(json.dumps(pages), encoding="utf-8")
    v1 = [_v1_item(item, page_idx) for page_idx, page in zip(page_idxs, pages) for item in page]
    (input_dir / "content_list.json").write_text(json.dumps(v1), encoding="utf-8")
    middle = {"pages": [{"page_idx": page_idx} for page_idx in page_idxs]}
    (input_dir / "middle_json.json").write_text(json.dumps(middle), encoding="utf-8")
    pdf = pdfium.PdfDocument.new()
    for _ in range(max(page_idxs) + 1):
        pdf.new_page(595, 842)
    pdf.save(input_dir / "origin.pdf")
    return input_dir / "origin.pdf"


def package_pages(
    tmp_path: Path, pages: list[list[Any]], images: tuple[str, ...] = (), page_idxs: list[int] | None = None
) -> Packaged:
    """Write a MinerU directory with ``pages`` as its content and package it."""
    input_dir = tmp_path / "mineru" / "doc"
    write_mineru_output(input_dir, pages, page_idxs)
    for name in images:
        (input_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (input_dir / name).write_bytes(b"\xff\xd8\xff")
    return Packaged(input_dir, tmp_path / "kb", tmp_path)


def test_token_estimate_counts_cjk_per_character_and_latin_per_four() -> None:
    """Isolates the estimate: 8 Latin characters = 2 tokens, 4 ideographs = 4 tokens."""
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("化学方程") == 4
    assert estimate_tokens("abc化学") == 3
    assert estimate_tokens("") == 0


def test_short_blocks_in_one_section_merge(tmp_path: Path) -> None:
    """Three short paragraphs under one title, no other block: one text chunk holding all three."""
    run = package_pages(tmp_path, [[title("Intro"), para("Alpha one."), para("Beta two."), para("Gamma three.")]])
    assert [chunk["chunk_text"] for chunk in run.chunks] == ["Alpha one.\n\nBeta two.\n\nGamma three."]
    assert run.chunks[0]["section_title"] == "Intro"


def test_v2_text_keeps_angle_brackets(tmp_path: Path) -> None:
    """v2 spans are raw text: "<" and ">" in maths are content, not HTML to strip."""
    run = package_pages(tmp_path, [[para("Holds when p<s and t>q, and Q<0.")]])
    assert run.chunks[0]["chunk_text"] == "Holds when p<s and t>q, and Q<0."


def test_text_is_not_merged_across_sections(tmp_path: Path) -> None:
    """Two short paragraphs separated by a title: two chunks, each with its own section title."""
    run = package_pages(tmp_path, [[title("Alpha"), para("First."), title("Beta"), para("Second.")]])
    assert [(c["section_title"], c["chunk_text"]) for c in run.chunks] == [("Alpha", "First."), ("Beta", "Second.")]


def test_short_blocks_merge_across_pages_and_keep_first_page(tmp_path: Path) -> None:
    """A section continuing on the next page: one chunk whose page_no is the first page."""
    run = package_pages(tmp_path, [[title("Alpha"), para("Page one text.")], [para("Page two text.")]])
    assert len(run.chunks) == 1 and run.chunks[0]["page_no"] == 1


def test_long_text_split_at_sentence_boundaries_within_target(tmp_path: Path) -> None:
    """One 2000-token paragraph: chunks end at sentences, stay under the cap, and lose no sentence."""
    text = sentences(130)
    run = package_pages(tmp_path, [[title("Long"), para(text)]])
    chunks = [chunk["chunk_text"] for chunk in run.chunks]
    assert len(chunks) >= 3
    assert all(estimate_tokens(chunk) <= HARD_CAP_TOKENS for chunk in chunks)
    assert all(estimate_tokens(chunk) >= TARGET_MIN_TOKENS for chunk in chunks[:-1])
    assert all(chunk.endswith(".") for chunk in chunks)
    assert " ".join(chunks).split() == text.split()


def test_long_text_is_cut_from_the_paragraph_as_it_stands(tmp_path: Path) -> None:
    """A long paragraph whose lines break inside sentences (as MinerU gives a text block): each
    chunk is a slice of it, its line breaks and double spaces kept (the package is verbatim)."""
    text = sentences(130).replace("word word word", "word\nword  word").replace(". s1", ".\ns1")
    run = package_pages(tmp_path, [[title("Long"), para(text)]])
    chunks = [chunk["chunk_text"] for chunk in run.chunks]
    assert len(chunks) >= 3 and all(chunk in text for chunk in chunks)
    assert any("\n" in chunk for chunk in chunks) and " ".join(chunks).split() == text.split()


def test_many_medium_blocks_pack_between_target_and_cap(tmp_path: Path) -> None:
    """Twenty 150-token paragraphs: packed into chunks of 300..900 tokens (all but the last)."""
    run = package_pages(tmp_path, [[title("Tables")] + [para(sentences(10, tag=f"p{n}x")) for n in range(20)]])
    sizes = [estimate_tokens(chunk["chunk_text"]) for chunk in run.chunks]
    assert len(sizes) > 1
    assert all(TARGET_MIN_TOKENS <= size <= HARD_CAP_TOKENS for size in sizes[:-1])


def test_sentence_without_boundaries_is_hard_split(tmp_path: Path) -> None:
    """A 5000-character CJK run with no punctuation: split into pieces under the cap, nothing lost."""
    text = "化" * 5000
    run = package_pages(tmp_path, [[para(text)]])
    assert all(estimate_tokens(chunk["chunk_text"]) <= HARD_CAP_TOKENS for chunk in run.chunks)
    assert "".join(chunk["chunk_text"].replace("\n", "") for chunk in run.chunks) == text


def test_small_table_is_one_chunk_with_columns_and_rows(tmp_path: Path) -> None:
    """A 2-row table with caption and footnote: one chunk, no split_info."""
    html = html_table(["Unit", "PA (%)"], [["HD785", "90"], ["PC2000", "88"]])
    run = package_pages(
        tmp_path, [[table(html, "Table 1 Target PA", "images/t.jpg", "per year")]], images=("images/t.jpg",)
    )
    (chunk,) = run.chunks
    assert chunk["content_type"] == "table"
    assert chunk["chunk_text"] == (
        "Table: Table 1 Target PA\nColumns: Unit | PA (%)\nRow 1: HD785 | 90\nRow 2: PC2000 | 88\nNotes: per year"
    )
    assert chunk["image_path"] == "mineru/doc/images/t.jpg"
    assert run.manifest["split_info"] == {}


def test_long_table_split_repeats_caption_and_headers(tmp_path: Path) -> None:
    """A 300-row table (~4000 tokens): row-boundary parts, each with caption + headers, split_info in manifest."""
    rows = [[f"item{n}", f"value {n} " + "x" * 30] for n in range(300)]
    run = package_pages(
        tmp_path, [[table(html_table(["Name", "Value"], rows), "Table 9 Big", footnote="Source: test")]]
    )
    parts = run.of_type("table")
    assert len(parts) > 1
    total = len(parts)
    row_numbers: list[int] = []
    for index, chunk in enumerate(parts, 1):
        lines = chunk["chunk_text"].splitlines()
        assert lines[0] == f"Table: Table 9 Big (Part {index}/{total})"
        assert lines[1] == "Columns: Name | Value"
        assert len(chunk["chunk_text"]) <= HARD_CAP_TOKENS * 4
        row_numbers += [int(re.match(r"Row (\d+):", line).group(1)) for line in lines if line.startswith("Row ")]
        info = run.manifest["split_info"][chunk["chunk_id"]]
        assert info["is_split"] is True and info["split_index"] == index and info["total_splits"] == total
    assert row_numbers == list(range(1, 301))
    assert parts[-1]["chunk_text"].endswith("Notes: Source: test")
    assert "Notes:" not in parts[0]["chunk_text"]
    assert run.metrics["split_tables"] == 1 and run.metrics["oversized_table_chunks"] == 0


def test_oversized_single_row_kept_whole_and_logged(tmp_path: Path) -> None:
    """One 5000-character cell among short rows: that row gets its own, uncut part, flagged for review."""
    long_cell = "y" * 5000
    rows = [["a", "1"], ["b", long_cell], ["c", "3"]]
    run = package_pages(tmp_path, [[table(html_table(["K", "V"], rows), "Table 2 Odd")]])
    parts = run.of_type("table")
    oversized = [chunk for chunk in parts if long_cell in chunk["chunk_text"]]
    assert len(oversized) == 1 and "Row 2: b | " + long_cell in oversized[0]["chunk_text"]
    assert run.metrics["oversized_table_chunks"] == 1
    assert [entry["chunk_id"] for entry in run.errors["oversized_table_chunks"]] == [oversized[0]["chunk_id"]]
    assert all(f"Row {n}:" in "".join(c["chunk_text"] for c in parts) for n in (1, 2, 3))


def test_html_table_header_from_rowspan_and_colspan() -> None:
    """A two-level header (rowspan + colspan) and a nested table; no packaging involved."""
    html = (
        '<table><tr><td rowspan="2">Site</td><td colspan="2">Percentile</td></tr>'
        "<tr><td>10</td><td>20</td></tr>"
        '<tr><td>Pine &amp; Ck</td><td colspan="2">na</td></tr>'
        "<tr><td>Red<table><tr><td>inner</td></tr></table></td><td>1</td><td>2</td></tr></table>"
    )
    parsed = parse_html_table(html)
    assert parsed.columns == ["Site", "Percentile 10", "Percentile 20"]
    assert parsed.rows == [["Pine & Ck", "na"], ["Red inner", "1", "2"]]


def test_formal_figure_text_comes_from_adjacent_paragraph(tmp_path: Path) -> None:
    """A numbered figure between a title and a paragraph: nearby text is that paragraph, not the title."""
    paragraph = "The flow curve drops sharply after planting, as the measurements show."
    run = package_pages(
        tmp_path,
        [[title("Results"), image("images/f.jpg", "Fig. 1. Flow curve"), para(paragraph)]],
        images=("images/f.jpg",),
    )
    (chunk,) = run.of_type("figure")
    assert _nearby_text(chunk) == paragraph
    assert chunk["section_title"] == "Results"
    assert chunk["chunk_text"].startswith("Figure: Fig. 1. Flow curve")
    assert chunk["image_path"] == "mineru/doc/images/f.jpg"


def test_adjacent_text_stops_at_title(tmp_path: Path) -> None:
    """Figure followed by a title and a paragraph, preceded by a paragraph: the earlier paragraph is used."""
    before = "This paragraph precedes the figure and describes the setup of the experiment."
    run = package_pages(
        tmp_path,
        [
            [
                para(before),
                image("images/f.jpg", "Figure 3: Setup"),
                title("Next"),
                para("Unrelated text from another section of the document."),
            ]
        ],
        images=("images/f.jpg",),
    )
    assert _nearby_text(run.of_type("figure")[0]) == before


def test_figure_without_neighbours_uses_citing_sentence(tmp_path: Path) -> None:
    """A numbered figure alone before a title; the only text citing it is on the previous page."""
    pages = [
        [title("Methods"), para("We measured flows. Fig. 2a is a schematic of the model. It has two parts.")],
        [image("images/f.jpg", "Fig. 2. Schematic"), title("Other"), para("Nothing about figures here at all.")],
    ]
    run = package_pages(tmp_path, pages, images=("images/f.jpg",))
    assert _nearby_text(run.of_type("figure")[0]) == "Fig. 2a is a schematic of the model. It has two parts."


def test_subfigure_labels_merge_into_formal_figure(tmp_path: Path) -> None:
    """Two panel-label images around a numbered figure on one page: one figure chunk listing both panels."""
    page = [
        title("Memory"),
        image("images/a.jpg", "MLC Page"),
        image("images/main.jpg", "Figure 29. Page layouts"),
        image("images/b.jpg", "TLC Page"),
        para("The page layouts differ in the number of bits stored per cell."),
    ]
    run = package_pages(tmp_path, [page], images=("images/a.jpg", "images/main.jpg", "images/b.jpg"))
    (chunk,) = run.of_type("figure")
    assert chunk["image_path"] == "mineru/doc/images/main.jpg"
    assert "Subfigures: MLC Page (mineru/doc/images/a.jpg); TLC Page (mineru/doc/images/b.jpg)" in chunk["chunk_text"]
    assert run.metrics["subfigure_fragments_merged"] == 2


def test_subfigure_without_parent_on_page_is_skipped(tmp_path: Path) -> None:
    """A lone panel label with text next to it but no formal figure on its page: skipped as weak."""
    run = package_pages(
        tmp_path,
        [[image("images/a.jpg", "Top View"), para("Some text about the package outline.")]],
        images=("images/a.jpg",),
    )
    assert run.of_type("figure") == []
    assert run.metrics["skipped_weak_figures"] == 1
    assert "subfigure label without a formal figure on the same page" in run.skipped_reasons()


def test_weak_figures_are_skipped(tmp_path: Path) -> None:
    """No number, no caption, and either no text on the page or under 30 characters in all: skipped."""
    pages = [[title("Logos"), image("images/a.jpg")], [image("images/b.jpg"), para("Short label")]]
    run = package_pages(tmp_path, pages, images=("images/a.jpg", "images/b.jpg"))
    assert run.of_type("figure") == []
    assert run.metrics["skipped_weak_figures"] == 2 and run.metrics["figure_blocks_total"] == 2
    assert run.metrics["weak_figure_share"] == 1.0


def test_uncaptioned_figure_with_real_context_is_kept(tmp_path: Path) -> None:
    """No caption, but 50+ characters of adjacent text: kept (default tier), text from the paragraph."""
    text = "水的lewis结构，又称路易斯点图像，是分子中原子和原子键结和标示孤对电子存在的图像。路易斯结构可以画出共价键。"
    run = package_pages(tmp_path, [[image("images/a.jpg"), para(text)]], images=("images/a.jpg",))
    (chunk,) = run.of_type("figure")
    assert _nearby_text(chunk) == text


def test_low_value_sections_skipped_until_next_title(tmp_path: Path) -> None:
    """Contents, List of Figures, Rev. A and Revision History sections, each followed by content."""
    page = [
        title("Contents"),
        para("1 Intro ..... 3"),
        table(html_table(["a"], [["b"]]), "Table 0 toc"),
        title("List of Figures"),
        para("Figure 1 ..... 4"),
        title("1. Introduction"),
        para("Real content."),
        title("Rev. A"),
        para("Initial release."),
        title("Revision  History"),
        para("Changed things."),
        title("2. Body"),
        para("More real content."),
    ]
    run = package_pages(tmp_path, [page])
    assert [chunk["chunk_text"] for chunk in run.chunks] == ["Real content.", "More real content."]
    assert run.metrics["skipped_low_value_sections"] == 4
    assert run.metrics["skipped_low_value_blocks"] == 5


def test_noise_blocks_skipped_and_counted_by_type(tmp_path: Path) -> None:
    """Every noise type between two paragraphs: none reaches a chunk, each counted and logged."""
    page = [
        noise("page_header", "Journal X"),
        para("Body one."),
        noise("page_aside_text", "Release: 12/15/2021"),
        noise("page_aside_text", "arXiv:1"),
        noise("page_footer", "Footer"),
        noise("page_number", "7"),
        para("Body two."),
    ]
    run = package_pages(tmp_path, [page])
    assert [chunk["chunk_text"] for chunk in run.chunks] == ["Body one.\n\nBody two."]
    assert run.metrics["noise_blocks_skipped"] == {
        "page_header": 1,
        "page_footer": 1,
        "page_number": 1,
        "page_aside_text": 2,
    }
    assert run.metrics["aside_noise"] == 2
    assert run.skipped_reasons().count("noise block skipped") == 5
    assert run.errors["unsupported_blocks"] == []


def test_empty_table_without_image_skipped_and_logged(tmp_path: Path) -> None:
    """Empty HTML, caption only, image file missing: no chunk, one skipped entry, one missing image."""
    run = package_pages(tmp_path, [[table("<table></table>", "Table 3 Empty", "images/missing.jpg")]])
    assert run.chunks == []
    assert run.metrics["skipped_empty_tables"] == 1
    assert "empty table content and no valid image" in run.skipped_reasons()
    assert run.errors["missing_images"][0]["expected_path"] == "images/missing.jpg"


def test_empty_table_with_image_kept(tmp_path: Path) -> None:
    """Empty HTML but an existing table image: one chunk pointing at the image."""
    run = package_pages(tmp_path, [[table("", "Table 4 Image only", "images/t.jpg")]], images=("images/t.jpg",))
    (chunk,) = run.chunks
    assert chunk["image_path"] == "mineru/doc/images/t.jpg"
    assert chunk["chunk_text"].startswith("Table: Table 4 Image only")


def test_image_only_formula_with_context_becomes_chunk(tmp_path: Path) -> None:
    """Flash-style formula (no LaTeX) with an image and text around it: formula chunk with both texts."""
    page = [para("The efficiency E is given by:"), equation("images/e.jpg"), para("where O are observed data.")]
    run = package_pages(tmp_path, [page], images=("images/e.jpg",))
    (chunk,) = run.of_type("formula")
    assert chunk["image_path"] == "mineru/doc/images/e.jpg"
    assert "Text before: The efficiency E is given by:" in chunk["chunk_text"]
    assert "Text after: where O are observed data." in chunk["chunk_text"]


def test_formula_without_latex_or_context_is_skipped(tmp_path: Path) -> None:
    """Two LaTeX-less formulas: one with an image but no text in its document, one whose image is missing."""
    alone = package_pages(tmp_path / "alone", [[equation("images/e.jpg")]], images=("images/e.jpg",))
    gone = package_pages(tmp_path / "gone", [[para("Context here."), equation("images/gone.jpg")]])
    for run, reason in ((alone, "no adjacent text"), (gone, "no valid image")):
        assert run.of_type("formula") == []
        assert run.metrics["skipped_formulas"] == 1
        assert f"formula without LaTeX and with {reason}" in run.skipped_reasons()


def test_formula_with_latex_is_kept_even_without_image(tmp_path: Path) -> None:
    """LaTeX present, image missing: chunk with the LaTeX, empty image_path, missing image logged."""
    run = package_pages(tmp_path, [[equation("images/gone.jpg", r"E = mc^2")]])
    (chunk,) = run.of_type("formula")
    assert chunk["chunk_text"].startswith("Formula: $$ E = mc^2 $$") and chunk["image_path"] == ""
    assert len(run.errors["missing_images"]) == 1


def test_missing_image_keeps_figure_with_empty_path(tmp_path: Path) -> None:
    """A numbered figure whose file is absent: the chunk stays, image_path is "", the miss is logged."""
    run = package_pages(tmp_path, [[image("images/gone.jpg", "Figure 7: Lost"), para("Discussion of figure seven.")]])
    (chunk,) = run.of_type("figure")
    assert chunk["image_path"] == ""
    assert run.errors["missing_images"] == [
        {"block_id": "p1_b0", "type": "image", "expected_path": "images/gone.jpg", "reason": "image file not found"}
    ]


def test_invalid_image_references_are_rejected(tmp_path: Path) -> None:
    """References escaping the input dir, without an image extension, or as a data URI: all unusable."""
    (tmp_path / "secret.jpg").write_bytes(b"x")
    page = [
        image("../../secret.jpg", "Figure 1: a"),
        image("images/", "Figure 2: b"),
        image("data:image/png;base64,AAAA", "Figure 3: c"),
        para("Text that discusses all three figures."),
    ]
    run = package_pages(tmp_path, [page])
    assert [chunk["image_path"] for chunk in run.of_type("figure")] == ["", "", ""]
    assert [entry["reason"] for entry in run.errors["missing_images"]] == [
        "reference points outside the MinerU output directory",
        "reference is not an image file name",
        "image is not a local file reference",
    ]


def test_section_titles_are_cleaned(tmp_path: Path) -> None:
    """A title with surrounding and repeated whitespace: the chunk's section_title is collapsed."""
    run = package_pages(tmp_path, [[title("  2.1   DESCRIPTION \n of  parts "), para("Text.")]])
    assert run.chunks[0]["section_title"] == "2.1 DESCRIPTION of parts"


def test_page_numbers_follow_middle_json_page_idx(tmp_path: Path) -> None:
    """A page_range parse (pages 3-4): v2 has two pages, middle_json says page_idx 2 and 3."""
    run = package_pages(
        tmp_path, [[title("Alpha"), para("On page three.")], [title("Beta"), para("On page four.")]], page_idxs=[2, 3]
    )
    assert [chunk["page_no"] for chunk in run.chunks] == [3, 4]
    assert run.manifest["input_files_used"]["middle_json"] == "mineru/doc/middle_json.json"


def test_output_without_the_normalisers_inputs_is_refused_in_one_line(tmp_path: Path) -> None:
    """Only content_list.json (no v2, no middle JSON), or no PDF for the text layer: the normaliser
    cannot read it, so nothing is packaged and the error names what is missing."""
    input_dir = tmp_path / "mineru" / "doc"
    input_dir.mkdir(parents=True)
    (input_dir / "abc_content_list.json").write_text(json.dumps([{"type": "text", "text": "Hi.", "page_idx": 0}]))
    with pytest.raises(IncompleteOutputError, match="no content_list_v2.json in"):
        package_directory(input_dir, tmp_path / "kb", project_root=tmp_path)
    write_mineru_output(input_dir, [[para("Hi.")]]).unlink()
    with pytest.raises(IncompleteOutputError, match="give it with --pdf"):
        package_directory(input_dir, tmp_path / "kb", project_root=tmp_path)
    assert not (tmp_path / "kb").exists()


def test_discovery_records_all_roles_under_prefixed_and_legacy_names(tmp_path: Path) -> None:
    """Hosted-API layout: every MinerU file prefixed with a UUID, plus full.md, layout.json,
    <uuid>_model.json and <uuid>_origin.pdf: the prefixed files are read, all are recorded."""
    input_dir = tmp_path / "mineru" / "report.pdf-63805328-1b7e-4c2a-9f3d-0123456789ab"
    write_mineru_output(input_dir, [[para("Text.")]])
    for name in ("content_list_v2.json", "content_list.json", "middle_json.json", "origin.pdf"):
        (input_dir / name).rename(input_dir / f"{UUID_PREFIX}{name}")
    for name in ("full.md", "layout.json", f"{UUID_PREFIX}model.json"):
        (input_dir / name).write_text("{}")
    run = Packaged(input_dir, tmp_path / "kb", tmp_path)
    base = f"mineru/{input_dir.name}"
    files = run.manifest["input_files_all"]
    assert files["markdown"] == [f"{base}/full.md"]
    assert files["middle_json"] == [f"{base}/{UUID_PREFIX}middle_json.json", f"{base}/layout.json"]
    assert files["model_output"] == [f"{base}/{UUID_PREFIX}model.json"]
    assert files["origin_pdf"] == [f"{base}/{UUID_PREFIX}origin.pdf"]
    assert files["content_list"] == [f"{base}/{UUID_PREFIX}content_list.json"]
    assert run.manifest["source_pdf"] == f"{base}/{UUID_PREFIX}origin.pdf"
    assert run.manifest["input_files_used"]["middle_json"] == f"{base}/{UUID_PREFIX}middle_json.json"
    # The directory name loses its ".pdf-<uuid>" suffix in the doc id.
    assert run.result.doc_id == "report" and run.chunks[0]["chunk_id"] == "report:p1:text:1"


def test_package_doc_ids_follow_the_one_doc_id_rule(tmp_path: Path) -> None:
    """The package's doc id is the one a source PDF of that name gets (sources.doc_id_for): a safe
    name is kept, an unsafe one (spaces, accents) becomes the same slug and digest."""
    for name, expected in (("plan-2026_v2", "plan-2026_v2"), ("Rapport été", doc_id_for(Path("Rapport été.pdf")))):
        input_dir = tmp_path / "mineru" / f"{name}.pdf-63805328-1b7e-4c2a-9f3d-0123456789ab"
        write_mineru_output(input_dir, [[para("Text.")]])
        run = Packaged(input_dir, tmp_path / "kb" / name, tmp_path)
        assert run.result.doc_id == expected and run.chunks[0]["chunk_id"] == f"{expected}:p1:text:1"
    assert doc_id_for(Path("Rapport été.pdf")).startswith("Rapport_ete_")


def test_directory_without_content_list_raises(tmp_path: Path) -> None:
    (tmp_path / "markdown.md").write_text("# only markdown")
    with pytest.raises(NoContentListError):
        package_directory(tmp_path, tmp_path / "kb", project_root=tmp_path)


def test_format_metrics_lists_every_self_check_metric(tmp_path: Path) -> None:
    run = package_pages(tmp_path, [[title("Contents"), para("x"), title("Body"), para("Text.")]])
    text = format_metrics(run.metrics)
    for label in (
        "total chunks: 1",
        "low-value sections skipped",
        "weak figures skipped",
        "subfigure fragments merged",
        "oversized table chunks",
        "page_aside_text noise blocks",
        "nearby text different from the section title",
        "noise blocks skipped",
    ):
        assert label in text
    json.dumps(run.metrics)  # plain JSON-able dict, attachable as Dagster metadata


# ---------------------------------------------------------------------------- CLI


def test_cli_exit_code_2_without_content_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in").mkdir()
    assert cli_main([str(tmp_path / "in"), "--output-dir", str(tmp_path / "out")]) == 2
    assert "no content_list_v2.json or content_list.json" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.usefixtures("shared_fixtures")
def test_cli_packages_and_prints_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    input_dir = tmp_path / "mineru" / "unittest_test"
    _copy_tree(MINERU_FIXTURES / "unittest_test", input_dir)
    code = cli_main(
        [
            str(input_dir),
            "--pdf",
            str(FIXTURE_PDFS / "unittest_test.pdf"),
            "--output-dir",
            str(tmp_path / "out"),
            "--shared-output",
            str(tmp_path / "all"),
            "--project-root",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "Self-check metrics:" in out and "total chunks: 4" in out
    assert (tmp_path / "all" / "unittest_test.jsonl").is_file()
    assert {path.name for path in (tmp_path / "out").iterdir()} == {
        "kb_chunks.jsonl",
        "kb_manifest.json",
        "error_report.json",
        "README_kb.md",
    }


@pytest.mark.usefixtures("shared_fixtures")
def test_cli_default_output_dir_is_under_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The input stays untouched: the default output is ./kb_output/<doc_id>, image paths from cwd."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert cli_main([str(MINERU_FIXTURES / "unittest_test"), "--pdf", str(FIXTURE_PDFS / "unittest_test.pdf")]) == 0
    chunks = _read_jsonl(work / "kb_output" / "unittest_test" / "kb_chunks.jsonl")
    assert all((work / chunk["image_path"]).is_file() for chunk in chunks if chunk["image_path"])


def test_cli_exit_code_2_on_malformed_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A truncated content_list_v2.json: one line naming the directory, no traceback, nothing written."""
    input_dir = tmp_path / "in"
    write_mineru_output(input_dir, [[para("Hi.")]])
    (input_dir / "content_list_v2.json").write_text("[[{", encoding="utf-8")
    assert cli_main([str(input_dir), "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unreadable MinerU output" in err and str(input_dir) in err
    assert not (tmp_path / "out").exists()


def test_cli_names_the_file_it_could_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A write that fails (here the output directory's parent is a file) is reported as the write
    it is, with its path — not as unreadable MinerU output."""
    input_dir = tmp_path / "in"
    write_mineru_output(input_dir, [[para("Hi.")]])
    (tmp_path / "a-file").write_text("not a directory", encoding="utf-8")
    assert cli_main([str(input_dir), "--output-dir", str(tmp_path / "a-file" / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unreadable" not in err
    assert f"cannot write {tmp_path / 'a-file' / 'out'}" in err
