"""OCR with Tesseract (through OCRmyPDF) for pages that have no usable text layer, when MinerU's
own OCR weights are not installed.

The derived PDF MinerU parses is built in two steps:
1. OCRmyPDF (`--redo-ocr --pages …`) adds an invisible text layer to exactly the pages that need
   it; pages that have text are passed through untouched.
2. MinerU's flash tier ignores invisible text (render mode 3), and reads text that paints nothing
   (OCRmyPDF's GlyphLessFont) or text over a full-page image as a picture's content. So on the
   OCR'd pages of the copy MinerU parses, the scan image is dropped and OCRmyPDF's words are drawn
   at their positions and sizes in Helvetica (painted, WinAnsi: Latin-script languages). MinerU
   then reads them as ordinary paragraphs and titles.
When OCRmyPDF cannot read the PDF's structure at all (it exits with its input-file error, e.g.
"pdfminer could not process page 0" for a scan whose page dictionaries lack their /Type), the
pages to OCR are rendered by pdfium, which reads far more broken files, into a fresh copy with
nothing but the page image, and that copy is OCR'd: a scan must not fail for how its PDF is built.
Nothing here cleans the text: the chunks hold Tesseract's output verbatim.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import cast

from ..pdf_text import PDFIUM_LOCK
from .errors import OcrUnavailableError, ParserError

ENGINE = "tesseract"
DEFAULT_LANGS = "eng"
INSTALL_HINT = (
    "install Tesseract and OCRmyPDF (Debian: `apt-get install tesseract-ocr ocrmypdf`, "
    "which brings ghostscript; `make setup-ocr` does it)"
)
_LANGS_RE = re.compile(r"^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$")
_OCR_FORM_CALL = re.compile(rb"q\s+((?:[-\d.]+\s+){6})cm\s*/(OCR-[\w-]+)\s+Do\s*Q")
# Seconds OCRmyPDF may spend per page before Tesseract is given up on that page.
_TIMEOUT_PER_PAGE = 180
# OCRmyPDF's exit code for an input file it cannot read (`ExitCode.input_file`).
_INPUT_FILE_ERROR = 2
# Resolution of a page rendered for OCR when OCRmyPDF cannot read the original: Tesseract's best.
_RENDER_DPI = 300


def debian_package(lang: str) -> str:
    """The Debian package that ships a Tesseract language (`chi_sim` → tesseract-ocr-chi-sim)."""
    return f"tesseract-ocr-{lang.lower().replace('_', '-')}"


def check_langs(langs: str) -> str:
    if not _LANGS_RE.match(langs):
        raise ValueError(f"OCR languages {langs!r}: expected Tesseract codes joined by '+', e.g. 'eng+deu+fra'")
    return langs


def _clean_env() -> dict:
    # OCRmyPDF is the system's (/usr/bin/python3); keep our venv's Python settings out of it.
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _stamp(binary: str | None) -> tuple | None:
    if binary is None:
        return None
    try:
        st = os.stat(binary)
    except OSError:
        return None
    return (binary, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _version_of(stamp: tuple | None) -> str | None:
    if stamp is None:
        return None
    try:
        out = subprocess.run([stamp[0], "--version"], capture_output=True, text=True, timeout=60, env=_clean_env())
    except (OSError, subprocess.SubprocessError):
        return None
    first = (out.stdout or out.stderr).strip().splitlines()
    match = re.search(r"(\d+(\.\d+)+)", first[0]) if first else None
    return match.group(1) if match else None


def tesseract_version() -> str | None:
    """The installed Tesseract's version ("5.3.0"), or None; asked once per binary (path, mtime)."""
    return _version_of(_stamp(shutil.which("tesseract")))


def ocrmypdf_version() -> str | None:
    return _version_of(_stamp(shutil.which("ocrmypdf")))


@lru_cache(maxsize=8)
def _installed_langs(stamp: tuple | None) -> frozenset[str]:
    if stamp is None:
        return frozenset()
    out = subprocess.run([stamp[0], "--list-langs"], capture_output=True, text=True, timeout=60, env=_clean_env())
    return frozenset(line.strip() for line in out.stdout.splitlines()[1:] if line.strip())


