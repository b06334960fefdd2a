"""Checks a `ParsedDocument` must pass before anything downstream trusts it. Unlike quality
warnings (which describe the source), a failed check means the artifact is wrong."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..contracts import CHUNK_ID_PATTERN, ParsedDocument, QualityWarning, make_chunk_id
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .text_coverage import COVERAGE_THRESHOLD, MIN_WORDS, TextCoverage, measure_text_coverage
from .verbatim import source_pieces, verbatim_violations


@dataclass(frozen=True)
class ArtifactCheck:
    """One check, as the UI lists it: `blocking` stops downstream assets when it fails; a check
    that is not `severe` fails as a warning (the artifact is usable, with a caveat)."""

    name: str
    description: str
    severe: bool = False
    blocking: bool = False


ARTIFACT_CHECKS = (
    ArtifactCheck("chunk_ids_well_formed", "chunk ids are '<doc_id>::<seq:04d>', in sequence and unique"),
    ArtifactCheck("text_verbatim", "every chunk's text is verbatim pieces of its MinerU source items"),
    ArtifactCheck(
        "not_empty",
        "at least one chunk with text: a stage that yields nothing fails loudly",
        severe=True,
        blocking=True,
    ),
    ArtifactCheck("formula_numbers_match", "numbers in formulas and tables are printed in the PDF's text layer"),
    ArtifactCheck(
        "text_coverage",
        "at least 99 % of the PDF text layer's lines (>= 5 words, running "
        "headers/footers excluded) are found in the artifact",
    ),
)


@dataclass
class CheckOutcome:
    passed: bool
    description: str
    problems: list[str] = field(default_factory=list)
    # Figures a reader wants beside the verdict (e.g. the coverage and the first missing lines).
    metadata: dict[str, Any] = field(default_factory=dict)


def check_chunk_ids(document: ParsedDocument) -> CheckOutcome:
    problems = []
    for seq, chunk in enumerate(document.chunks):
        match = CHUNK_ID_PATTERN.match(chunk.chunk_id)
        if not match or match["doc_id"] != document.doc_id or chunk.doc_id != document.doc_id:
            problems.append(f"{chunk.chunk_id!r} is not of the form '{document.doc_id}::NNNN'")
        elif chunk.chunk_id != make_chunk_id(document.doc_id, seq):
            problems.append(f"{chunk.chunk_id!r} is out of sequence (expected {make_chunk_id(document.doc_id, seq)!r})")
    ids = [c.chunk_id for c in document.chunks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    problems += [f"{i!r} is used more than once" for i in duplicates]
    return CheckOutcome(not problems, "chunk ids are '<doc_id>::<seq:04d>', in sequence and unique", problems)


def check_not_empty(document: ParsedDocument) -> CheckOutcome:
    problems = []
    if not any(c.text.strip() for c in document.chunks):
        problems.append(
            f"{len(document.chunks)} chunk(s), none with text, from {document.n_pages} page(s): a stage yielded "
            "nothing (a scanned PDF without OCR, or a parse that went wrong)"
        )
    return CheckOutcome(not problems, "the document has at least one chunk with text", problems)


def check_verbatim(document: ParsedDocument, raw: RawOutput, text_layer: PdfTextLayer) -> CheckOutcome:
    problems = [
        f"{chunk.chunk_id}: {p}"
        for chunk in document.chunks
        for p in verbatim_violations(chunk, source_pieces(chunk, raw, text_layer))
    ]
    return CheckOutcome(not problems, "every chunk's text is verbatim pieces of its source items", problems)


def check_formula_numbers(warnings: list[QualityWarning]) -> CheckOutcome:
    problems = [f"{w.chunk_id}: {w.detail}" for w in warnings if w.jenis == "angka_tidak_cocok"]
    return CheckOutcome(
        not problems, "every number in formulas and tables is printed in the PDF's text layer", problems
    )


def check_text_coverage(coverage: TextCoverage, first: int = 10) -> CheckOutcome:
    problems = [f"page {line.page_idx + 1}: {line.text}" for line in coverage.missing]
    return CheckOutcome(
        coverage.passed,
        f"{coverage.coverage:.2%} of the PDF text layer's lines ({coverage.found} of {coverage.counted}; "
        f">= {MIN_WORDS} words, running headers/footers excluded) are in the artifact; warns below "
        f"{COVERAGE_THRESHOLD:.0%}",
        problems,
        {
            "coverage": round(coverage.coverage, 4),
            "lines_counted": coverage.counted,
            "lines_found": coverage.found,
            "first_missing": [{"page_no": line.page_idx + 1, "text": line.text} for line in coverage.missing[:first]],
        },
    )


def run_artifact_checks(
    document: ParsedDocument,
    raw: RawOutput,
    text_layer: PdfTextLayer,
    warnings: list[QualityWarning],
    coverage: TextCoverage | None = None,
) -> dict[str, CheckOutcome]:
    """`coverage` is the text-layer coverage of the document's chunks when the caller measured it
    already (the `teks_hilang` warnings come from the same measurement)."""
    if coverage is None:
        coverage = measure_text_coverage(document.chunks, text_layer)
    return {  # in the order of ARTIFACT_CHECKS
        "chunk_ids_well_formed": check_chunk_ids(document),
        "text_verbatim": check_verbatim(document, raw, text_layer),
        "not_empty": check_not_empty(document),
        "formula_numbers_match": check_formula_numbers(warnings),
        "text_coverage": check_text_coverage(coverage),
    }
