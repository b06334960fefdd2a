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
from datetime import datetime, timezone
from pathlib import Path

from .config import ParserConfig
from .contracts import ParseFailure
from .normalise import NORMALISER_VERSION
from .parsing.errors import DocumentError
from .parsing.mineru_adapter import mineru_version
from .paths import DataLayout
from .pipeline import ARTIFACT_NAME, chunk_kinds, process_document, read_artifact, write_artifact, write_text_atomically
from .sources import list_pdfs


def add_parser_options(parser: argparse.ArgumentParser) -> None:
    defaults = ParserConfig()
    parser.add_argument("--tier", choices=["flash", "basic", "standard", "advanced"], default=defaults.tier,
                        help="MinerU tier (default: flash, which needs no model weights)")
    parser.add_argument("--parse-mode", choices=["auto", "txt", "ocr"], default=defaults.parse_mode)
    parser.add_argument("--page-range", default=defaults.page_range, help='MinerU page range, e.g. "1-5,8"')
    parser.add_argument("--max-pages", type=int, default=defaults.max_pages)
    parser.add_argument("--parse-window", type=int, default=defaults.parse_window,
                        help=f"parse documents longer than this in page windows (default {defaults.parse_window}; "
                             "0: never)")


def config_from_args(args: argparse.Namespace) -> ParserConfig:
    return ParserConfig(tier=args.tier, parse_mode=args.parse_mode, page_range=args.page_range,
                        max_pages=args.max_pages, parse_window=args.parse_window)


def _new_run_dir(out: Path) -> tuple[str, Path]:
    run_id = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    candidate, n = run_id, 1
    while (out / candidate).exists():
        n += 1
        candidate = f"{run_id}-{n}"
    (out / candidate).mkdir(parents=True)
    return candidate, out / candidate


def run_batch(input_dir: Path, out: Path, config: ParserConfig, layout: DataLayout, progress=None) -> dict:
    """Parse every PDF in `input_dir`; returns the manifest it wrote. Progress lines go to
    `progress` (default: stderr, looked up at call time)."""
    progress = progress or sys.stderr
    sources, skipped = list_pdfs(input_dir)
    run_id, run_dir = _new_run_dir(out)
    started = time.perf_counter()
    manifest: dict = {
        "run_id": run_id,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
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
    for n, source in enumerate(sources, 1):
        label = f"[{n}/{len(sources)}] {source.path.name}"
        print(f"{label} …", file=progress, flush=True)
        doc_started = time.perf_counter()
        latest = layout.parsed_dir(source.doc_id) / ARTIFACT_NAME
        try:
            result = process_document(
                source.path, config, layout, doc_id=source.doc_id, previous=read_artifact(latest),
                progress=lambda k, n, first, last: print(f"{label} window {k}/{n} (pages {first}-{last})",
                                                         file=progress, flush=True))
        except Exception as e:  # noqa: BLE001 — one bad document never stops the others
            failure = ParseFailure(
                doc_id=source.doc_id, source_path=str(source.path), error_type=type(e).__name__,
                message=str(e), traceback=traceback.format_exc(),
            )
            with failures_path.open("a", encoding="utf-8") as f:
                f.write(failure.model_dump_json() + "\n")
            manifest["documents"].append({
                "doc_id": source.doc_id, "source_path": str(source.path), "status": "failed",
                "error_type": failure.error_type, "message": failure.message,
                "expected": isinstance(e, DocumentError),
                "seconds": round(time.perf_counter() - doc_started, 3),
            })
            print(f"{label} FAILED {failure.error_type}: {failure.message}", file=progress, flush=True)
            continue
        doc = result.document
        doc_dir = run_dir / doc.doc_id
        write_artifact(doc_dir / ARTIFACT_NAME, doc)
        write_text_atomically(doc_dir / "mineru-source.txt",
                              f"{doc.raw_output_dir}\n# untouched MinerU {doc.parser_version} output "
                              f"({doc.parser_backend}); cache {'hit' if result.raw.cache_hit else 'miss'}\n")
        write_artifact(latest, doc)
        manifest["warnings"] += [w.model_dump() for w in result.warnings]
        manifest["documents"].append({
            "doc_id": doc.doc_id, "source_path": doc.source_path, "status": "ok",
            "version": doc.version, "pages": doc.n_pages, "chunks": len(doc.chunks),
            "chunks_by_kind": chunk_kinds(doc), "warnings": len(result.warnings),
            "cache_hit": result.raw.cache_hit, "raw_output_dir": doc.raw_output_dir,
            "checks": {name: {"passed": c.passed, "problems": c.problems[:10], **c.metadata}
                       for name, c in result.checks.items()},
            "timings": result.timings, "seconds": round(time.perf_counter() - doc_started, 3),
        })
        print(f"{label} ok: {doc.n_pages} pages, {len(doc.chunks)} chunks, {len(result.warnings)} warnings, "
              f"{time.perf_counter() - doc_started:.1f} s ({'cached' if result.raw.cache_hit else 'parsed'})",
              file=progress, flush=True)
        for name, check in result.checks.items():
            if not check.passed:
                print(f"{label} CHECK FAILED {name}: {check.problems[0]}", file=progress, flush=True)
    manifest["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
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
            lines.append(f"{d['doc_id'][:40]:40} {'ok':7} {d['pages']:>5} {d['chunks']:>6} {d['warnings']:>4} "
                         f"{d['seconds']:>6.1f}  {'cached' if d['cache_hit'] else 'parsed'}")
        else:
            lines.append(f"{d['doc_id'][:40]:40} {'FAILED':7} {'':>5} {'':>6} {'':>4} {d['seconds']:>6.1f}  "
                         f"{d['error_type']}: {d['message'][:100]}")
    for s in manifest["skipped"]:
        lines.append(f"{Path(s['path']).name[:40]:40} {'skipped':7} {'':>25}  {s['reason']}")
    t = manifest["totals"]
    lines.append(f"{t['ok']} ok, {t['failed']} failed, {t['skipped']} skipped, {t['warnings']} warnings "
                 f"in {manifest['seconds']:.1f} s → {manifest['run_dir']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb_pipeline.run", description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, required=True, help="folder of PDFs")
    parser.add_argument("--out", type=Path, default=None, help="run records (default: data/knowledge_runs)")
    add_parser_options(parser)
    args = parser.parse_args(argv)
    if not args.input.is_dir():
        parser.error(f"--input {args.input} is not a folder")
    layout = DataLayout.from_env()
    manifest = run_batch(args.input, args.out or layout.runs, config_from_args(args), layout)
    print(format_summary(manifest))
    return 1 if manifest["totals"]["failed"] else 0


if __name__ == "__main__":  # required: MinerU starts "spawn" worker processes
    sys.exit(main())
