"""A view of one document that several readers need (its pages' layout, the index of its
formulas) made once per extraction: `extract_document` opens it around the readers, or is given
it, and a reader asking again for the same document inside gets that one; outside, a reader
opens its own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Generic, TypeVar

from ...contracts import ParsedDocument

View = TypeVar("View")


class DocumentScoped(Generic[View]):
    def __init__(self, name: str, opener: Callable[[ParsedDocument], AbstractContextManager[View]]) -> None:
        self._opener = opener
        self._open: ContextVar[tuple[ParsedDocument, View] | None] = ContextVar(name, default=None)

    @contextmanager
    def __call__(self, document: ParsedDocument) -> Iterator[View]:
        opened = self._open.get()
        if opened is not None and opened[0] is document:
            yield opened[1]
            return
        with self._opener(document) as view, self.given(document, view):
            yield view

    @contextmanager
    def given(self, document: ParsedDocument, view: View) -> Iterator[View]:
        """`view` as the document's inside: one made elsewhere (read from an artifact)."""
        token = self._open.set((document, view))
        try:
            yield view
        finally:
            self._open.reset(token)
