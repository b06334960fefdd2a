"""Why a document did not parse, in words a person can act on.

Every failure of one document is a `DocumentError` subclass; its class name is the
`error_type` recorded in failures.jsonl and shown in Dagster. MinerU's own exceptions
(`ValueError`, `pypdfium2.PdfiumError`, `FileNotFoundError`, …) are translated here so no
caller has to know them.
"""

from __future__ import annotations


class DocumentError(Exception):
    """A problem with one document; the others go on."""


class SourceMissingError(DocumentError):
    pass


class EmptyFileError(DocumentError):
    pass


class NotAPdfError(DocumentError):
    pass


class CorruptPdfError(DocumentError):
    pass


class EncryptedPdfError(DocumentError):
    pass


class TooManyPagesError(DocumentError):
    pass


class MissingModelWeightsError(DocumentError):
    """A tier or an OCR-only document needs MinerU weights that are not installed."""


class OcrUnavailableError(DocumentError):
    """Pages need OCR and neither MinerU's weights nor Tesseract (or its language data) are installed."""


class SourceChangedError(DocumentError):
    """The file's bytes changed while it was being parsed; parse it again when it is stable."""


class ParserError(DocumentError):
    """MinerU itself failed on this document for a reason not translated above."""


class ParseServiceError(Exception):
    """The parser, not the document: MinerU's API service unreachable or gone mid-parse, or a
    local parse worker that died. Not a `DocumentError` — the same document is worth trying
    again (Dagster retries the step; `kb-pipeline run` records it as failed for this run only).
    Nothing is cached for it."""
