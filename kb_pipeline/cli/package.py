"""``kb-pipeline package`` command: package one MinerU output directory.

``main(argv)`` takes the arguments that follow the ``package`` subcommand.

On one of our own parse-cache entries (``_COMPLETE.json`` and ``origin.pdf`` beside MinerU's
output) the document is normalised first and the package uses the artifact's structure, exactly
as the ``kb_package`` asset does, so both give the same sections; the default document name is
then the source file's doc id, as in the asset. Output produced elsewhere is packaged from
MinerU's content list alone.

Default output directory: ``./kb_output/<doc_id>`` under the current directory, never inside
the MinerU output directory, which may be read-only. Image paths are written relative to
``--project-root`` (default: the current directory).

Exit codes: 0 success; 2 usage error, or an input directory without a usable content list.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..parsing.raw_output import RawOutputMismatchError
from ..rag.content_list import ContentListError
from ..rag.discovery import NoContentListError
from ..rag.metrics import format_metrics
from ..rag.packager import default_doc_name, package_document
from ..rag.structure import DocumentStructure, is_our_cache_entry, structure_for_raw_output
from ..sources import doc_id_for_name

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "mineru_output_dir", type=Path, help="MinerU output directory (with content_list_v2.json or content_list.json)"
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


def _our_structure(raw_dir: Path) -> tuple[str, DocumentStructure]:
    """Normalise one of our cache entries through the pipeline's own path; its doc id and the
    artifact's structure."""
    from ..parsing.cache import read_marker
    from ..parsing.cached_parse import RawOutputRef
    from ..pipeline import normalise_raw
    from ..sources import doc_id_for as source_doc_id

    marker = read_marker(raw_dir)
    source = Path(marker["source_path"])
    doc_id = source_doc_id(source)
    document = normalise_raw(source, RawOutputRef(raw_dir, True, 0.0, marker), doc_id=doc_id).document
    return doc_id, structure_for_raw_output(raw_dir, document)


def run(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    structure, doc_name = None, args.doc_name
    if is_our_cache_entry(args.mineru_output_dir):
        try:
            our_doc_id, structure = _our_structure(args.mineru_output_dir)
        except RawOutputMismatchError as exc:
            print(f"kb-pipeline package: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        doc_name = doc_name or our_doc_id
    doc_name = doc_name or default_doc_name(args.mineru_output_dir)
    output_dir = args.output_dir or cwd / "kb_output" / doc_id_for_name(doc_name)
    try:
        result = package_document(
            args.mineru_output_dir,
            output_dir,
            project_root=args.project_root or cwd,
            shared_output_dir=args.shared_output,
            doc_name=doc_name,
            structure=structure,
        )
    except (NoContentListError, ContentListError) as exc:
        print(f"kb-pipeline package: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(
        f"Packaged {result.doc_id} → {result.output_dir}"
        + (" (sections from our normaliser)" if structure is not None else "")
    )
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
