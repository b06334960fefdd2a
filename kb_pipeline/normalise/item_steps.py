"""The steps that make the other chunks: a contents page (one text chunk of its lines), a table
(cells; a table drawn turned, read from the text layer; a cell-less one as text), a figure with
no caption (joining the chunk being filled), a display formula (its characters from the text
layer, in the chunk that explains it)."""

from __future__ import annotations

from .contents import contents_text
from .drafts import DraftBuilder, image_path
from .item_text import ItemText, has_cells
from .layer_text import formula_text, table_text, turned_table


class ItemSteps(DraftBuilder):
    """A contents page, a table, a bare figure, a formula, as steps of the chunk builder."""

    def _take_contents_page(self, index: int) -> None:
        items, page = self.raw.items, self.raw.items[index]["page_idx"]
        on_page = [i for i in range(index, len(items)) if items[i]["page_idx"] == page]
        taken = self.furniture | self.outline.keys()
        page_items = [i for i in on_page if i not in taken and self._kind(i) in ("text", "index")]
        # Its leader-line pictures (MinerU reads dotted rules as images) stay with it.
        pictures = [i for i in on_page if items[i]["type"] == "image" and not self.texts[i].text]
        self._close()
        draft = self._new_draft("text")
        for i in sorted(page_items + pictures):
            draft.add(i, items[i], ItemText(), image_path(self.raw, items[i]) if i in pictures else None)
        draft.texts.append(contents_text(self.text_layer, [items[i] for i in page_items]))
        self.drafts.append(draft)
        self.continuations.update(page_items + pictures)

    def _take_table(self, index: int) -> None:
        item, text = self.raw.items[index], self.texts[index]
        content = self.raw.items_v2[index].get("content") or {}
        html = content.get("html") or ""
        if has_cells(html):
            self._add_standalone("table", index, text, html)
            return
        # A table drawn turned: the text layer's rows and cells (MinerU's split words are no text).
        if html.strip() and (turned := turned_table(self.text_layer, item, content)) is not None:
            text, turned_html = turned
            if turned_html is not None:
                self._add_standalone("table", index, text, turned_html)
                return
        # No cells (a boxed theorem, code, a diagram): a text chunk, plus the text layer's text if no html.
        elif not html.strip():
            text = ItemText(text="\n".join(p for p in (text.text, table_text(self.text_layer, item)) if p))
        self._add_standalone("text", index, text)

    def _take_bare_image(self, index: int) -> None:
        """A figure with no caption joins the chunk being filled; under a heading with no body yet
        it opens the section's chunk (waiting for the next text carried it into a later section,
        a page of diagrams under headings of their own away from theirs); before any section, it
        waits for the first chunk."""
        if self.open_draft is None and not self.sections:
            self.waiting_images.append(index)
            return
        item = self.raw.items[index]
        self._body().add(index, item, self.texts[index], image_path(self.raw, item))

    def _take_formula(self, index: int) -> None:
        item, text = self.raw.items[index], self.texts[index]
        text.text = formula_text(self.text_layer, item)  # in place: the caller's `texts` see it too
        draft = self._body()
        draft.has_formula = True
        draft.add(index, item, text, image_path(self.raw, item))
