"""A document's version diff with 500 entries: under 0.5 s (issue 27, item 3).

    .venv/bin/python bench/review_versions.py [--entries 500] [--others 500] [--requests 20]

A temp data root holds one document in two kept versions, written and kept as an extraction
writes them (`Payloads.write`, `keep_version`, the artifact beside them): `--entries` entries, a half terms, three tenths
rules, a fifth formulas (definitions and statements ~150 characters), every one approved on the
first version. The second rewords a tenth of them, moves a tenth of the rules to new ids (a
renumbering: same text) and replaces five by five new ones. Then, in process: the diff as the
desk computes it — the kept versions listed, the base version's payloads read, matched and
word-diffed against the document's queue rows (`document_diff`), after the decisions (their
re-attachment check) and the queue it needs — 5 times on a fresh reader (`cold`: every file
parsed, as after a new extraction) and `--requests` times on the desk's (`warm`); and the whole requests through the app (`GET /documents/{doc}/versions`, its JSON),
the queue and the decisions' re-attachment check included, and the queue page (its progress
table counts what is pending because of the new version) — with `--others` more rows beside
the versioned document's, of five unversioned documents as `bench/review_queue.py` makes them,
so the default is its 1,000-row page (target < 0.1 s median) with a versioned document of 500
entries in it. Median, p95 and max seconds.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import _common
import review_queue

TARGET_SECONDS = 0.5
DOC = "BENCH_VERSIONS"


def _payloads(entries: int, revised: bool):
    from kb_pipeline.knowledge.payloads.contracts import (
        BriefContext,
        FormulaEntry,
        GlossaryEntry,
        Payloads,
        Provenance,
        RuleEntry,
    )
    from kb_pipeline.knowledge.payloads.review import review_queue

    def text(i: int, what: str) -> str:
        reworded = revised and i % 10 == 1
        return (
            f"{what} {i} is the share of the scheduled hours of a unit in which it {'is ready to' if reworded else 'can'}"
            f" run, over one reporting period, as the operator records it <{i}> & so on."
        )

    live = range(5, entries + 5) if revised else range(entries)  # five replaced
    glossary, rules, formulas = [], [], []
    for i in live:
        where = Provenance(doc_id=DOC, span=text(i, "Entry"), page=i % 9, section_no=f"2.{i}")
        if i % 10 < 5:
            glossary.append(
                GlossaryEntry(term_id=f"t_{i:08d}", term=f"TERM{i}", definition=text(i, "Term"), provenance=where)
            )
        elif i % 10 < 8:
            moved = revised and i % 10 == 5  # a tenth of the rules: a new id, the same text
            rules.append(
                RuleEntry(
                    rule_id=f"r_{i:08d}{'m' if moved else ''}",
                    rule_type="interpretation",
                    statement=text(i, "Rule"),
                    provenance=where,
                )
            )
        else:
            formulas.append(
                FormulaEntry(
                    formula_id=f"f_{i:08d}", name=f"Quantity {i}", formula_latex=text(i, "Q"), provenance=where
                )
            )
    return Payloads(
        glossary=glossary,
        interpretation_pack=rules,
        formulas=formulas,
        brief_context=BriefContext(
            brief_id="b_bench", purpose=text(0, "Brief"), provenance=Provenance(doc_id=DOC, span="")
        ),
        review_queue=review_queue(glossary, []),
        rejected=[],
        usage=[],
    )


def make_data_root(root: Path, entries: int, others: int) -> None:
    from kb_pipeline.contracts import ParsedDocument
    from kb_pipeline.knowledge.payloads.document_versions import keep_version
    from kb_pipeline.paths import DataLayout
    from kb_pipeline.pipeline import ARTIFACT_NAME, write_artifact
    from kb_pipeline.review.corpus import Corpus
    from kb_pipeline.review.status import Decided
    from kb_pipeline.review.store import DecisionStore

    if others:
        review_queue.make_data_root(root, others, 5)
    layout = DataLayout(root)
    folder = layout.knowledge / DOC
    store = DecisionStore.open(None, layout)
    for n, revised in ((1, False), (2, True)):
        document = ParsedDocument(
            doc_id=DOC, source_path=f"/drop/{DOC}.pdf", content_hash=f"{n:064x}", n_pages=9, chunks=[]
        )
        _payloads(entries, revised).write(folder)
        keep_version(document, folder, layout.document_versions(DOC))
        # The artifact the payloads come from: what names the latest version (and a decision's).
        write_artifact(layout.parsed_dir(DOC) / ARTIFACT_NAME, document)
        for found in [] if revised else Corpus(layout).document(DOC).items(Decided({})):  # all approved
            item = found.item
            store.record(
                entry_id=item.id,
                doc_id=DOC,
                term=item.label,
                decision="approve",
                extracted_definition=item.text,
                reviewer="bench",
                doc_version=document.content_hash,
                kind=item.kind,
            )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--others", type=int, default=500, help="rows of unversioned documents on the queue page")
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    _common.warn_if_busy()
    from fastapi.testclient import TestClient

    from kb_pipeline.paths import DataLayout
    from kb_pipeline.review.corpus import Corpus
    from kb_pipeline.review.reattach import current_decisions
    from kb_pipeline.review.store import DecisionStore
    from kb_pipeline.review.version_diff import document_diff
    from kb_pipeline.review_desk.app import create_app

    with tempfile.TemporaryDirectory(prefix="kb-bench-versions-") as tmp:
        root = Path(tmp).resolve()
        make_data_root(root, args.entries, args.others)
        layout = DataLayout(root)
        store = DecisionStore.open(None, layout)

        def diff_once(corpus: Corpus):
            """(decisions, queue and diff; the diff alone) in seconds, and the diff."""
            started = time.perf_counter()
            decisions = current_decisions(corpus, store)
            rows = [r for r in corpus.queue(decisions, "all") if r.doc_id == DOC and r.item is not None]
            middle = time.perf_counter()
            diff = document_diff(corpus, store, decisions, rows, DOC)
            ended = time.perf_counter()
            return (ended - started, ended - middle), diff

        cold = [diff_once(Corpus(layout))[0] for _ in range(5)]
        diff = diff_once(Corpus(layout))[1]
        warm_corpus = Corpus(layout)
        diff_once(warm_corpus)
        warm = [diff_once(warm_corpus)[0] for _ in range(args.requests)]
        results = {
            "decisions + queue + diff, cold (files parsed)": _common.timings([c[0] for c in cold]),
            "decisions + queue + diff, warm": _common.timings([w[0] for w in warm]),
            "the diff alone (document_diff), warm": _common.timings([w[1] for w in warm]),
        }
        client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
        for name, url in (
            ("GET /documents/{doc}/versions", f"/documents/{DOC}/versions"),
            ("GET /api/documents/{doc}/versions", f"/api/documents/{DOC}/versions"),
            (f"GET /?kind=all (the queue: these {args.entries} rows and {args.others} more)", "/?kind=all"),
        ):
            client.get(url)  # warm-up: the template compiled
            seconds = []
            for _ in range(args.requests):
                started = time.perf_counter()
                response = client.get(url)
                seconds.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text
            results[name] = {**_common.timings(seconds), "bytes": len(response.content)}
        client.close()
        store.close()
    print(
        f"version diff of one document, {args.entries} entries: {len(diff.changed)} changed, {len(diff.added)} added, "
        f"{len(diff.removed)} removed, {len(diff.carried)} carried, {diff.renumbered} renumbered; "
        f"{args.requests} runs each, in process"
    )
    print(_common.timings_table("what", results))
    # The target is on what a reviewer waits for: the versions page, request to response.
    page = results["GET /documents/{doc}/versions"]["p95_s"]
    print(
        f"versions page p95 {page:.3f} s vs target < {TARGET_SECONDS} s: "
        f"{_common.verdict(page, TARGET_SECONDS, higher_is_better=False)}"
    )
    path = _common.write_json(
        "review_versions", {"entries": args.entries, "requests": args.requests, "results": results}
    )
    print(f"→ {path}")


if __name__ == "__main__":
    main()
