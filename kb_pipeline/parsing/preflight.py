"""What MinerU is asked to read, and how, decided before it runs: cheap checks that turn bad input
into a clear error (missing, empty, not a PDF, encrypted, damaged, too long, weights absent for
the tier asked), and the OCR decision — whether the text layer suffices (MinerU's `ocr_mode`
"txt"), which scanned pages Tesseract gives a text layer first, or MinerU's own OCR.

Its decisions change MinerU's output as a setting would, so this module is part of the
parser-config fingerprint (`versions.PREPROCESS_VERSION`): a change here re-parses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..pdf_text import PDFIUM_LOCK
from . import ocr
from .config import ParserConfig
from .errors import (
    CorruptPdfError,
    EmptyFileError,
    EncryptedPdfError,
    MissingModelWeightsError,
    NotAPdfError,
    SourceMissingError,
    TooManyPagesError,
)

_MAGIC = {
    b"\x89PNG": "png image",
    b"\xff\xd8\xff": "jpeg image",
    b"PK\x03\x04": "zip archive",
    b"GIF8": "gif image",
    b"%!PS": "postscript file",
    b"{\\rtf": "rtf document",
}


_TEXT_PROBE_PAGES = 20
_MIN_PAGE_TEXT_CHARS = 10
# A page without a usable text layer is a scan when raster images cover this much of it.
_MIN_SCAN_IMAGE_SHARE = 0.3


def _has_text_layer(page) -> bool:
    textpage = page.get_textpage()
    try:
        return len("".join(textpage.get_text_range().split())) >= _MIN_PAGE_TEXT_CHARS
    finally:
        textpage.close()


def _image_share(page) -> float:
    """Share of the page's area under raster images (summed, capped at 1): a scanned page is one
    image, or a stack of strips."""
    import pypdfium2

    width, height = page.get_size()
    area = 0.0
    for obj in page.get_objects(filter=[pypdfium2.raw.FPDF_PAGEOBJ_IMAGE], max_depth=3):
        left, bottom, right, top = obj.get_bounds()
        area += max(0.0, min(right, width) - max(left, 0.0)) * max(0.0, min(top, height) - max(bottom, 0.0))
    return min(1.0, area / (width * height)) if width * height > 0 else 0.0


def _page_indices(page_range: str, n_pages: int) -> set[int]:
    """0-based pages of MinerU's 1-based `page_range` ("1-5,8"; "" = all); all when unreadable."""
    spec = page_range.strip().lower()
    if spec in ("", "all"):
        return set(range(n_pages))
    pages: set[int] = set()
    try:
        for part in spec.split(","):
            first, _, last = part.strip().partition("-")
            pages.update(range(int(first) - 1, int(last or first)))
    except ValueError:
        return set(range(n_pages))
    return {p for p in pages if 0 <= p < n_pages}


@dataclass(frozen=True)
class Preflight:
    n_pages: int
    # What MinerU's `ocr_mode` is set to: "txt" whenever the text layer suffices, so MinerU
    # never loads models behind our back.
    ocr_mode: str
    # 0-based pages to OCR with Tesseract before MinerU reads the PDF as text (no weights).
    ocr_pages: tuple[int, ...] = ()


