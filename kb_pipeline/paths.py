"""Where everything lives under the data root (`Settings.data_dir`: `data/` by default,
`KB_DATA_DIR` to move it).

The one place the layout is written down, so no module builds a path under `data/` on its own
and nothing derived from a file name can point outside the data root.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DataLayout:
    root: Path

    @property
    def knowledge_docs(self) -> Path:
        """The drop folder unless `KB_DROP_FOLDER` moves it."""
        return self.root / "knowledge_docs"

    @property
    def dagster(self) -> Path:
        """The Dagster instance's storage (`KB_DAGSTER_DIR`, which dagster.yaml reads) by default."""
        return self.root / "dagster"

    @property
    def parse_cache(self) -> Path:
        return self.root / "knowledge_cache" / "parse"

    @property
    def model_answers(self) -> Path:
        """The language model's answers, keyed by question and model (llm/model.py)."""
        return self.root / "knowledge_cache" / "llm"

    @property
    def mineru_home(self) -> Path:
        # Project-controlled, so MinerU never reads or writes the user's ~/.mineru.
        return self.root / "mineru_home"

    @property
    def runs(self) -> Path:
        return self.root / "knowledge_runs"

    @property
    def tables(self) -> Path:
        return self.root / "tables"

    @property
    def knowledge(self) -> Path:
        """Extraction payloads, `<doc_id>/glossary.json` and its six siblings."""
        return self.root / "knowledge"

    @property
    def knowledge_versions(self) -> Path:
        """Each document's kept versions, `<doc_id>/<content_hash>/` (knowledge/payloads/document_versions.py)."""
        return self.root / "knowledge_versions"

    def document_versions(self, doc_id: str) -> Path:
        return self.within(self.knowledge_versions / doc_id)

    @property
    def review(self) -> Path:
        """The review desk's SQLite decisions (the default database) and the active glossary."""
        return self.root / "review"

    @property
    def kb(self) -> Path:
        return self.root / "kb"

    def parsed_dir(self, doc_id: str) -> Path:
        return self.within(self.root / "parsed" / doc_id)

    def within(self, path: Path) -> Path:
        """`path`, after checking it resolves inside the data root."""
        resolved = path.resolve()
        if not resolved.is_relative_to(self.root):
            raise ValueError(f"refusing to write outside the data root {self.root}: {path}")
        return resolved
