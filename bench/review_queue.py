"""The review desk's queue page with 1,000 rows: rendered in under a second (issue 20).

    .venv/bin/python bench/review_queue.py [--rows 1000] [--documents 10] [--requests 20]

A temp data root holds `--documents` documents' payloads, `--rows` glossary entries in all (their
review queues as the contract shapes them, definitions ~160 characters, one in twenty a
conflict), and a SQLite decisions database where every third entry has a decision. Then
`kb-pipeline review` runs on a free loopback port in its own process, and this script times
whole HTTP requests against it, as a browser would wait for them: `GET /` (the queue page,
every row), `GET /api/queue` (the same rows as JSON) and `GET /?state=pending` (filtered). Each
is requested `--requests` times after one warm-up; the figures are median, p95 and max seconds.
Then headless Chromium (the tests' DevTools driver) loads the queue page `--loads` times: from
navigation start to the load event, the rows laid out and the keyboard script run.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import _common

TARGET_SECONDS = 1.0


def make_data_root(root: Path, rows: int, documents: int) -> None:
    from kb_pipeline.knowledge.contracts import BriefContext, GlossaryEntry, Payloads, Provenance
    from kb_pipeline.knowledge.review import review_queue
    from kb_pipeline.paths import DataLayout
    from kb_pipeline.review_desk.store import DecisionStore

    layout = DataLayout(root)
    store = DecisionStore.open(None, layout)
    per_document = rows // documents
    for d in range(documents):
        doc_id = f"BENCH_DOC_{d:02d}"
        glossary = []
        for i in range(per_document):
            definition = (
                f"Adalah parameter {i} dari dokumen {d}: jumlah waktu unit siap beroperasi dibandingkan dengan "
                f"total waktu kalender dalam satu periode pelaporan <{i}> & seterusnya."
            )
            glossary.append(
                GlossaryEntry(
                    term_id=f"t_{d:02d}{i:08d}",
                    term=f"TERM{i}",
                    full_name=f"Term number {i}",
                    source_wording=f"2.{i}. Term number {i} (TERM{i})",
                    definition=definition,
                    mention_count=(i * 7) % 50,
                    provenance=Provenance(doc_id=doc_id, span=definition, page=i % 9, section_no=f"2.{i}"),
                    definition_conflict=i % 20 == 0,
                )
            )
        Payloads(
            glossary=glossary,
            interpretation_pack=[],
            formulas=[],
            brief_context=BriefContext(brief_id=f"b_{d}", provenance=Provenance(doc_id=doc_id, span="")),
            review_queue=review_queue(glossary, []),
            rejected=[],
            usage=[],
        ).write(layout.knowledge / doc_id)
        for entry in glossary[::3]:
            store.record(
                term_id=entry.term_id,
                doc_id=doc_id,
                term=entry.term,
                decision="approve",
                extracted_definition=entry.definition,
                reviewer="bench",
            )
    store.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(url: str, requests: int) -> dict:
    urllib.request.urlopen(url).read()  # warm-up: imports, first template compile
    seconds, size = [], 0
    for _ in range(requests):
        started = time.perf_counter()
        with urllib.request.urlopen(url) as response:
            size = len(response.read())
        seconds.append(time.perf_counter() - started)
    seconds.sort()
    return {
        "median_s": statistics.median(seconds),
        "p95_s": seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))],
        "max_s": seconds[-1],
        "bytes": size,
    }


def browser_loads(url: str, loads: int, profile: Path) -> dict:
    from kb_pipeline_tests.browser import Browser

    browser = Browser(profile)
    try:
        seconds = []
        for _ in range(loads + 1):  # the first load warms the browser's caches
            browser.goto(url)
            browser.wait_for("performance.getEntriesByType('navigation')[0].loadEventEnd > 0")
            seconds.append(browser.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") / 1000)
            rows = browser.evaluate("document.querySelectorAll('#queue tbody tr').length")
        seconds = sorted(seconds[1:])
    finally:
        browser.close()
    return {
        "median_s": statistics.median(seconds),
        "p95_s": seconds[-1],
        "max_s": seconds[-1],
        "bytes": 0,
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=10)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    _common.warn_if_busy()
    with tempfile.TemporaryDirectory(prefix="kb-bench-review-") as tmp:
        root = Path(tmp).resolve()
        make_data_root(root, args.rows, args.documents)
        port = free_port()
        env = {**os.environ, "KB_DATA_DIR": str(root), "PYTHONPATH": str(_common.REPO)}
        server = subprocess.Popen(
            [sys.executable, "-m", "kb_pipeline.cli.main", "review", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/csrf-token").read()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the review desk did not start") from None
                    time.sleep(0.2)
            base = f"http://127.0.0.1:{port}"
            results = {
                "GET / (queue page)": timed(f"{base}/", args.requests),
                "GET /api/queue": timed(f"{base}/api/queue", args.requests),
                "GET /?state=pending": timed(f"{base}/?state=pending", args.requests),
            }
            results["Chromium load of /"] = browser_loads(f"{base}/", args.loads, root / "chromium")
        finally:
            server.terminate()
            server.wait(timeout=20)
    print(f"review queue, {args.rows} rows over {args.documents} documents, {args.requests} requests each")
    print(
        _common.table(
            ["request", "median s", "p95 s", "max s", "KiB"],
            [[name, r["median_s"], r["p95_s"], r["max_s"], r["bytes"] // 1024] for name, r in results.items()],
        )
    )
    # The target is on what a reviewer waits for: the page in a browser, request to load event.
    page = results["Chromium load of /"]
    print(
        f"queue page in Chromium, slowest load {page['max_s']:.3f} s vs target < {TARGET_SECONDS} s: {_common.verdict(page['max_s'], TARGET_SECONDS, higher_is_better=False)}"
    )
    path = _common.write_json(
        "review_queue", {"rows": args.rows, "documents": args.documents, "requests": args.requests, "results": results}
    )
    print(f"→ {path}")


if __name__ == "__main__":
    main()
