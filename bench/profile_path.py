"""Where the time goes: cProfile of (b) the core path and (c) the Dagster path over the corpus.

    .venv/bin/python bench/profile_path.py [--pdfs DIR] [--top N]

Same setup as overhead.py (warm-up first, fresh data dir per document, one temp Dagster
instance, one document per `ingest_folder` call). cProfile sees the main process only: MinerU's
spawned render workers show up as the parent waiting on them (inside `parse`). Writes
bench/out/profile_b.prof and profile_c.prof (open with `python -m pstats` or snakeviz) and
bench/out/profile.json with the summary.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
from pathlib import Path

import _common

# (label, part of the file path, function name): the parts a reader wants to see, largest cumulative
# entry of each. Nested entries are part of their parents; the table says which.
PARTS = [
    ("core: process_document", "kb_pipeline/pipeline.py", "process_document"),
    ("  content_hash_of (sha256)", "kb_pipeline/pipeline.py", "content_hash_of"),
    ("  parse_to_cache", "kb_pipeline/parsing/cached_parse.py", "parse_to_cache"),
    ("    copy + re-hash of the source", "shutil.py", "copyfile"),
    ("    preflight", "kb_pipeline/parsing/mineru_adapter.py", "preflight"),
    ("    run_mineru (mineru.parser.parse)", "kb_pipeline/parsing/mineru_adapter.py", "run_mineru"),
    ("    _write_raw_output", "kb_pipeline/parsing/mineru_adapter.py", "_write_raw_output"),
    ("      ParseResult.save", "mineru/parser/base.py", "save"),
    ("      materialize_middle", "docvortex/export.py", "materialize_middle"),
    ("      render_content_list", "mineru/render/__init__.py", "render_content_list"),
    ("      render_content_list_v2", "mineru/render/__init__.py", "render_content_list_v2"),
    ("  normalise_raw", "kb_pipeline/pipeline.py", "normalise_raw"),
    ("    load_raw_output", "kb_pipeline/parsing/raw_output.py", "load_raw_output"),
    ("    build_chunks", "kb_pipeline/normalise/chunker.py", "build_chunks"),
    ("    quality_warnings", "kb_pipeline/quality/warnings.py", "quality_warnings"),
    ("    run_artifact_checks", "kb_pipeline/quality/artifact_checks.py", "run_artifact_checks"),
    ("write_artifact", "kb_pipeline/pipeline.py", "write_artifact"),
    ("dagster: ingest_folder", "kb_pipeline/cli/ingest.py", "ingest_folder"),
    ("  scan (drop folder)", "kb_pipeline/drop_folder.py", "scan"),
    ("  observe_source", "kb_pipeline/defs/", "observe_source"),
    ("  is_current", "kb_pipeline/defs/", "is_current"),
    ("  execute_in_process (both jobs)", "dagster/_core/definitions/job_definition.py", "execute_in_process"),
    ("    asset mineru_raw_output", "kb_pipeline/defs/assets.py", "_raw_output"),
    ("    asset parsed_document", "kb_pipeline/defs/assets.py", "parsed_document"),
    ("    asset quality_warnings", "kb_pipeline/defs/assets.py", "quality_warnings"),
    ("    asset kb_package", "kb_pipeline/defs/assets.py", "kb_package"),
    ("    asset knowledge_payloads", "kb_pipeline/defs/knowledge.py", "knowledge_payloads"),
    ("    asset quality_warnings_table", "kb_pipeline/defs/assets.py", "quality_warnings_table"),
    ("    asset glossary_table", "kb_pipeline/defs/knowledge.py", "glossary_table"),
    ("    asset review_queue_table", "kb_pipeline/defs/knowledge.py", "review_queue_table"),
    (
        "    instance.handle_new_event (event log writes)",
        "dagster/_core/instance/methods/event_methods.py",
        "handle_new_event",
    ),
    ("    latest_materialization (event log reads)", "kb_pipeline/defs/history.py", "latest_materialization"),
    ("  sqlite3 commit", "~", "<method 'commit' of 'sqlite3.Connection' objects>"),
    ("  sqlite3 execute", "~", "<method 'execute' of 'sqlite3.Cursor' objects>"),
    ("  get_dynamic_partitions", "dagster/_core/instance/__init__.py", "get_dynamic_partitions"),
]


def part_seconds(stats: pstats.Stats) -> list[tuple[str, float, int]]:
    found = []
    for label, file_suffix, func in PARTS:
        best = (0.0, 0)
        for (filename, _line, name), (_cc, nc, _tt, ct, _callers) in stats.stats.items():
            if name == func and (file_suffix in filename or file_suffix == filename):
                best = max(best, (ct, nc))
        found.append((label, round(best[0], 3), best[1]))
    return found


def top(stats: pstats.Stats, key: str, n: int) -> str:
    buffer = io.StringIO()
    stats.stream = buffer
    stats.sort_stats(key).print_stats(n)
    text = buffer.getvalue()
    return text[text.find("   ncalls") :]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()

    _common.setup_mineru()
    import dagster as dg
    import overhead

    _common.quiet_dagster()
    pdfs = _common.corpus_from(args.pdfs)
    summary = {}
    with tempfile.TemporaryDirectory(prefix="kb-bench-profile-") as tmp:
        scratch = Path(tmp)
        warm = scratch / "warmup.pdf"
        _common.report_pdf(warm, 3, title="Warm-up")
        (scratch / "dagster").mkdir()
        with dg.instance_for_test(
            temp_dir=str(scratch / "dagster"), overrides=overhead.project_instance_overrides()
        ) as instance:
            for mode in ("b", "c"):
                overhead.run_mode(mode, warm, scratch, instance)
            for mode in ("b", "c"):
                profiler = cProfile.Profile()
                seconds = pages = 0
                for pdf in pdfs:
                    profiler.enable()
                    r = overhead.run_mode(mode, pdf, scratch, instance)
                    profiler.disable()
                    seconds, pages = seconds + r["seconds"], pages + r["pages"]
                prof = _common.OUT / f"profile_{mode}.prof"
                _common.OUT.mkdir(parents=True, exist_ok=True)
                profiler.dump_stats(prof)
                stats = pstats.Stats(profiler)
                parts = part_seconds(stats)
                print(
                    f"\n=== ({mode}) {len(pdfs)} documents, {pages} pages, {seconds:.2f} s under cProfile "
                    f"(profiling adds overhead; compare shares, not absolutes) → {prof}"
                )
                print(
                    _common.table(
                        ["part", "cum s", "calls", "share"],
                        [[label, s, calls, f"{s / seconds:.0%}" if s else ""] for label, s, calls in parts if s],
                    )
                )
                print(f"\ntop {args.top} by own time:\n" + top(stats, "tottime", args.top))
                summary[mode] = {
                    "seconds": round(seconds, 3),
                    "pages": pages,
                    "parts": {label.strip(): {"seconds": s, "calls": calls} for label, s, calls in parts if s},
                }
    path = _common.write_json("profile", {"corpus": [str(p) for p in pdfs], "profiles": summary})
    print(f"written {path}")


if __name__ == "__main__":
    main()
