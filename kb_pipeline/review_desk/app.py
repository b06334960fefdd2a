"""The review desk's web app (FastAPI, server-rendered Jinja2 pages, a JSON API beside them).

Safety (docs/review.md): bound to 127.0.0.1 by the CLI; the Host header must name this machine
(a DNS-rebinding page cannot reach it under its own name); every write is a POST carrying the
server's CSRF token (a form field on the pages, the `X-CSRF-Token` header on the API, whose
value a page of another origin cannot read); Jinja2 autoescapes every value and the Content
Security Policy runs no inline script, so a definition containing `<script>` is text.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import pypdfium2 as pdfium
from fastapi import FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import BaseModel, Field, model_validator
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from ..knowledge.diff import same_definition
from ..paths import DataLayout
from .corpus import CONFLICT, STATES, Corpus, QueueRow, facet_counts, next_pending
from .page_image import PageImage, render_page
from .store import Decision, DecisionKind, DecisionStore

CSRF_HEADER = "X-CSRF-Token"
REVIEWER_COOKIE = "kb_reviewer"
_HERE = Path(__file__).parent
_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"


class DecisionIn(BaseModel):
    """A decision as the API and the pages' forms take it."""

    term_id: str = Field(min_length=1)
    decision: DecisionKind
    definition: str | None = None
    reason: str | None = None
    reviewer: str = Field(min_length=1, max_length=200)
    # The definition the reviewer was shown ("" for none): the pages always send it, and a
    # decision is refused (409) when a re-extraction changed it since. Optional for API clients.
    seen_definition: str | None = None

    @model_validator(mode="after")
    def _complete(self) -> DecisionIn:
        if self.decision == "edit" and not (self.definition or "").strip():
            raise ValueError("an edit needs the edited definition")
        if self.decision == "reject" and not (self.reason or "").strip():
            raise ValueError("a rejection needs a reason")
        if not self.reviewer.strip():
            raise ValueError("reviewer must not be blank")
        return self


class UnknownTerm(LookupError):
    pass


@lru_cache(maxsize=64)
def _page_image(pdf: Path, mtime: float, page: int, span: str | None) -> PageImage:
    # Keyed by the file's mtime too: a re-parse that rewrote the PDF is rendered again.
    return render_page(pdf, page, span)


