"""The batch producer of the parsing contract: `python -m kb_pipeline.run --input DIR [--out DIR]`.

Writes `<out>/<run_id>/` as the contract's "Transport reality" describes: `manifest.json`
(config, timings per document, warnings), `failures.jsonl` (one line per failed document),
`<doc_id>/chunks.json` and `<doc_id>/mineru-source.txt`. It also updates the latest artifact per
document under `data/parsed/<doc_id>/chunks.json`, which is where artifact versions are counted.
A failed document never stops the others.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from .config import ParserConfig
from .contracts import ParseFailure
from .files import write_text_atomically
from .parsing.errors import DocumentError
from .parsing.mineru_adapter import mineru_version
from .parsing.mineru_api import api_url
from .parsing.workers import default_workers, use_pool
from .paths import DataLayout
from .pipeline import ARTIFACT_NAME, DocumentRun, chunk_kinds, process_document, read_artifact, write_artifact
from .settings import Settings
from .sources import SourceFile, list_pdfs
from .versions import NORMALISER_VERSION


def add_parser_options(parser: argparse.ArgumentParser) -> None:
    """Parser options; each one left out keeps the setting's value (`Settings`: KB_TIER, …)."""
    parser.add_argument(
        "--tier",
        choices=["flash", "basic", "standard", "advanced"],
        help="MinerU tier (default: KB_TIER or flash, which needs no model weights)",
    )
    parser.add_argument("--parse-mode", choices=["auto", "txt", "ocr"], help="default: KB_PARSE_MODE or auto")
    parser.add_argument("--page-range", help='MinerU page range, e.g. "1-5,8" (default: KB_PAGE_RANGE or all)')
    parser.add_argument("--max-pages", type=int, help="default: KB_MAX_PAGES or 3000")
    parser.add_argument(
        "--ocr-langs", help="Tesseract languages for scanned pages, e.g. eng+deu+fra (default: KB_OCR_LANGS or eng)"
    )
    parser.add_argument(
        "--parse-window",
        type=int,
        help="parse documents longer than this in page windows (default: KB_PARSE_WINDOW or 50; 0: never)",
    )


def config_from_args(args: argparse.Namespace, base: ParserConfig) -> ParserConfig:
    """`base` (the settings' parser config) with the options given on the command line."""
    given = {
        name: getattr(args, name)
        for name in ("tier", "parse_mode", "page_range", "max_pages", "ocr_langs", "parse_window")
        if getattr(args, name) is not None
    }
    return ParserConfig.model_validate({**base.model_dump(), **given})


def _new_run_dir(out: Path) -> tuple[str, Path]:
    run_id = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate, n = run_id, 1
    while (out / candidate).exists():
        n += 1
        candidate = f"{run_id}-{n}"
    (out / candidate).mkdir(parents=True)
    return candidate, out / candidate


def run_batch(
    input_dir: Path, out: Path, config: ParserConfig, layout: DataLayout, progress=None, workers: int | None = None
) -> dict:
    """Parse every PDF in `input_dir`; returns the manifest it wrote. Progress lines go to
    `progress` (default: stderr, looked up at call time)."""
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
                config,
                layout,
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
    # parse while this process's threads hash, normalise and check; documents are handed out in
    # order, each to the next free worker, and recorded in order. A cache hit never starts MinerU.
    n_workers = min(workers if workers is not None else default_workers(), len(sources))
    items = list(enumerate(sources, 1))
    with ExitStack() as stack:
        results: Iterator[tuple[DocumentRun | None, Exception | None, str, float]]
        if n_workers > 1:
            if api_url() is None:  # else MinerU's API service parses: send it as many at once
                stack.enter_context(use_pool(n_workers, layout.mineru_home))
            results = stack.enter_context(ThreadPoolExecutor(n_workers)).map(process, items)
        else:
            results = map(process, items)
        for (n, source), outcome in zip(items, results):
            record(n, source, *outcome)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb_pipeline.run", description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, required=True, help="folder of PDFs")
    parser.add_argument("--out", type=Path, default=None, help="run records (default: data/knowledge_runs)")
    add_parser_options(parser)
    args = parser.parse_args(argv)
    if not args.input.is_dir():
        parser.error(f"--input {args.input} is not a folder")
    settings = Settings.from_env()
    layout = DataLayout(settings.data_dir)
    manifest = run_batch(args.input, args.out or layout.runs, config_from_args(args, settings.parser), layout)
    print(format_summary(manifest))
    return 1 if manifest["totals"]["failed"] else 0


if __name__ == "__main__":  # required: MinerU starts "spawn" worker processes
    sys.exit(main())
