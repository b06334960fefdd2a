"""The contract docs' field tables and JSON Schemas, generated from the pydantic models, so the
docs cannot say what the models do not.

`python -m kb_pipeline.contract_docs` rewrites, in the repository:
- `docs/schema/<name>.schema.json`: the JSON Schema (serialisation mode: the files as written) of
  each artifact in `SCHEMAS`;
- every table between `<!-- fields: Model -->` and `<!-- /fields -->` in `DOCS`: one row per
  field of `Model` (any model of the contract modules), in the order the JSON has them, with
  its type, default and description (`Field(description=…)`, a computed field's docstring).

`--check` writes nothing and exits 1 when a file is not what the models give
(kb_pipeline_tests/test_contract_docs.py runs it). A model change is one regenerate.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from . import contracts, layout_contract
from .knowledge.payloads import contracts as knowledge_contracts
from .llm import usage

REPO = Path(__file__).resolve().parent.parent
# usage.json's record is defined beside the model client that builds it (llm/usage.py).
CONTRACT_MODULES: tuple[ModuleType, ...] = (contracts, layout_contract, knowledge_contracts, usage)
DOCS = ("docs/contract.md", "docs/knowledge.md")
SCHEMA_DIR = "docs/schema"
SCHEMAS: dict[str, type[BaseModel]] = {
    "parsed_document": contracts.ParsedDocument,
    "quality_warning": contracts.QualityWarning,
    "parse_failure": contracts.ParseFailure,
    "page_layout": layout_contract.ParsedLayout,
    "knowledge_payloads": knowledge_contracts.Payloads,
}
_TABLE = re.compile(r"(?P<open><!-- fields: (?P<model>\w+) -->\n)(?P<table>.*?)(?P<close><!-- /fields -->)", re.DOTALL)


def documented_models() -> dict[str, type[BaseModel]]:
    """Every model the contract modules define, by name."""
    return {
        name: value
        for module in CONTRACT_MODULES
        for name, value in vars(module).items()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module.__name__
    }


def schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema(mode="serialization"), ensure_ascii=False, indent=2) + "\n"


def _type(prop: dict[str, Any]) -> str:
    """A JSON Schema property as the docs write types: `str | null`, `int[]`, `Chunk`, `` `a`·`b` ``."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in prop:
        return " | ".join(_type(option) for option in prop["anyOf"])
    if "enum" in prop:
        return "·".join(f"`{value}`" for value in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    kind = prop.get("type")
    if kind == "array":
        item = _type(prop.get("items", {}))
        return f"({item})[]" if "·" in item or " | " in item else f"{item}[]"
    if kind == "object":
        values = prop.get("additionalProperties")
        return f"{{str: {_type(values)}}}" if isinstance(values, dict) else "object"
    return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "null"}.get(
        str(kind), "any"
    )


def _default(model: type[BaseModel], name: str) -> str:
    field = model.model_fields.get(name)
    if field is None:
        return "(computed)"
    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def field_table(model: type[BaseModel]) -> str:
    """The model's fields as a Markdown table, in serialisation order (computed fields last)."""
    properties = model.model_json_schema(mode="serialization")["properties"]
    descriptions = {name: field.description for name, field in model.model_fields.items()}
    descriptions |= {name: field.description for name, field in model.model_computed_fields.items()}
    rows = ["| field | type | default | notes |", "|---|---|---|---|"]
    for name in [*model.model_fields, *model.model_computed_fields]:
        rows.append(
            f"| `{name}` | {_cell(_type(properties[name]))} | {_cell(_default(model, name))} "
            f"| {_cell(descriptions[name] or '')} |"
        )
    return "\n".join(rows) + "\n"


def render_doc(text: str, models: dict[str, type[BaseModel]]) -> str:
    """`text` with every marked table regenerated; an unknown model name is an error."""

    def table(match: re.Match[str]) -> str:
        name = match["model"]
        if name not in models:
            raise KeyError(f"<!-- fields: {name} -->: no model {name} in {[m.__name__ for m in CONTRACT_MODULES]}")
        return match["open"] + field_table(models[name]) + match["close"]

    return _TABLE.sub(table, text)


def expected_files(repo: Path = REPO) -> dict[Path, str]:
    """Every generated file, path → the text the models give."""
    models = documented_models()
    files = {repo / SCHEMA_DIR / f"{name}.schema.json": schema_text(model) for name, model in SCHEMAS.items()}
    for doc in DOCS:
        path = repo / doc
        files[path] = render_doc(path.read_text(encoding="utf-8"), models)
    return files


def tabled_models(repo: Path = REPO) -> set[str]:
    """The models the docs have a table of."""
    return {m["model"] for doc in DOCS for m in _TABLE.finditer((repo / doc).read_text(encoding="utf-8"))}


def stale_files(repo: Path = REPO) -> list[Path]:
    return [
        path
        for path, text in expected_files(repo).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb_pipeline.contract_docs", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    args = parser.parse_args(argv)
    stale = stale_files()
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(REPO)} (run python -m kb_pipeline.contract_docs)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in expected_files().items():
        if path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
