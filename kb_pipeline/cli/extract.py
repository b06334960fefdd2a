"""`kb-pipeline extract ARTIFACT_OR_DIR… [--out-dir DIR]`: the knowledge payloads of parsed
documents (docs/knowledge.md), no Dagster. A folder is searched for `chunks.json` at any depth,
each read with the layout beside it (`page_layout.json`; without one, `usage.json` says what was lost);
each document's seven payloads go to `DIR/<doc_id>/` (default `<data root>/knowledge/`) by the
asset's own path (knowledge/payloads/payload_folder.py). The language model is the settings' (`KB_LLM_*`;
the embedded server by default, started only when an answer is not cached). The payloads are the
document's and the code's alone: the review desk's decisions are not read. A document that fails, for
whatever reason (its model endpoint down included), is reported on stderr and recorded in its
folder as `FAILED.txt` in place of its payloads (an earlier run's are removed, unless what
failed was the model's endpoint: they are kept beside the note); the others go on. Written to
the data root's knowledge folder (no `--out-dir`), each document's reviewable payloads are also
kept as its source's version (`<data root>/knowledge_versions/<doc_id>/<content_hash>/`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..contracts import ParsedDocument
from ..knowledge.payloads.contracts import MissingArtifact
from ..knowledge.payloads.payload_folder import (
    KnowledgeOutcome,
    knowledge_summary,
    language_model,
    record_failure,
    write_knowledge,
)
from ..paths import DataLayout
from ..pipeline import ARTIFACT_NAME, read_layout
from ..settings import Settings


def artifacts(inputs: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in inputs:
        found += sorted(path.rglob(ARTIFACT_NAME)) if path.is_dir() else [path]
    return found


def summary_line(outcome: KnowledgeOutcome, document: ParsedDocument) -> str:
    """A document's line: what it got, its tokens and time."""
    payloads = outcome.payloads
    assert payloads is not None
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in payloads.calls if not u.simulated)
    line = (
        f"{outcome.doc_id}: {knowledge_summary(payloads)}, {len(payloads.rejected)} rejected, "
        f"{tokens} tokens, {outcome.seconds:.2f} s"
    )
    if not any(chunk.text.strip() for chunk in document.chunks):
        line += " — no text in the document: empty payloads"
    missing = [u.missing_artifact for u in payloads.usage if isinstance(u, MissingArtifact)]
    if missing:
        line += f" — read without {', '.join(missing)}: usage.json says what was lost"
    return line


def main(argv: list[str] | None = None, settings: Settings | None = None) -> int:
    """`settings`: the command line's (cli/main.py); run on its own, the environment's."""
    parser = argparse.ArgumentParser(prog="kb-pipeline extract", description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", type=Path, metavar="ARTIFACT_OR_DIR", help="chunks.json or a folder")
    parser.add_argument("--out-dir", type=Path, default=None, help="default: <data root>/knowledge")
    args = parser.parse_args(argv)
    settings = settings or Settings.from_env()
    layout = DataLayout(settings.data_dir)
    out_dir = args.out_dir or layout.knowledge
    # Versions are the desk's: kept for the payloads it reads, not for an --out-dir elsewhere.
    keep_versions = out_dir.resolve() == layout.knowledge.resolve()
    found = artifacts(args.inputs)
    if not found:
        print(f"kb-pipeline extract: no {ARTIFACT_NAME} under {', '.join(map(str, args.inputs))}", file=sys.stderr)
        return 2
    failed = 0
    with language_model(settings.llm, layout.model_answers) as model:
        for artifact in found:
            try:
                document = ParsedDocument.model_validate_json(artifact.read_bytes())
                page_layout = read_layout(artifact, document)
            except Exception as exc:  # unreadable: recorded under the artifact's folder's name
                failed += 1
                print(record_failure(out_dir / artifact.parent.name, str(artifact), exc), file=sys.stderr, flush=True)
                continue
            versions = layout.document_versions(document.doc_id) if keep_versions else None
            outcome = write_knowledge(
                document, out_dir / document.doc_id, model, label=str(artifact), versions=versions, layout=page_layout
            )
            if outcome.payloads is None:
                failed += 1
                print(outcome.line, file=sys.stderr, flush=True)
            else:
                print(summary_line(outcome, document), flush=True)
                if outcome.warning:
                    print(outcome.warning, file=sys.stderr, flush=True)
    print(f"{len(found) - failed} of {len(found)} documents extracted → {out_dir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
