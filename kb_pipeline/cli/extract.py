"""`kb-pipeline extract ARTIFACT_OR_DIR… [--out-dir DIR]`: the knowledge payloads of parsed
documents (docs/knowledge.md), no Dagster. A folder is searched for `chunks.json` at any depth;
each document's seven payloads go to `DIR/<doc_id>/` (default `<data root>/knowledge/`). A file
that cannot be read is reported and the others go on."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pydantic import ValidationError

from ..contracts import ParsedDocument
from ..knowledge.extract import extract_document
from ..paths import DataLayout
from ..settings import Settings

ARTIFACT_NAME = "chunks.json"


def artifacts(inputs: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in inputs:
        found += sorted(path.rglob(ARTIFACT_NAME)) if path.is_dir() else [path]
    return found


def extract_file(artifact: Path, out_dir: Path) -> str:
    """One document: its payloads written, and its summary line."""
    started = time.perf_counter()
    document = ParsedDocument.model_validate_json(artifact.read_bytes())
    payloads = extract_document(document)
    payloads.write(out_dir / document.doc_id)
    seconds = time.perf_counter() - started
    line = (
        f"{document.doc_id}: {len(payloads.glossary)} terms, {len(payloads.formulas)} formulas, "
        f"{len(payloads.interpretation_pack)} rules, {len(payloads.rejected)} rejected, {seconds:.2f} s"
    )
    if not any(chunk.text.strip() for chunk in document.chunks):
        line += " — no text in the document: empty payloads"
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kb-pipeline extract", description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path, metavar="ARTIFACT_OR_DIR", help="chunks.json or a folder")
    parser.add_argument("--out-dir", type=Path, default=None, help="default: <data root>/knowledge")
    args = parser.parse_args(argv)
    out_dir = args.out_dir or DataLayout(Settings.from_env().data_dir).knowledge
    found = artifacts(args.inputs)
    if not found:
        print(f"kb-pipeline extract: no {ARTIFACT_NAME} under {', '.join(map(str, args.inputs))}", file=sys.stderr)
        return 2
    failed = 0
    for artifact in found:
        try:
            print(extract_file(artifact, out_dir))
        except (OSError, ValueError, ValidationError) as exc:
            failed += 1
            print(f"{artifact}: not extracted — {type(exc).__name__}: {str(exc).splitlines()[0]}", file=sys.stderr)
    print(f"{len(found) - failed} of {len(found)} documents extracted → {out_dir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