def engine_label() -> str:
    """What the fingerprint and `parser_backend` name: `tesseract-5.3.0`, or `tesseract-missing`."""
    return f"{ENGINE}-{tesseract_version() or 'missing'}"


def fingerprint_settings(langs: str) -> dict:
    """What changes the OCR output: engine and version (Tesseract and OCRmyPDF), languages."""
    return {"engine": engine_label(), "ocrmypdf": ocrmypdf_version() or "missing", "langs": langs}


def require_ocr(langs: str, why: str) -> None:
    """Raise `OcrUnavailableError` naming what to install when Tesseract, OCRmyPDF or a
    language is missing."""
    missing = [name for name in ("tesseract", "ocrmypdf") if shutil.which(name) is None]
    if missing:
        raise OcrUnavailableError(
            f"{why} needs OCR, but {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed: {INSTALL_HINT}; "
            "or install MinerU's OCR weights (`mineru-models-download --tier basic`), "
            "or set parse_mode 'txt' to read only its text layer (expect little or no text)"
        )
    installed = _installed_langs(_stamp(shutil.which("tesseract")))
    absent = [lang for lang in check_langs(langs).split("+") if lang not in installed]
    if absent:
        packages = " ".join(debian_package(lang) for lang in absent)
        raise OcrUnavailableError(
            f"{why} needs OCR in {langs!r} (KB_OCR_LANGS), but Tesseract has no "
            f"{', '.join(repr(a) for a in absent)} language data: install it "
            f"(Debian: `apt-get install {packages}`) or change KB_OCR_LANGS; installed: {'+'.join(sorted(installed))}"
        )


@dataclass(frozen=True)
class OcrResult:
    pages: list[int]  # 0-based pages that got an OCR text layer
    seconds: float
    engine: str  # e.g. tesseract-5.3.0
    langs: str
    rendered: bool = False  # OCRmyPDF could not read the original: the OCR'd pages were rendered first


_HEX = re.compile(rb"<([0-9A-Fa-f]*)>")
_FONT = re.compile(rb"/([\w.-]+)(\s+[\d.]+\s+Tf)")


def _winansi_hex(match: re.Match) -> bytes:
    text = bytes.fromhex(match.group(1).decode()).decode("utf-16-be", errors="replace")
    return b"<" + text.encode("cp1252", errors="replace").hex().upper().encode() + b">"


def _painted_with_helvetica(data: bytes) -> bytes:
    """OCRmyPDF's invisible GlyphLessFont text (mode 3), painted in Helvetica (mode 0) at the same
    positions and sizes; strings re-encoded from UTF-16 to WinAnsi (outside it: '?')."""
    data = re.sub(rb"(?<![\d.])3 Tr\b", b"0 Tr", data)
    data = _FONT.sub(rb"/KbOcr\2", data)
    return _HEX.sub(_winansi_hex, data)


def _readable_text_layer(ocred: Path, out: Path, pages: list[int]) -> list[int]:
    """On the OCR'd pages keep only OCRmyPDF's text layer, painted; returns the pages that got it."""
    import pypdf
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(str(ocred)))
    # pypdf has no public call that adds an indirect object; `_add_object` is what its own
    # writer uses (pinned with pypdf in constraints.txt; test_ocr.py breaks if it changes).
    helvetica = {"/Type": "/Font", "/Subtype": "/Type1", "/BaseFont": "/Helvetica", "/Encoding": "/WinAnsiEncoding"}
    font = writer._add_object(DictionaryObject({NameObject(k): NameObject(v) for k, v in helvetica.items()}))
    with_text = []
    for index in pages:
        page = writer.pages[index]
        content = page.get_contents()
        calls = list(_OCR_FORM_CALL.finditer(content.get_data())) if content is not None else []
        resources = cast(DictionaryObject, page["/Resources"].get_object())
        xobjects = resources.get("/XObject") or {}
        if not calls or any("/" + call.group(2).decode() not in xobjects for call in calls):
            continue
        # MinerU's flash reads a form XObject as a picture, so the OCR form's drawing is inlined
        # into the page; the scan image is no longer drawn nor listed (MinerU lists resources).
        inlined = []
        for call in calls:
            form = xobjects["/" + call.group(2).decode()].get_object()
            inlined.append(b"q " + call.group(1) + b" cm\n" + _painted_with_helvetica(form.get_data()) + b"\nQ")
        resources[NameObject("/Font")] = DictionaryObject({NameObject("/KbOcr"): font})
        del resources[NameObject("/XObject")]
        stream = DecodedStreamObject()
        stream.set_data(b"\n".join(inlined) + b"\n")
        page[NameObject("/Contents")] = writer._add_object(stream)
        with_text.append(index)
    with out.open("wb") as f:
        writer.write(f)
    return with_text


