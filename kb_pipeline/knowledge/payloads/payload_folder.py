"""One document's knowledge folder (`<doc_id>/` under the data root's knowledge/, or `kb-pipeline
extract --out-dir`): a parsed document's extraction written as the seven payload files — or,
when it fails, a failure note (`FAILED.txt`) in their place — and, given the document's versions
folder, the reviewable payloads kept as the source's version (document_versions.py). The one
extract-and-write path of `kb-pipeline extract` and of the `knowledge_payloads` asset.

Each payload file is replaced atomically (a reader never sees half of one) and the note goes
once all seven are written. A failure, whatever it is, is recorded, not raised: the earlier
payloads are removed (what is there is this run's), unless what failed was the model's
endpoint — that says nothing about the document, and the review decisions bound to its earlier
payloads stay until a run succeeds. A version that cannot be kept fails nothing: the payloads
stand, and the outcome's `warning` (logged too) says what was not kept.
"""

from __future__ import annotations

import json
import logging
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...contracts import ParsedDocument
from ...files import write_text_atomically
from ...layout_contract import ParsedLayout
from ...llm.endpoint import ModelEndpoint
from ...llm.model import LanguageModel, ModelFailed, ResponseCache
from ..extract import extract_document
from .contracts import Payloads
from .document_versions import keep_version

FAILURE_NAME = "FAILED.txt"
_log = logging.getLogger(__name__)
PAYLOAD_NAMES = tuple(f"{name}.json" for name in Payloads.model_fields)


@contextmanager
def language_model(endpoint: ModelEndpoint | None, answers: Path) -> Iterator[LanguageModel | None]:
    """The settings' model (None with `KB_LLM=off`), its answers cached under `answers`; its
    embedded server, if one was started, stopped at the end."""
    if endpoint is None:
        yield None
        return
    with LanguageModel(endpoint, ResponseCache(answers)) as model:
        yield model


@dataclass(frozen=True)
class KnowledgeOutcome:
    """What one document's extraction left in its folder: the payloads, or the failure — its
    `reason` ("ModelFailed: model endpoint …: unreachable …") and the `line` recorded
    (`model_down`: the endpoint failed, not the document) and the error's `trace`."""

    doc_id: str
    folder: Path
    seconds: float
    payloads: Payloads | None = None
    reason: str = ""
    line: str = ""
    model_down: bool = False
    trace: str = ""
    warning: str = ""  # with payloads: what went wrong beside them (their version not kept)


def write_knowledge(
    document: ParsedDocument,
    folder: Path,
    model: LanguageModel | None = None,
    label: str | None = None,
    versions: Path | None = None,
    layout: ParsedLayout | None = None,
) -> KnowledgeOutcome:
    """The document's payloads, read from it and its `layout` (`pipeline.read_layout`; without
    one, `usage.json` says what was lost), written to `folder` and, with `versions` (the document's kept
    versions), kept as its source's version; or its failure recorded in `folder` (its line starts
    with `label`, default the doc_id) — a kept version is never removed. The payloads are the
    document's and the code's alone: what reviewers decided is the desk's to compare, when it
    reads them (review/status.py)."""
    started = time.perf_counter()
    try:
        payloads = extract_document(document, model=model, layout=layout)
        payloads.write(folder)
        (folder / FAILURE_NAME).unlink(missing_ok=True)
    except Exception as exc:  # one document's failure, whatever it is, is its outcome
        line = record_failure(folder, label or document.doc_id, exc)
        model_down = isinstance(exc, ModelFailed)
        if not model_down:  # a reader's bug, not the endpoint: its traceback is what a developer needs
            _log.error("%s", line, exc_info=exc)
        return KnowledgeOutcome(
            document.doc_id,
            folder,
            time.perf_counter() - started,
            reason=failure_reason(exc),
            line=line,
            model_down=model_down,
            trace="".join(traceback.format_exception(exc)),
        )
    warning = ""
    if versions is not None:
        try:
            keep_version(document, folder, versions)
        except Exception as exc:  # the extraction stands: only its copy under `versions` is missing
            warning = (
                f"{label or document.doc_id}: version {document.content_hash[:12]} not kept in {versions} — "
                f"{failure_reason(exc)} (the payloads are written; the desk has no copy of them to diff against)"
            )
            _log.warning("%s", warning, exc_info=exc)
    return KnowledgeOutcome(document.doc_id, folder, time.perf_counter() - started, payloads=payloads, warning=warning)


def record_failure(folder: Path, label: str, exc: BaseException) -> str:
    """The failure's line, written to `folder` with the error's traceback below it in place of
    its payloads (kept when only the model's endpoint failed)."""
    line = f"{label}: not extracted — {failure_reason(exc)}"
    keep = isinstance(exc, ModelFailed) and (folder / PAYLOAD_NAMES[0]).is_file()
    if keep:
        line += " (the earlier payloads are kept)"
    try:
        if not keep:
            for name in PAYLOAD_NAMES:
                (folder / name).unlink(missing_ok=True)
        write_text_atomically(folder / FAILURE_NAME, f"{line}\n\n{''.join(traceback.format_exception(exc))}")
    except OSError as error:
        line += f" (and the failure could not be recorded in {folder}: {error})"
    return line


def failure_reason(exc: BaseException) -> str:
    """The error's type and the first line of its message."""
    return f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"


def read_payloads(folder: Path) -> Payloads:
    """The seven payload files of a folder, as written."""
    return Payloads.model_validate(
        {name: json.loads((folder / f"{name}.json").read_text(encoding="utf-8")) for name in Payloads.model_fields}
    )


def knowledge_summary(payloads: Payloads) -> str:
    """What a document got, in a few words: entries per kind and the model's calls."""
    calls = [u for u in payloads.calls if not u.simulated]
    return (
        f"{len(payloads.glossary)} terms, {len(payloads.interpretation_pack)} rules, "
        f"{len(payloads.formulas)} formulas, {len(calls)} model calls ({len(payloads.calls) - len(calls)} cached)"
    )