def create_app(
    layout: DataLayout, store: DecisionStore, *, hosts: tuple[str, ...] = ("127.0.0.1", "localhost")
) -> FastAPI:
    corpus = Corpus(layout)
    csrf_token = secrets.token_urlsafe(32)
    environment = Environment(
        loader=PackageLoader("kb_pipeline.review_desk", "templates"), autoescape=select_autoescape(default=True)
    )
    templates = Jinja2Templates(env=environment)
    app = FastAPI(
        title="kb-pipeline review desk", docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json"
    )
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))
    app.mount("/static", StaticFiles(directory=_HERE / "static"), name="static")

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Callable) -> Response:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def check_csrf(token: str | None) -> None:
        # As bytes: compare_digest refuses a str with non-ASCII characters (a forged header may have them).
        if not token or not secrets.compare_digest(token.encode(), csrf_token.encode()):
            raise HTTPException(
                403,
                "missing or stale CSRF token: reload the page (API: send the X-CSRF-Token header, GET /api/csrf-token)",
            )

    def decide(body: DecisionIn) -> Decision:
        found = corpus.entry(body.term_id)
        if found is None:
            raise UnknownTerm(body.term_id)
        if body.seen_definition is not None and not same_definition(body.seen_definition, found.entry.definition):
            raise HTTPException(
                409,
                "the definition changed since this page was loaded (the document was extracted again): "
                "reload and decide on what it says now",
            )
        return store.record(
            term_id=body.term_id,
            doc_id=found.doc_id,
            term=found.entry.term,
            decision=body.decision,
            extracted_definition=found.entry.definition,
            edited_definition=body.definition.strip() if body.decision == "edit" and body.definition else None,
            reason=(body.reason or "").strip() or None,
            reviewer=body.reviewer.strip(),
        )

    def unknown(term_id: str) -> HTTPException:
        return HTTPException(404, f"unknown term_id {term_id!r}: no glossary entry under {layout.knowledge} has it")

    def filtered(rows: list[QueueRow], doc: str, reason: str, state: str) -> list[QueueRow]:
        return [
            r
            for r in rows
            if (not doc or r.doc_id == doc)
            and (not reason or (r.row is not None and r.row.review_reason == reason))
            and (not state or r.state == state)
        ]

    def page_image(doc_id: str, page: int | None, span: str | None) -> PageImage | None:
        pdf = corpus.source_pdf(doc_id)
        if pdf is None or page is None:
            return None
        try:
            return _page_image(pdf, pdf.stat().st_mtime, page, span)
        except (IndexError, OSError, pdfium.PdfiumError):
            # A page past the end, or a cache copy gone or broken: the entry is still decidable.
            return None

    def render(request: Request, name: str, status_code: int = 200, **context) -> HTMLResponse:
        return templates.TemplateResponse(
            request,
            name,
            {"csrf_token": csrf_token, "reviewer": request.cookies.get(REVIEWER_COOKIE, ""), **context},
            status_code=status_code,
        )

    # --- pages ---------------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    def queue_page(request: Request, doc: str = "", reason: str = "", state: str = "") -> HTMLResponse:
        rows = corpus.queue(store.latest())
        shown = filtered(rows, doc, reason, state)
        return render(
            request,
            "queue.html",
            rows=shown,
            total=len(rows),
            counts=facet_counts(rows),
            states=STATES,
            conflict=CONFLICT,
            filters={"doc": doc, "reason": reason, "state": state},
        )

    @app.get("/entries/{term_id}", response_class=HTMLResponse)
    def entry_page(request: Request, term_id: str) -> HTMLResponse:
        found = corpus.entry(term_id)
        history = store.history(term_id)
        if found is None and not history:
            raise unknown(term_id)
        rows = corpus.queue(store.latest())
        image = page_image(found.doc_id, found.entry.provenance.page, found.entry.provenance.span) if found else None
        return render(
            request,
            "entry.html",
            term_id=term_id,
            found=found,
            history=history,
            image=image,
            next_term=next_pending(rows, term_id),
        )

    @app.get("/entries/{term_id}/page.png")
    def entry_page_image(term_id: str) -> Response:
        found = corpus.entry(term_id)
        if found is None:
            raise unknown(term_id)
        image = page_image(found.doc_id, found.entry.provenance.page, found.entry.provenance.span)
        if image is None:
            raise HTTPException(404, f"no source page for {term_id}: the parse cache's PDF or the page is gone")
        return Response(image.png, media_type="image/png", headers={"Cache-Control": "no-store"})

    @app.post("/reviewer")
    def set_reviewer(
        name: Annotated[str, Form()], csrf_token: Annotated[str, Form()], back: Annotated[str, Form()] = "/"
    ) -> Response:
        check_csrf(csrf_token)
        # Back to a page of this desk only: "//host" and "/\\host" are other sites to a browser.
        local = back.startswith("/") and not back.startswith(("//", "/\\"))
        response = RedirectResponse(back if local else "/", status_code=303)
        # No max-age: a browser-session cookie, the name typed once per session.
        response.set_cookie(REVIEWER_COOKIE, name.strip()[:200], httponly=True, samesite="strict")
        return response

    @app.post("/decisions")
    def decide_form(
        request: Request,
        term_id: Annotated[str, Form()],
        decision: Annotated[Literal["approve", "reject", "edit"], Form()],
        csrf_token: Annotated[str, Form()],
        definition: Annotated[str | None, Form()] = None,
        reason: Annotated[str | None, Form()] = None,
        seen_definition: Annotated[str | None, Form()] = None,
    ) -> Response:
        check_csrf(csrf_token)
        reviewer = request.cookies.get(REVIEWER_COOKIE, "")
        if not reviewer:
            raise HTTPException(400, "type your name first (top of the page): every decision records who made it")
        try:
            body = DecisionIn(
                term_id=term_id,
                decision=decision,
                definition=definition,
                reason=reason,
                reviewer=reviewer,
                seen_definition=seen_definition,
            )
            decide(body)
        except UnknownTerm as e:
            raise unknown(term_id) from e
        except ValueError as e:
            raise HTTPException(422, str(e)) from e
        following = next_pending(corpus.queue(store.latest()), term_id)
        return RedirectResponse(f"/entries/{following}" if following else "/", status_code=303)

    # --- JSON API ------------------------------------------------------------------------------

    @app.get("/api/csrf-token")
    def api_csrf_token() -> dict[str, str]:
        return {"header": CSRF_HEADER, "token": csrf_token}

    @app.get("/api/queue")
    def api_queue(doc: str = "", reason: str = "", state: str = "") -> list[QueueRow]:
        return filtered(corpus.queue(store.latest()), doc, reason, state)

    @app.get("/api/entries/{term_id}")
    def api_entry(term_id: str) -> dict:
        found = corpus.entry(term_id)
        if found is None:
            raise unknown(term_id)
        latest = store.latest().get(term_id)
        return {
            "doc_id": found.doc_id,
            "entry": found.entry.model_dump(mode="json"),
            "review_reason": found.row.review_reason if found.row else None,
            "formulas": [f.model_dump(mode="json") for f in found.formulas],
            "rules": [r.model_dump(mode="json") for r in found.rules],
            "decision": latest.model_dump() if latest else None,
            "history": [d.model_dump() for d in store.history(term_id)],
        }

    @app.post("/api/decisions")
    def api_decide(body: DecisionIn, request: Request) -> Decision:
        check_csrf(request.headers.get(CSRF_HEADER))
        try:
            return decide(body)
        except UnknownTerm as e:
            raise unknown(body.term_id) from e

    # Starlette's exception, which FastAPI's extends: an unknown route's 404 gets a page too.
    @app.exception_handler(StarletteHTTPException)
    async def errors(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)
        return render(request, "error.html", status_code=exc.status_code, message=exc.detail)

    return app
