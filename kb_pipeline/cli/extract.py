"""`kb-pipeline extract ARTIFACT_OR_DIR… [--out-dir DIR]`: the knowledge payloads of parsed
documents (docs/knowledge.md), no Dagster. A folder is searched for `chunks.json` at any depth;
each document's seven payloads go to `DIR/<doc_id>/` (default `<data root>/knowledge/`). The
language model is the settings' (`KB_LLM_*`; the embedded server by default, started only when
an answer is not cached). Each glossary is diffed against the review desk's active glossary
(`diff_status`). A document that fails, for whatever reason (its model endpoint down included),
is reported on stderr and recorded in its folder as `FAILED.txt` in place of its payloads (an
earlier run's are removed, unless what failed was the model's endpoint: they are kept beside the
note); the others go on."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..contracts import ParsedDocument
from ..files import write_text_atomically
from ..knowledge.contracts import Payloads
from ..knowledge.diff import ApprovedDefinition, apply_diff
from ..knowledge.extract import extract_document
from ..llm.model import LanguageModel, ModelFailed, ResponseCache
from ..paths import DataLayout
from ..review_desk.store import read_active_glossary
from ..settings import Settings

ARTIFACT_NAME = "chunks.json"
FAILURE_NAME = "FAILED.txt"
PAYLOAD_NAMES = tuple(f"{name}.json" for name in Payloads.model_fields)


def artifacts(inputs: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in inputs:
        found += sorted(path.rglob(ARTIFACT_NAME)) if path.is_dir() else [path]
    return found


def _clear(folder: Path) -> None:
    """An earlier run's payloads and failure note: what is there after a run is this run's."""
    for name in (*PAYLOAD_NAMES, FAILURE_NAME):
        (folder / name).unlink(missing_ok=True)


def extract_file(
    artifact: Path, out_dir: Path, model: LanguageModel | None = None, active: Sequence[ApprovedDefinition] = ()
) -> str:
    """One document: its payloads, diffed against the active glossary `active`, written; and its
    summary line."""
    started = time.perf_counter()
    document = ParsedDocument.model_validate_json(artifact.read_bytes())
    folder = out_dir / document.doc_id
    try:
        payloads = apply_diff(extract_document(document, model=model), active)
        _clear(folder)
        payloads.write(folder)
    except Exception as exc:
        raise DocumentFailed(document.doc_id) from exc
    seconds = time.perf_counter() - started
    calls = [u for u in payloads.usage if not u.simulated]
    line = (
        f"{document.doc_id}: {len(payloads.glossary)} terms, {len(payloads.formulas)} formulas, "
        f"{len(payloads.interpretation_pack)} rules, {len(payloads.rejected)} rejected, "
        f"{len(calls)} model calls ({len(payloads.usage) - len(calls)} cached), "
        f"{sum(u.prompt_tokens + u.completion_tokens for u in calls)} tokens, {seconds:.2f} s"
    )
    if not any(chunk.text.strip() for chunk in document.chunks):
        line += " — no text in the document: empty payloads"
    return line


class DocumentFailed(Exception):
    """A document was read but its extraction failed: `doc_id` names its output folder."""

    def __init__(self, doc_id: str) -> None:
        super().__init__(doc_id)
        self.doc_id = doc_id


def record_failure(artifact: Path, out_dir: Path, exc: Exception) -> str:
    """The failure's line; written to the document's folder (named by its doc_id, or by the
    artifact's folder when the artifact could not be read) in place of its payloads."""
    cause = exc.__cause__ if isinstance(exc, DocumentFailed) and exc.__cause__ else exc
    message = (str(cause).splitlines() or [""])[0]
    line = f"{artifact}: not extracted — {type(cause).__name__}: {message}"
    folder = out_dir / (exc.doc_id if isinstance(exc, DocumentFailed) else artifact.parent.name)
    # The model's endpoint failing says nothing about the document: its earlier payloads (and
    # the review decisions bound to them) stay until a run succeeds, as in the asset graph.
    keep = isinstance(cause, ModelFailed) and (folder / PAYLOAD_NAMES[0]).is_file()
    if keep:
        line += " (the earlier payloads are kept)"
    try:
        if not keep:
            _clear(folder)
        write_text_atomically(folder / FAILURE_NAME, line + "\n")
    except OSError as error:
        line += f" (and the failure could not be recorded in {folder}: {error})"
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kb-pipeline extract", description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path, metavar="ARTIFACT_OR_DIR", help="chunks.json or a folder")
    parser.add_argument("--out-dir", type=Path, default=None, help="default: <data root>/knowledge")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    layout = DataLayout(settings.data_dir)
    out_dir = args.out_dir or layout.knowledge
    found = artifacts(args.inputs)
    if not found:
        print(f"kb-pipeline extract: no {ARTIFACT_NAME} under {', '.join(map(str, args.inputs))}", file=sys.stderr)
        return 2
    # The review desk's approved entries: every document's diff_status is set against them.
    active = read_active_glossary(settings.review_database_url, layout)
    failed = 0
    model = LanguageModel(settings.llm, ResponseCache(layout.model_answers)) if settings.llm else None
    try:
        for artifact in found:
            try:
                print(extract_file(artifact, out_dir, model, active), flush=True)
            except Exception as exc:  # one document's failure, whatever it is, must not stop the others
                failed += 1
                print(record_failure(artifact, out_dir, exc), file=sys.stderr, flush=True)
    finally:
        if model is not None:
            model.close()
    print(f"{len(found) - failed} of {len(found)} documents extracted → {out_dir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
