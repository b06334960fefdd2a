"""``kb-pipeline package`` command: package one MinerU output directory.

``main(argv)`` takes the arguments that follow the ``package`` subcommand.

One path, as the ``kb_package`` asset takes: the output is normalised into a `ParsedDocument`
first (running heads removed, lost lines recovered from the PDF's text layer, headings from the
PDF's own signals), then packaged from it. On one of our own parse-cache entries
(``_COMPLETE.json`` and ``origin.pdf`` beside MinerU's output) the default document name is the
source file's doc id, as in the asset; on output produced elsewhere the normaliser needs the PDF
MinerU parsed: ``--pdf``, or a PDF in the directory.

Default output directory: ``./kb_output/<doc_id>`` under the current directory, never inside
the MinerU output directory, which may be read-only. Image paths are written relative to
``--project-root`` (default: the current directory).

Exit codes: 0 success; 1 the package could not be written (the file and the reason are named);
2 usage error, or an input directory the normaliser cannot read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..parsing.cache import COMPLETE_MARKER, read_marker
from ..parsing.cached_parse import RawOutputRef
from ..parsing.discovery import IncompleteOutputError, NoContentListError
from ..parsing.mineru_adapter import SOURCE_COPY
from ..parsing.raw_output import RawOutputMismatchError
from ..pipeline import normalise_mineru_output, normalise_raw
from ..rag.metrics import format_metrics
from ..rag.packager import PackageResult, PackageWriteError, default_doc_name, package_document
from ..sources import doc_id_for, doc_id_for_name

EXIT_OK = 0
EXIT_WRITE_FAILED = 1
EXIT_BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "mineru_output_dir",
        type=Path,
        help="MinerU 4 output directory (content_list.json, content_list_v2.json, middle_json.json; plain or prefixed)",
    )
    parser.add_argument(
        "--output-dir", "-o", type=Path, default=None, help="where to write the package (default: ./kb_output/<doc_id>)"
    )
    parser.add_argument(
        "--shared-output",
        "-s",
        type=Path,
        default=None,
        help="also copy the chunks to <DIR>/<doc_id>.jsonl, to collect many documents",
    )
    parser.add_argument(
        "--project-root",
        type=Path,
        default=None,
        help="image paths are written relative to this directory (default: current directory)",
    )
    parser.add_argument(
        "--doc-name", default=None, help="document name used in chunk ids (default: the input directory name)"
    )
    parser.add_argument(
        "--pdf",
        type=Path,
        default=None,
        help="the PDF MinerU parsed, whose text layer the normaliser reads (default: the PDF in the directory)",
    )


def _is_our_cache_entry(raw_dir: Path) -> bool:
    """A complete entry of our parse cache: MinerU's output, its marker and the PDF it parsed."""
    return (raw_dir / COMPLETE_MARKER).is_file() and (raw_dir / SOURCE_COPY).is_file()


def package_directory(
    mineru_output_dir: Path,
    output_dir: Path | None = None,
    *,
    project_root: Path,
    pdf: Path | None = None,
    doc_name: str | None = None,
    shared_output_dir: Path | None = None,
) -> PackageResult:
    """Normalise the directory's MinerU output into a `ParsedDocument`, then package it (into
    ``output_dir``, default ``./kb_output/<doc_id>``). Raises `NoContentListError`,
    `IncompleteOutputError`, `RawOutputMismatchError`, or what reading a malformed file raises."""
    if _is_our_cache_entry(mineru_output_dir) and pdf is None:
        marker = read_marker(mineru_output_dir)
        source = Path(marker["source_path"])
        doc_id = doc_id_for_name(doc_name) if doc_name else doc_id_for(source)
        ref = RawOutputRef(mineru_output_dir, True, 0.0, marker)
        normalised, pdf = normalise_raw(source, ref, doc_id=doc_id), mineru_output_dir / SOURCE_COPY
    else:
        doc_id = doc_id_for_name(doc_name or default_doc_name(mineru_output_dir))
        normalised, pdf = normalise_mineru_output(mineru_output_dir, doc_id=doc_id, pdf=pdf)
    document = normalised.document
    return package_document(
        document,
        normalised.layout,
        output_dir or Path.cwd() / "kb_output" / document.doc_id,
        project_root=project_root,
        source_pdf=pdf,
        shared_output_dir=shared_output_dir,
    )


def run(args: argparse.Namespace) -> int:
    try:
        result = package_directory(
            args.mineru_output_dir,
            args.output_dir,
            project_root=args.project_root or Path.cwd(),
            pdf=args.pdf,
            doc_name=args.doc_name,
            shared_output_dir=args.shared_output,
        )
    except PackageWriteError as exc:  # the output side: not the MinerU output's fault
        print(f"kb-pipeline package: error: {exc}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except (NoContentListError, IncompleteOutputError, RawOutputMismatchError) as exc:
        print(f"kb-pipeline package: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, KeyError) as exc:  # malformed files or items
        print(
            f"kb-pipeline package: error: {args.mineru_output_dir}: unreadable MinerU output "
            f"({type(exc).__name__}: {exc})",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    print(f"Packaged {result.doc_id} → {result.output_dir}")
    if result.shared_chunks_path:
        print(f"Shared copy: {result.shared_chunks_path}")
    print(format_metrics(result.metrics))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="kb-pipeline package",
        description="Package a MinerU output directory into a RAG knowledge-base package.",
    )
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help (0) and usage errors (2)
        return int(exc.code or 0)
    return run(args)
