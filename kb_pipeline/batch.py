"""The batch producer of the parsing contract (`kb-pipeline run --input DIR [--out DIR]`, cli/run.py).

Writes `<out>/<run_id>/` as the contract's "Transport reality" describes: `manifest.json`
(config, timings per document, warnings), `failures.jsonl` (one line per failed document),
`<doc_id>/chunks.json` with its layout `<doc_id>/page_layout.json`, and `<doc_id>/mineru-source.txt`.
It also updates the latest artifacts per document under `data/parsed/<doc_id>/`, which is where
artifact versions are counted.
A failed document never stops the others.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from .contracts import ParseFailure, QualityWarning
from .files import write_text_atomically
from .parsing.backends import ParseBackend, backend_for
from .parsing.config import ParserConfig
from .parsing.errors import DocumentError
from .parsing.mineru_adapter import mineru_version
from .paths import DataLayout
from .pipeline import ARTIFACT_NAME, DocumentRun, Parsing, chunk_kinds, process_document, read_artifact, write_artifacts
from .run_manifest import FailedEntry, ParsedEntry, RunManifest, RunTotals, SkippedFile
from .settings import Settings
from .sources import SourceFile, list_pdfs
from .versions import NORMALISER_VERSION

FAILURES_FILE = "failures.jsonl"


def _new_run_dir(out: Path) -> tuple[str, Path]:
    run_id = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate, n = run_id, 1
    while (out / candidate).exists():
        n += 1
        candidate = f"{run_id}-{n}"
    (out / candidate).mkdir(parents=True)
    return candidate, out / candidate


@dataclass(frozen=True)
class _Outcome:
    """One document's parse: its run, or the error that stopped it."""

    source: SourceFile
    label: str
    result: DocumentRun | None
    error: Exception | None
    trace: str
    seconds: float


@dataclass(frozen=True)
class _Batch:
    """What parsing and recording one document of this run need."""

    run_dir: Path
    layout: DataLayout
    parsing: Parsing
    total: int
    progress: TextIO

    def say(self, line: str) -> None:
        print(line, file=self.progress, flush=True)

    def parse(self, item: tuple[int, SourceFile]) -> _Outcome:
        n, source = item
        label = f"[{n}/{self.total}] {source.path.name}"
        self.say(f"{label} …")
        started = time.perf_counter()
        try:
            result = process_document(
                source.path,
                self.parsing,
                doc_id=source.doc_id,
                previous=read_artifact(self.layout.parsed_dir(source.doc_id) / ARTIFACT_NAME),
                progress=lambda k, total, first, last: self.say(f"{label} window {k}/{total} (pages {first}-{last})"),
            )
            return _Outcome(source, label, result, None, "", time.perf_counter() - started)
        except Exception as e:  # noqa: BLE001 — one bad document never stops the others
            return _Outcome(source, label, None, e, traceback.format_exc(), time.perf_counter() - started)

    def record(self, outcome: _Outcome) -> ParsedEntry | FailedEntry:
        """Write the document's files (or its failure line) and report it; its manifest entry."""
        if outcome.result is None:
            return self._record_failure(outcome)
        result, label, seconds = outcome.result, outcome.label, outcome.seconds
        doc = result.document
        doc_dir = self.run_dir / doc.doc_id
        write_artifacts(doc_dir, doc, result.layout)
        write_text_atomically(
            doc_dir / "mineru-source.txt",
            f"{doc.raw_output_dir}\n# untouched MinerU {doc.parser_version} output "
            f"({doc.parser_backend}); cache {'hit' if result.raw.cache_hit else 'miss'}\n",
        )
        write_artifacts(self.layout.parsed_dir(outcome.source.doc_id), doc, result.layout)
        self.say(
            f"{label} ok: {doc.n_pages} pages, {len(doc.chunks)} chunks, {len(result.warnings)} warnings, "
            f"{seconds:.1f} s ({'cached' if result.raw.cache_hit else 'parsed'})"
        )
        for name, check in result.checks.items():
            if not check.passed:
                self.say(f"{label} CHECK FAILED {name}: {check.problems[0]}")
        return ParsedEntry(
            doc_id=doc.doc_id,
            source_path=doc.source_path,
            version=doc.version,
            pages=doc.n_pages,
            chunks=len(doc.chunks),
            chunks_by_kind=chunk_kinds(doc),
            warnings=len(result.warnings),
            cache_hit=result.raw.cache_hit,
            raw_output_dir=doc.raw_output_dir,
            checks={
                name: {"passed": c.passed, "problems": c.problems[:10], **c.metadata}
                for name, c in result.checks.items()
            },
            timings=result.timings,
            seconds=round(seconds, 3),
        )

    def _record_failure(self, outcome: _Outcome) -> FailedEntry:
        source, error = outcome.source, outcome.error
        assert error is not None
        failure = ParseFailure(
            doc_id=source.doc_id,
            source_path=str(source.path),
            error_type=type(error).__name__,
            message=str(error),
            traceback=outcome.trace,
        )
        with (self.run_dir / FAILURES_FILE).open("a", encoding="utf-8") as f:
            f.write(failure.model_dump_json() + "\n")
        self.say(f"{outcome.label} FAILED {failure.error_type}: {failure.message}")
        return FailedEntry(
            doc_id=source.doc_id,
            source_path=str(source.path),
            error_type=failure.error_type,
            message=failure.message,
            expected=isinstance(error, DocumentError),
            seconds=round(outcome.seconds, 3),
        )


