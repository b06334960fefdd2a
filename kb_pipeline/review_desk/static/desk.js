// Keyboard use of the review desk (no inline script: the Content-Security-Policy forbids it).
// Every page: ? shows the page's keys. Queue: j/k or arrows move, Enter or o opens, x selects the
// row for a bulk decision, a approves the selected rows (the bulk form) or else the current row
// (through the JSON API), r focuses the bulk rejection's reason (Enter rejects the selected),
// / focuses the search.
// Entry (any kind): a approves, r focuses the rejection reason (Enter submits), e the edit's first
// field (Ctrl+Enter saves), u undoes the entry's decision (back to pending),
// n next pending entry, q queue, Escape leaves a field.
// Document page and an entry's chunk: select text in a chunk, Shift+T, Shift+R or Shift+F adds it
// as a term, rule or formula (the add form opens on its first empty field; Ctrl+Enter adds).
"use strict";
(function () {
  const typing = (el) => el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const reviewer = document.getElementById("reviewer-name");

  const help = document.getElementById("keys-help");
  document.addEventListener("keydown", (event) => {
    if (event.key !== "?" || typing(document.activeElement) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (help.open) help.close(); else help.showModal();
    event.preventDefault();
  });

  const bulk = document.getElementById("bulk-form");
  const picks = () => Array.from(document.querySelectorAll("#queue input.pick"));
  const picked = () => picks().filter((box) => box.checked);
  if (bulk) {
    const count = document.getElementById("bulk-count");
    const show = () => { count.textContent = `${picked().length} selected`; };
    document.getElementById("queue").addEventListener("change", show);
    bulk.addEventListener("submit", (event) => {
      const reason = document.getElementById("bulk-reason");
      if (event.submitter && event.submitter.value === "reject" && !reason.value.trim()) {
        event.preventDefault(); reason.focus();  // one reason for all the rejections, asked first
      }
    });
    document.getElementById("bulk-reason").addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); bulk.requestSubmit(document.getElementById("bulk-reject")); }
    });
    show();
  }

  const queue = document.getElementById("queue");
  if (queue) {
    const rows = Array.from(queue.querySelectorAll("tbody tr"));
    let at = rows.length ? 0 : -1;
    const select = (i) => {
      if (!rows.length) return;
      if (at >= 0) rows[at].classList.remove("selected");
      at = Math.max(0, Math.min(rows.length - 1, i));
      rows[at].classList.add("selected");
      rows[at].scrollIntoView({ block: "nearest" });
    };
    select(0);
    document.addEventListener("keydown", async (event) => {
      if (typing(document.activeElement) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "j" || event.key === "ArrowDown") { select(at + 1); event.preventDefault(); }
      else if (event.key === "k" || event.key === "ArrowUp") { select(at - 1); event.preventDefault(); }
      else if ((event.key === "Enter" || event.key === "o") && at >= 0) { location.href = "/entries/" + rows[at].dataset.entryId; }
      else if (event.key === "/") { document.getElementById("search").focus(); event.preventDefault(); }
      else if (event.key === "x" && at >= 0) {
        const box = rows[at].querySelector("input.pick");
        if (box) { box.checked = !box.checked; box.dispatchEvent(new Event("change", { bubbles: true })); select(at + 1); }
      }
      else if (event.key === "r" && bulk && picked().length) { document.getElementById("bulk-reason").focus(); event.preventDefault(); }
      else if (event.key === "a" && bulk && picked().length) {
        if (reviewer && !reviewer.value.trim()) { reviewer.focus(); return; }
        bulk.requestSubmit(document.getElementById("bulk-approve"));
      }
      else if (event.key === "a" && at >= 0) {
        // The single-expert mode's typed name; with accounts the server records the signed-in one.
        if (reviewer && !reviewer.value.trim()) { reviewer.focus(); return; }
        const response = await fetch("/api/decisions", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
          // The definition the row shows: refused (409) if a re-extraction changed it meanwhile.
          body: JSON.stringify({
            entry_id: rows[at].dataset.entryId, decision: "approve", reviewer: reviewer ? reviewer.value.trim() : null,
            seen_definition: rows[at].dataset.definition,
          }),
        });
        if (response.ok) {
          const badge = rows[at].querySelector(".state");
          badge.className = "state approved"; badge.textContent = "approved";
          select(at + 1);
        } else {
          let message = `${response.status} ${response.statusText}`;
          try {
            const detail = (await response.json()).detail;
            message = typeof detail === "string" ? detail : JSON.stringify(detail);
          } catch (_) { /* not JSON: the status says it */ }
          alert(message);
        }
      }
    });
  }

  const add = document.getElementById("add-form");
  const ADD_KEYS = { T: "term", R: "rule", F: "formula" };
  const MAIN_FIELD = { term: "definition", rule: "statement", formula: "formula_latex" };
  const chunkOf = (node) => node && (node.nodeType === 1 ? node : node.parentElement).closest(".chunk-text");
  const showKind = (kind) => {
    add.querySelectorAll("[data-kind]").forEach((label) => {
      const shown = label.dataset.kind === kind;
      label.hidden = !shown;
      label.querySelectorAll("input, textarea, select").forEach((f) => { f.disabled = !shown; });
    });
  };
  if (add) {
    document.getElementById("add-kind").addEventListener("change", (event) => showKind(event.target.value));
    document.addEventListener("keydown", (event) => {
      const field = document.activeElement;
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && field && field.form === add) {
        event.preventDefault(); add.requestSubmit(); return;
      }
      if (event.key === "Escape" && !add.hidden && field && field.form === add) { add.hidden = true; field.blur(); return; }
      const kind = ADD_KEYS[event.key];
      if (!kind || !event.shiftKey || event.ctrlKey || event.metaKey || event.altKey || typing(field)) return;
      const selection = window.getSelection();
      const chunk = chunkOf(selection.anchorNode);
      const text = selection.toString().trim();
      if (!text || !chunk || chunk !== chunkOf(selection.focusNode)) return;  // one chunk's text only
      event.preventDefault(); event.stopImmediatePropagation();
      add.reset();
      document.getElementById("add-doc").value = chunk.dataset.doc;
      document.getElementById("add-chunk").value = chunk.dataset.chunkId;
      document.getElementById("add-span").value = text;
      document.getElementById("add-where").textContent = chunk.dataset.chunkId;
      document.getElementById("add-selection").textContent = text;
      document.getElementById("add-kind").value = kind;
      showKind(kind);
      add.querySelector(`[name=${MAIN_FIELD[kind]}]`).value = text;
      add.hidden = false;
      // The first empty field of the kind: a term's term, a rule's condition, a formula's name.
      const first = [...add.querySelectorAll(`[data-kind=${kind}] input, [data-kind=${kind}] textarea`)].find((f) => !f.value);
      (first || add.querySelector(`[name=${MAIN_FIELD[kind]}]`)).focus();
    }, true);
  }

  // The document page: the page image follows the chunk focused or clicked.
  const pageImage = document.querySelector(".document #page-image");
  if (pageImage) {
    const follow = (event) => {
      const chunk = chunkOf(event.target);
      if (chunk && chunk.dataset.page !== pageImage.dataset.page) {
        pageImage.dataset.page = chunk.dataset.page;
        pageImage.src = pageImage.src.replace(/\/pages\/\d+\.png$/, `/pages/${chunk.dataset.page}.png`);
      }
    };
    document.addEventListener("focusin", follow);
    document.addEventListener("mouseup", follow);
  }
  const documentPage = document.querySelector(".document");
  if (documentPage) {
    document.addEventListener("keydown", (event) => {
      if (typing(document.activeElement) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "q") { location.href = "/"; }
    });
  }

  const entry = document.querySelector(".entry");
  if (entry) {
    document.addEventListener("keydown", (event) => {
      const edit = document.getElementById("edit-definition");
      const field = document.activeElement;
      // Ctrl+Enter in any field of the edit form (a rule's, formula's, brief's has several) saves.
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && field && field.form && field.form.id === "edit-form") {
        field.form.requestSubmit(field.form.querySelector("button[value=edit]"));
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Escape") { document.activeElement.blur(); return; }
      if (typing(document.activeElement)) return;
      const approve = document.getElementById("approve");
      if (event.key === "a" && approve && !approve.disabled) { approve.click(); }
      else if (event.key === "r" && document.getElementById("reject-reason")) { document.getElementById("reject-reason").focus(); event.preventDefault(); }
      else if (event.key === "u" && document.getElementById("withdraw") && !document.getElementById("withdraw").disabled) { document.getElementById("withdraw").click(); }
      else if (event.key === "e" && document.getElementById("edit-definition")) { document.getElementById("edit-definition").focus(); event.preventDefault(); }
      else if (event.key === "n") { location.href = entry.dataset.next; }
      else if (event.key === "q") { location.href = "/"; }
    });
  }
})();
