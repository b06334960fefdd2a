// The add form (add_entry.html) sent through the JSON API (POST /api/entries), so that a refusal
// leaves the page as it is: the form, its selection and what was typed stay; each field refused
// is marked, says why, and offers the chunk's nearest words as buttons (Tab to one, Enter puts
// them in the field); Ctrl+Enter (desk.js) sends again. Accepted, the entry's page opens, as the
// form's own route (/entries/add) redirects to it.
"use strict";
(function () {
  const add = document.getElementById("add-form");
  if (!add) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const reviewer = document.getElementById("reviewer-name");  // the single-expert mode's name
  const refusal = document.getElementById("add-refusal");
  const VARIABLE = "variables.";

  const clear = () => {
    add.querySelectorAll("[aria-invalid]").forEach((f) => {
      f.removeAttribute("aria-invalid");
      f.closest("label").classList.remove("error");
    });
    add.querySelectorAll(".refused").forEach((note) => note.remove());
    refusal.hidden = true;
    refusal.textContent = "";
  };

  // The kind's fields shown (desk.js disables the others'), as the form's route reads them: blanks
  // dropped, a formula's variables one `symbol = meaning` a line.
  const fieldsOf = (kind) => {
    const fields = {};
    add.querySelectorAll(`[data-kind="${kind}"] [name]`).forEach((f) => {
      if (f.disabled || !f.value.trim()) return;
      if (f.name !== "variables") { fields[f.name] = f.value; return; }
      f.value.split("\n").filter((line) => line.trim()).forEach((line) => {
        const at = line.indexOf("=");
        fields[VARIABLE + (at < 0 ? line : line.slice(0, at)).trim()] = at < 0 ? "" : line.slice(at + 1).trim();
      });
    });
    return fields;
  };

  // What a field's fix writes: its value, or for a variable's meaning that variable's line.
  const put = (control, name, words) => {
    if (!name.startsWith(VARIABLE)) { control.value = words; return; }
    const symbol = name.slice(VARIABLE.length);
    control.value = control.value.split("\n").map((line) => {
      const at = line.indexOf("=");
      return (at < 0 ? line : line.slice(0, at)).trim() === symbol ? `${symbol} = ${words}` : line;
    }).join("\n");
  };

  const mark = (kind, error) => {
    const name = String((error.loc || []).at(-1) || "");
    const wanted = name.startsWith(VARIABLE) ? "variables" : name;
    const control = [...add.elements].find((f) => f.name === wanted && !f.disabled && f.closest(`[data-kind="${kind}"]`));
    if (!control) return null;
    const label = control.closest("label");
    control.setAttribute("aria-invalid", "true");
    label.classList.add("error");
    const note = document.createElement("p");
    note.className = "refused error";
    note.dataset.control = wanted;
    note.append(error.msg);
    for (const words of (error.ctx && error.ctx.nearest) || []) {
      const offer = document.createElement("button");
      offer.type = "button";
      offer.className = "nearest";
      offer.textContent = words;
      offer.title = `put the chunk's words in ${name}`;
      offer.addEventListener("click", () => {
        put(control, name, words);
        note.remove();
        // Two variables' meanings share one field: it stays marked while either is refused.
        if (![...add.querySelectorAll(".refused")].some((n) => n.dataset.control === wanted)) {
          control.removeAttribute("aria-invalid");
          label.classList.remove("error");
        }
        control.focus();
      });
      note.append(" ", offer);
    }
    label.after(note);
    return control;
  };

  add.addEventListener("reset", clear);
  document.getElementById("add-kind").addEventListener("change", clear);
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    clear();
    const kind = document.getElementById("add-kind").value;
    const response = await fetch("/api/entries", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({
        doc_id: add.elements.doc_id.value, kind, chunk_id: add.elements.chunk_id.value, span: add.elements.span.value,
        fields: fieldsOf(kind), reviewer: reviewer ? reviewer.value.trim() || null : null,
      }),
    });
    let answer = null;
    try { answer = await response.json(); } catch (_) { /* not JSON: the status says it */ }
    if (response.ok) { location.href = "/entries/" + encodeURIComponent(answer.entry_id); return; }
    const detail = answer ? answer.detail : `${response.status} ${response.statusText}`;
    // A refusal of fields is a list (FastAPI's shape); of the entry as a whole, a sentence.
    const marks = (Array.isArray(detail) ? detail : []).map((error) => [error, mark(kind, error)]);
    const marked = marks.filter(([, control]) => control).map(([, control]) => control);
    // What no field of the form shows (the selection, a sentence on the entry as a whole) is said here.
    const said = Array.isArray(detail) ? marks.filter(([, control]) => !control).map(([error]) => error.msg)
      : [typeof detail === "string" ? detail : JSON.stringify(detail)];
    if (marked.length) said.unshift(`fix the marked field${marked.length === 1 ? "" : "s"}`);
    refusal.textContent = "Not added: " + said.join("; ");
    refusal.hidden = false;
    if (marked.length) marked[0].focus();
  });
})();
