"""The batch producer of the parsing contract (`kb-pipeline run --input DIR [--out DIR]`, cli/run.py).

Writes `<out>/<run_id>/` as the contract's "Transport reality" describes: `manifest.json`
(config, timings per document, warnings), `failures.jsonl` (one line per failed document),
`<doc_id>/chunks.json` and `<doc_id>/mineru-source.txt`. It also updates the latest artifact per
document under `data/parsed/<doc_id>/chunks.json`, which is where artifact versions are counted.
A failed document never stops the others.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from .contracts import ParseFailure
from .files import write_text_atomically
from .parsing.backends import ParseBackend, backend_for
from .parsing.config import ParserConfig
from .parsing.errors import DocumentError
from .parsing.mineru_adapter import mineru_version
from .paths import DataLayout
from .pipeline import ARTIFACT_NAME, DocumentRun, Parsing, chunk_kinds, process_document, read_artifact, write_artifact
from .settings import Settings
from .sources import SourceFile, list_pdfs
from .versions import NORMALISER_VERSION


def _new_run_dir(out: Path) -> tuple[str, Path]:
    run_id = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate, n = run_id, 1
    while (out / candidate).exists():
        n += 1
        candidate = f"{run_id}-{n}"
    (out / candidate).mkdir(parents=True)
    return candidate, out / candidate


def run_batch(
    input_dir: Path,
    out: Path,
    config: ParserConfig,
    layout: DataLayout,
    progress=None,
    workers: int | None = None,
    settings: Settings | None = None,
    backend: ParseBackend | None = None,
) -> dict:
    """Parse every PDF in `input_dir`; returns the manifest it wrote. Progress lines go to
    `progress` (default: stderr, looked up at call time). `workers` documents at once (default:
    the settings' `parse_workers`), parsed by `backend` (default: the settings' backend, closed
    at the end)."""
    progress = progress or sys.stderr
    sources, skipped = list_pdfs(input_dir)
    run_id, run_dir = _new_run_dir(out)
    started = time.perf_counter()
    manifest: dict = {
        "run_id": run_id,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "input": str(input_dir),
        "parser_config": {"fingerprint": config.fingerprint, **config.model_dump()},
        "parser_name": "mineru",
        "parser_version": mineru_version(),
        "normaliser_version": NORMALISER_VERSION,
        "documents": [],
        "skipped": [{"path": str(p), "reason": reason} for p, reason in skipped],
        "warnings": [],
    }
    failures_path = run_dir / "failures.jsonl"
    failures_path.touch()

    def process(item: tuple[int, SourceFile]) -> tuple[DocumentRun | None, Exception | None, str, float]:
        n, source = item
        print(f"[{n}/{len(sources)}] {source.path.name} …", file=progress, flush=True)
        doc_started = time.perf_counter()
        try:
            latest = layout.parsed_dir(source.doc_id) / ARTIFACT_NAME
            label = f"[{n}/{len(sources)}] {source.path.name}"
            result = process_document(
                source.path,
                parsing,
                doc_id=source.doc_id,
                previous=read_artifact(latest),
                progress=lambda k, total, first, last: print(
                    f"{label} window {k}/{total} (pages {first}-{last})", file=progress, flush=True
                ),
            )
            return result, None, "", time.perf_counter() - doc_started
        except Exception as e:  # noqa: BLE001 — one bad document never stops the others
            return None, e, traceback.format_exc(), time.perf_counter() - doc_started

    def record(
        n: int, source: SourceFile, result: DocumentRun | None, error: Exception | None, trace: str, seconds: float
    ) -> None:
        label = f"[{n}/{len(sources)}] {source.path.name}"
        if result is None:
            assert error is not None
            failure = ParseFailure(
                doc_id=source.doc_id,
                source_path=str(source.path),
                error_type=type(error).__name__,
                message=str(error),
                traceback=trace,
            )
            with failures_path.open("a", encoding="utf-8") as f:
                f.write(failure.model_dump_json() + "\n")
            manifest["documents"].append(
                {
                    "doc_id": source.doc_id,
                    "source_path": str(source.path),
                    "status": "failed",
                    "error_type": failure.error_type,
                    "message": failure.message,
                    "expected": isinstance(error, DocumentError),
                    "seconds": round(seconds, 3),
                }
            )
            print(f"{label} FAILED {failure.error_type}: {failure.message}", file=progress, flush=True)
            return
        doc = result.document
        doc_dir = run_dir / doc.doc_id
        write_artifact(doc_dir / ARTIFACT_NAME, doc)
        write_text_atomically(
            doc_dir / "mineru-source.txt",
            f"{doc.raw_output_dir}\n# untouched MinerU {doc.parser_version} output "
            f"({doc.parser_backend}); cache {'hit' if result.raw.cache_hit else 'miss'}\n",
        )
        write_artifact(layout.parsed_dir(source.doc_id) / ARTIFACT_NAME, doc)
        manifest["warnings"] += [w.model_dump() for w in result.warnings]
        manifest["documents"].append(
            {
                "doc_id": doc.doc_id,
                "source_path": doc.source_path,
                "status": "ok",
                "version": doc.version,
                "pages": doc.n_pages,
                "chunks": len(doc.chunks),
                "chunks_by_kind": chunk_kinds(doc),
                "warnings": len(result.warnings),
                "cache_hit": result.raw.cache_hit,
                "raw_output_dir": doc.raw_output_dir,
                "checks": {
                    name: {"passed": c.passed, "problems": c.problems[:10], **c.metadata}
                    for name, c in result.checks.items()
                },
                "timings": result.timings,
                "seconds": round(seconds, 3),
            }
        )
        print(
            f"{label} ok: {doc.n_pages} pages, {len(doc.chunks)} chunks, {len(result.warnings)} warnings, "
            f"{seconds:.1f} s ({'cached' if result.raw.cache_hit else 'parsed'})",
            file=progress,
            flush=True,
        )
        for name, check in result.checks.items():
            if not check.passed:
                print(f"{label} CHECK FAILED {name}: {check.problems[0]}", file=progress, flush=True)

    # With more than one worker (KB_PARSE_WORKERS, default one per core), warm MinerU processes
    # parse while this process's threads hash, normalise and check (MinerU's API service, when
    # configured, is sent as many at once); documents are handed out in order, each to the next
    # free worker, and recorded in order. A cache hit never starts MinerU.
    settings = settings or Settings.from_env()
    n_workers = min(workers if workers is not None else settings.parse_workers, len(sources))
    owned = backend is None
    backend = backend or backend_for(settings.mineru_api, layout.mineru_home, n_workers)
    parsing = Parsing(config, layout, backend, settings.windows_per_worker)
    items = list(enumerate(sources, 1))
    try:
        if n_workers > 1:
            with ThreadPoolExecutor(n_workers) as threads:
                for (n, source), outcome in zip(items, threads.map(process, items)):
                    record(n, source, *outcome)
        else:  # MinerU in this process, on the main thread
            for n, source in items:
                record(n, source, *process((n, source)))
    finally:
        if owned:
            backend.close()
    manifest["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    manifest["seconds"] = round(time.perf_counter() - started, 3)
    manifest["totals"] = {
        "documents": len(sources),
        "ok": sum(d["status"] == "ok" for d in manifest["documents"]),
        "failed": sum(d["status"] == "failed" for d in manifest["documents"]),
        "skipped": len(skipped),
        "warnings": len(manifest["warnings"]),
    }
    write_text_atomically(run_dir / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=2))
    manifest["run_dir"] = str(run_dir)
    return manifest


def format_summary(manifest: dict) -> str:
    lines = [f"{'document':40} {'status':7} {'pages':>5} {'chunks':>6} {'warn':>4} {'sec':>6}  note"]
    for d in manifest["documents"]:
        if d["status"] == "ok":
            lines.append(
                f"{d['doc_id'][:40]:40} {'ok':7} {d['pages']:>5} {d['chunks']:>6} {d['warnings']:>4} "
                f"{d['seconds']:>6.1f}  {'cached' if d['cache_hit'] else 'parsed'}"
            )
        else:
            lines.append(
                f"{d['doc_id'][:40]:40} {'FAILED':7} {'':>5} {'':>6} {'':>4} {d['seconds']:>6.1f}  "
                f"{d['error_type']}: {d['message'][:100]}"
            )
    for s in manifest["skipped"]:
        lines.append(f"{Path(s['path']).name[:40]:40} {'skipped':7} {'':>25}  {s['reason']}")
    t = manifest["totals"]
    lines.append(
        f"{t['ok']} ok, {t['failed']} failed, {t['skipped']} skipped, {t['warnings']} warnings "
        f"in {manifest['seconds']:.1f} s → {manifest['run_dir']}"
    )
    return "\n".join(lines)