def _sniff(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return name
    try:
        head.decode("utf-8")
        return "text file"
    except UnicodeDecodeError:
        return "binary file of unknown type"


def _weights_repos(tier: str) -> str:
    # model_repos_for_tier knows only basic/standard: advanced needs standard's repos, and
    # flash with OCR loads the same small models as basic.
    return {"flash": "basic", "basic": "basic", "standard": "standard", "advanced": "standard"}[tier]


def missing_weights(tier: str) -> list[str]:
    """Paths of the weights `tier` needs that are not installed (empty when ready). No network."""
    from mineru.model.download import verify_model_repo
    from mineru.model.registry import model_repos_for_tier

    checks = [verify_model_repo(repo) for repo in model_repos_for_tier(_weights_repos(tier))]
    return [str(Path(check.root) / p) for check in checks if not check.ready for p in check.missing_paths]


def _require_weights(tier: str, why: str, instead: str) -> None:
    missing = missing_weights(tier)
    if missing:
        import mineru.config

        base_dir = mineru.config.config.model.base_dir or os.path.join(os.environ["MINERU_HOME"], "models")
        raise MissingModelWeightsError(
            f"{why} needs MinerU model weights that are not installed under {base_dir} "
            f"(missing: {missing[0]}{f' and {len(missing) - 1} more' if len(missing) > 1 else ''}). "
            f"On a machine with internet run `MINERU_MODEL_BASE_DIR={base_dir} "
            f"mineru-models-download --tier {_weights_repos(tier)} --source huggingface`, copy that folder here "
            f"(hidden .mineru_complete markers included) or point MINERU_MODEL_BASE_DIR at it; or {instead}."
        )


def preflight(pdf: Path, config: ParserConfig, display_name: str | None = None) -> Preflight:
    """Cheap checks (well under a second) that turn bad input into a clear error before MinerU
    spends time on it, and decide the OCR mode. `display_name` names the file in messages."""
    with PDFIUM_LOCK:
        return _preflight(pdf, config, display_name)


def _preflight(pdf: Path, config: ParserConfig, display_name: str | None) -> Preflight:
    import pypdfium2

    name = display_name or pdf.name
    if not pdf.is_file():
        raise SourceMissingError(f"{pdf} does not exist (moved or deleted before it was parsed)")
    with pdf.open("rb") as f:
        head = f.read(1024)
    if not head:
        raise EmptyFileError(f"{name} is empty (0 bytes); nothing to parse")
    if b"%PDF-" not in head:
        raise NotAPdfError(f"{name} is not a PDF: its content looks like a {_sniff(head)}")
    try:
        document = pypdfium2.PdfDocument(str(pdf))
    except pypdfium2.PdfiumError as e:
        if "password" in str(e).lower():
            raise EncryptedPdfError(
                f"{name} is password-protected; remove the password (e.g. `qpdf --decrypt`) and drop the file again"
            ) from e
        raise CorruptPdfError(f"{name} is damaged and cannot be opened ({e})") from e
    scan_pages: list[int] = []
    try:
        n_pages = len(document)
        pages_with_text = 0
        for i in range(n_pages if config.may_ocr_with_tesseract else min(n_pages, _TEXT_PROBE_PAGES)):
            page = document[i]
            try:
                has_text = _has_text_layer(page)
                pages_with_text += has_text and i < _TEXT_PROBE_PAGES
                if not has_text and config.may_ocr_with_tesseract and _image_share(page) >= _MIN_SCAN_IMAGE_SHARE:
                    scan_pages.append(i)
            finally:
                page.close()
    finally:
        document.close()
    if n_pages == 0:
        raise CorruptPdfError(f"{name} has no pages")
    if n_pages > config.max_pages:
        raise TooManyPagesError(
            f"{name} has {n_pages} pages, more than the configured limit of {config.max_pages}; "
            "raise max_pages or set page_range to parse part of it"
        )
    if config.tier != "flash":
        _require_weights(
            config.tier, f"Tier {config.tier!r}", "use tier 'flash', which reads the PDF's text layer with no weights"
        )
    if config.parse_mode == "txt":
        return Preflight(n_pages, "txt")
    if config.parse_mode == "ocr":
        _require_weights(config.tier, "OCR (parse_mode 'ocr')", "use parse_mode 'auto' or 'txt'")
        return Preflight(n_pages, "ocr")
    from docvortex.document.pdf import PDFDocument

    # docvortex's classifier calls some short, plain text PDFs "ocr"; a text layer on most
    # pages is the evidence that counts, so only a PDF without one needs the OCR models.
    mostly_text = pages_with_text * 2 >= min(n_pages, _TEXT_PROBE_PAGES) or PDFDocument(str(pdf)).classify() == "txt"
    # Pages that are scans (no text layer, mostly image) and that MinerU is asked to read.
    to_ocr = tuple(sorted(set(scan_pages) & _page_indices(config.page_range, n_pages)))
    if mostly_text and not to_ocr:
        return Preflight(n_pages, "txt")
    # With MinerU's weights installed its own path is kept: a mostly-text PDF is read as text,
    # a scanned one with MinerU's OCR.
    weights_ready = not missing_weights(config.tier)
    if mostly_text and weights_ready:
        return Preflight(n_pages, "txt")
    if not weights_ready and to_ocr:
        # MinerU's OCR weights are absent: Tesseract adds a text layer to exactly these pages.
        ocr.require_ocr(
            config.ocr_langs, f"{name} has no usable text layer on {len(to_ocr)} page(s) (a scanned PDF?): reading it"
        )
        return Preflight(n_pages, "txt", to_ocr)
    _require_weights(
        config.tier,
        f"{name} has no usable text layer (a scanned PDF?): reading it",
        "set parse_mode 'txt' to read only its text layer (expect little or no text)",
    )
    return Preflight(n_pages, "auto")
