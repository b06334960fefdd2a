"""The order documents are handed to parallel workers (`largest_first`, used by `kb-pipeline
ingest` and the drop-folder sensor): the most pages first, so the last run to end is a short one.
A file's bytes are mostly its images: a one-page scan-sized picture must not go before a long
text document."""

from __future__ import annotations

import io
import os

from kb_pipeline.drop_folder import FolderState, largest_first, page_count, scan

from .samples import text_pdf


def _picture_pdf(path) -> None:
    """One page holding a photo-sized picture of noise: a large file (PNG cannot compress it)."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    picture = Image.frombytes("RGB", (700, 700), os.urandom(700 * 700 * 3))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    page = canvas.Canvas(str(path))
    page.drawString(72, 800, "A figure")
    page.drawImage(ImageReader(io.BytesIO(buffer.getvalue())), 72, 72, width=400, height=400)
    page.save()


def test_documents_run_longest_by_pages_first_and_a_damaged_file_last(tmp_path):
    folder = tmp_path / "drop"
    folder.mkdir()
    _picture_pdf(folder / "picture.pdf")
    paragraph = "The pump is inspected every month and its seals are replaced when they leak. " * 12
    text_pdf(folder / "manual.pdf", [paragraph] * 40, title="Pump manual")
    text_pdf(folder / "note.pdf", [paragraph] * 2, title="Pump note")
    (folder / "damaged.pdf").write_bytes(b"%PDF-1.7\n" + b"x" * 2_000_000)

    ready = scan(folder, FolderState(), "identity", require_stable=False)[0].ready
    sizes = {item.source.path.name: item.source.size for item in ready}
    assert sizes["picture.pdf"] > sizes["manual.pdf"], sizes  # what ordering by bytes got wrong
    assert page_count(folder / "manual.pdf") > 5
    assert page_count(folder / "damaged.pdf") == 0

    order = [item.source.path.name for item in largest_first(ready)]
    assert order == ["manual.pdf", "picture.pdf", "note.pdf", "damaged.pdf"], order