def _outcomes(batch: _Batch, sources: list[SourceFile], n_workers: int) -> Iterator[_Outcome]:
    """Every document's outcome, in order. With more than one worker (KB_PARSE_WORKERS, default
    one per core), warm MinerU processes parse while this process's threads hash, normalise and
    check (MinerU's API service, when configured, is sent as many at once); documents are handed
    out in order, each to the next free worker. A cache hit never starts MinerU."""
    items = list(enumerate(sources, 1))
    if n_workers > 1:
        with ThreadPoolExecutor(n_workers) as threads:
            yield from threads.map(batch.parse, items)
    else:  # MinerU in this process, on the main thread
        for item in items:
            yield batch.parse(item)


def run_batch(
    input_dir: Path,
    out: Path,
    config: ParserConfig,
    layout: DataLayout,
    progress: TextIO | None = None,
    workers: int | None = None,
    settings: Settings | None = None,
    backend: ParseBackend | None = None,
) -> RunManifest:
    """Parse every PDF in `input_dir`; returns the manifest it wrote. Progress lines go to
    `progress` (default: stderr, looked up at call time). `workers` documents at once (default:
    the settings' `parse_workers`), parsed by `backend` (default: the settings' backend, closed
    at the end)."""
    sources, skipped = list_pdfs(input_dir)
    run_id, run_dir = _new_run_dir(out)
    started_at, started = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
    (run_dir / FAILURES_FILE).touch()
    settings = settings or Settings.from_env()
    n_workers = min(workers if workers is not None else settings.parse_workers, len(sources))
    owned = backend is None
    backend = backend or backend_for(settings.mineru_api, layout.mineru_home, n_workers)
    batch = _Batch(
        run_dir,
        layout,
        Parsing(config, layout, backend, settings.windows_per_worker),
        len(sources),
        progress or sys.stderr,
    )
    documents: list[ParsedEntry | FailedEntry] = []
    warnings: list[QualityWarning] = []
    try:
        for outcome in _outcomes(batch, sources, n_workers):
            documents.append(batch.record(outcome))
            warnings += outcome.result.warnings if outcome.result else []
    finally:
        if owned:
            backend.close()
    manifest = RunManifest(
        run_id=run_id,
        started_at=started_at,
        input=str(input_dir),
        parser_config={"fingerprint": config.fingerprint, **config.model_dump()},
        parser_version=mineru_version(),
        normaliser_version=NORMALISER_VERSION,
        documents=documents,
        skipped=[SkippedFile(path=str(p), reason=reason) for p, reason in skipped],
        warnings=warnings,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        seconds=round(time.perf_counter() - started, 3),
        totals=RunTotals(
            documents=len(sources),
            ok=sum(d.status == "ok" for d in documents),
            failed=sum(d.status == "failed" for d in documents),
            skipped=len(skipped),
            warnings=len(warnings),
        ),
        run_dir=run_dir,
    )
    write_text_atomically(run_dir / "manifest.json", manifest.to_json())
    return manifest


def format_summary(manifest: RunManifest) -> str:
    lines = [f"{'document':40} {'status':7} {'pages':>5} {'chunks':>6} {'warn':>4} {'sec':>6}  note"]
    for d in manifest.documents:
        if isinstance(d, ParsedEntry):
            lines.append(
                f"{d.doc_id[:40]:40} {'ok':7} {d.pages:>5} {d.chunks:>6} {d.warnings:>4} "
                f"{d.seconds:>6.1f}  {'cached' if d.cache_hit else 'parsed'}"
            )
        else:
            lines.append(
                f"{d.doc_id[:40]:40} {'FAILED':7} {'':>5} {'':>6} {'':>4} {d.seconds:>6.1f}  "
                f"{d.error_type}: {d.message[:100]}"
            )
    for s in manifest.skipped:
        lines.append(f"{Path(s.path).name[:40]:40} {'skipped':7} {'':>25}  {s.reason}")
    t = manifest.totals
    lines.append(
        f"{t.ok} ok, {t.failed} failed, {t.skipped} skipped, {t.warnings} warnings "
        f"in {manifest.seconds:.1f} s → {manifest.run_dir}"
    )
    return "\n".join(lines)
