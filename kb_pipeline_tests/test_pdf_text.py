"""The PDF text layer's segments (kb_pipeline/pdf_text.py), which the knowledge readers lay a
page out from: a line is cut where the gap to the last inked character is wider than the type
size (a gutter between columns), never at a word space (reportlab, generated here)."""

from __future__ import annotations

from kb_pipeline.pdf_text import PdfTextLayer


def test_a_line_is_cut_at_a_gutter_and_not_at_word_spaces(tmp_path):
    from reportlab.pdfgen import canvas

    pdf = tmp_path / "columns.pdf"
    c = canvas.Canvas(str(pdf), pagesize=(612, 792))
    c.setFont("Helvetica", 10)
    c.drawString(72, 700, "The left column, its words spaced")
    c.drawString(330, 700, "and the right column")
    c.drawString(72, 680, "One line, one segment, however long it runs across the page.")
    c.save()
    layer = PdfTextLayer(pdf)
    try:
        texts = [segment.text for segment in layer.segments(0)]
    finally:
        layer.close()
    assert texts == [
        "The left column, its words spaced",
        "and the right column",
        "One line, one segment, however long it runs across the page.",
    ]