def rendered_copy(source: Path, out: Path, pages: list[int], dpi: int = _RENDER_DPI) -> Path:
    """Write `out`: `source` rebuilt by pdfium, each of `pages` (0-based) as its rendered image
    alone (greyscale, at `dpi`), every other page imported as it is (its text layer kept)."""
    import pypdfium2

    with PDFIUM_LOCK:  # pdfium is not thread-safe (see pdf_text)
        original = pypdfium2.PdfDocument(str(source))
        rebuilt = pypdfium2.PdfDocument.new()
        try:
            for index in range(len(original)):
                if index not in pages:
                    rebuilt.import_pages(original, [index], index)
                    continue
                page = original[index]
                width, height = page.get_size()
                image = pypdfium2.PdfImage.new(rebuilt)
                image.set_bitmap(pypdfium2.PdfBitmap.from_pil(page.render(scale=dpi / 72).to_pil().convert("L")))
                image.set_matrix(pypdfium2.PdfMatrix().scale(width, height))
                new_page = rebuilt.new_page(width, height, index)
                new_page.insert_obj(image)
                new_page.gen_content()
            rebuilt.save(str(out))
        finally:
            rebuilt.close()
            original.close()
    return out


def _ocrmypdf(
    source: Path, ocred: Path, pages: list[int], langs: str, display_name: str
) -> subprocess.CompletedProcess[str]:
    jobs = max(1, min(len(pages), os.cpu_count() or 1))
    command = ["ocrmypdf", "--redo-ocr", "--pages", ",".join(str(p + 1) for p in pages), "-l", langs]
    command += ["--output-type", "pdf", "--optimize", "0", "--jobs", str(jobs)]
    command += ["--tesseract-timeout", str(_TIMEOUT_PER_PAGE), "--quiet", str(source), str(ocred)]
    try:
        return subprocess.run(
            command, capture_output=True, text=True, env=_clean_env(), timeout=60 + _TIMEOUT_PER_PAGE * len(pages)
        )
    except subprocess.TimeoutExpired as e:
        raise ParserError(f"OCR of {display_name} timed out after {e.timeout:.0f} s") from e


def ocr_pages(source: Path, out: Path, pages: list[int], langs: str, display_name: str) -> OcrResult:
    """Write `out`: `source` with an OCR text layer on `pages` (0-based) that MinerU reads."""
    require_ocr(langs, f"{display_name} has no usable text layer on {len(pages)} page(s) (a scanned PDF?): reading it")
    started = time.perf_counter()
    ocred = out.with_name(out.stem + ".ocrmypdf.pdf")
    rendered = out.with_name(out.stem + ".rendered.pdf")
    try:
        done = _ocrmypdf(source, ocred, pages, langs, display_name)
        unreadable = done.returncode == _INPUT_FILE_ERROR
        if unreadable:
            done = _ocrmypdf(rendered_copy(source, rendered, pages), ocred, pages, langs, display_name)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise ParserError(
                f"OCRmyPDF failed on {display_name} (exit {done.returncode}): {detail[-1] if detail else 'no message'}"
            )
        with_text = _readable_text_layer(ocred, out, pages)
    finally:
        ocred.unlink(missing_ok=True)
        rendered.unlink(missing_ok=True)
    return OcrResult(with_text, time.perf_counter() - started, engine_label(), langs, unreadable)
