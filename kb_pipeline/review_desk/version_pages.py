"""A document's versions in the desk: the page `/documents/{doc_id}/versions`
and its JSON, `/api/documents/{doc_id}/versions` — the kept versions (hash, dates, pages) and
the latest against the last reviewed one (version_diff.py). Reading needs the viewer role."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from ..knowledge.payloads.payload_folder import FAILURE_NAME
from ..review.corpus import Corpus
from ..review.reattach import current_decisions
from ..review.store import DecisionStore
from ..review.version_diff import VersionDiff, document_diff
from .auth import require
from .dependencies import CorpusDep, StoreDep
from .pages import render

router = APIRouter(dependencies=[require("viewer")])


def _diff(corpus: Corpus, store: DecisionStore, doc_id: str) -> VersionDiff:
    # Known by listing the data root's folders, so no path is built from an unknown name.
    if doc_id not in corpus.documents() and doc_id not in corpus.versioned():
        raise HTTPException(404, f"unknown document {doc_id!r}")
    if doc_id not in corpus.documents():  # no payloads now: its versions, nothing to compare
        failed = (corpus.layout.knowledge / doc_id / FAILURE_NAME).is_file()
        return VersionDiff(
            doc_id=doc_id,
            versions=corpus.versions(doc_id),
            decisions_on={},
            no_payloads="failed" if failed else "absent",
            latest=None,
            base=None,
            base_reviewed=False,
        )
    decisions = current_decisions(corpus, store)
    rows = [r for r in corpus.queue(decisions, "all") if r.doc_id == doc_id and r.item is not None]
    return document_diff(corpus, store, decisions, rows, doc_id)


@router.get("/documents/{doc_id}/versions", response_class=HTMLResponse)
def versions_page(request: Request, doc_id: str, corpus: CorpusDep, store: StoreDep) -> HTMLResponse:
    return render(request, "versions.html", doc_id=doc_id, diff=_diff(corpus, store, doc_id))


@router.get("/api/documents/{doc_id}/versions")
def api_versions(doc_id: str, corpus: CorpusDep, store: StoreDep) -> VersionDiff:
    """The document's kept versions and the latest against the last reviewed one: `added`,
    `removed`, `changed` (with `words`, the word diff), `carried`, `pending_for_version`."""
    return _diff(corpus, store, doc_id)
