"""The package's shape: no import cycles between its modules or its sub-packages, the core never
imports Dagster, and the run machinery is referenced by the instance files only (dagster.yaml),
not by the definitions or the core. Imports inside functions count: they are cycles too, only
deferred. Only the parse, quality and the desk's page images open the PDF. Every language fills
the lexicon's classes, and a reader takes another language's words from the lexicon."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kb_pipeline"
# The Dagster layer and what only it and the command line use.
DAGSTER_LAYER = ("defs", "runs", "cli", "definitions")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _imports() -> dict[str, set[str]]:
    """Module → the kb_pipeline modules it imports (anywhere in its body)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[: len(base) - node.level + 1] if node.level else []
                stem = ".".join([*base, *([node.module] if node.module else [])])
                for alias in node.names:
                    candidate = f"{stem}.{alias.name}"
                    targets.add(candidate if candidate in modules else stem)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target) :] + [target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _subpackage(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def test_no_import_cycle_between_modules():
    graph = _imports()
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_no_import_cycle_between_subpackages():
    graph: dict[str, set[str]] = {}
    for module, targets in _imports().items():
        graph.setdefault(_subpackage(module), set()).update(
            _subpackage(t) for t in targets if _subpackage(t) != _subpackage(module)
        )
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_the_core_never_imports_dagster_or_the_dagster_layer():
    layer = tuple(f"kb_pipeline.{name}" for name in DAGSTER_LAYER)
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        if module.startswith(layer):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
        assert not {n for n in names if n.split(".")[0] == "dagster"}, f"{module} imports Dagster"
        assert not (_imports()[module] & {m for m in _imports() if m.startswith(layer)}), module


def _third_party(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
    return {n.split(".")[0] for n in names}


def test_the_review_domain_and_the_dagster_layer_import_no_web_module():
    """The decisions are not the web's: review/ (store, corpus, re-attachment, version diff,
    exports, accounts) imports no web framework and nothing of the desk; the Dagster layer reaches
    the domain without the desk; only the desk itself and `kb-pipeline review` (which serves it)
    import review_desk/."""
    web = {"fastapi", "starlette", "jinja2", "uvicorn", "multipart"}
    graph = _imports()
    desk = {m for m in graph if m.startswith("kb_pipeline.review_desk")}
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        if module == "kb_pipeline.review" or module.startswith(("kb_pipeline.review.", "kb_pipeline.defs")):
            assert not _third_party(path) & web, f"{module} imports a web framework"
    users = {m for m, targets in graph.items() if targets & desk and m not in desk}
    assert users == {"kb_pipeline.cli.review"}
    assert len(desk) > 1 and graph["kb_pipeline.review_desk.app"] & {
        m for m in graph if m.startswith("kb_pipeline.review.")
    }


def test_only_the_command_line_and_dagster_yaml_use_the_run_machinery():
    users = {m for m, targets in _imports().items() if any(t.startswith("kb_pipeline.runs") for t in targets)}
    assert {u for u in users if not u.startswith(("kb_pipeline.runs", "kb_pipeline.cli"))} == set()
    for name in ("dagster.yaml", "dagster.postgres.yaml"):
        assert "module: kb_pipeline.runs.launcher" in (PACKAGE.parent / name).read_text()
    assert "module: kb_pipeline.runs.celery" in (PACKAGE.parent / "dagster.celery.yaml").read_text()


def test_the_graph_sees_function_level_imports():
    """The analysis must not be blind to a deferred import (a cycle hides there most often)."""
    graph = _imports()
    assert "kb_pipeline.definitions" in graph["kb_pipeline.cli.ingest"]


@pytest.mark.parametrize("module", ["kb_pipeline.settings"])
def test_settings_read_every_kb_variable(module):
    """Every `KB_*` variable is read in settings.py: no other module reads the environment's KB_ names."""
    for path in PACKAGE.rglob("*.py"):
        if _module_name(path) == module:
            continue
        text = path.read_text(encoding="utf-8")
        assert 'environ.get("KB_' not in text and 'getenv("KB_' not in text, path


def test_the_model_package_knows_nothing_of_extraction_and_settings_no_feature():
    """llm/ (client, cache, endpoint, embedded server) is infrastructure the knowledge readers use,
    never the other way round; the settings module depends on no feature package."""
    graph = _imports()
    for module, targets in graph.items():
        if module.startswith("kb_pipeline.llm"):
            assert not {t for t in targets if t.startswith("kb_pipeline.knowledge")}, module
    features = (
        "kb_pipeline.knowledge",
        "kb_pipeline.rag",
        "kb_pipeline.review",
        "kb_pipeline.review_desk",
        "kb_pipeline.quality",
    )
    assert not {t for t in graph["kb_pipeline.settings"] if t.startswith(features)}


@pytest.mark.parametrize("library", ["openai", "pandas"])
def test_the_model_client_and_pandas_are_imported_only_where_they_are_used(library):
    """Every process that runs a document (the command, its workers, the daemon, the code server)
    imports the definitions, and through them llm/model.py and defs/tables.py; `openai`'s import
    (a third of the definitions' import time) waits for a model call, pandas' (a third of a
    second) for a table's write. So no module imports either at its top level."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not [n for n in names if n.split(".")[0] == library], path


def test_the_knowledge_version_fingerprints_extraction_not_the_model_client():
    """A change to the client's retries, cache or server must not show every knowledge partition
    unsynced: which model answers is the code version's other half (its identity)."""
    from kb_pipeline.versions import KNOWLEDGE_SOURCES

    sources = {p.relative_to(PACKAGE).as_posix() for p in KNOWLEDGE_SOURCES}
    assert {p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "knowledge").rglob("*.py")} <= sources
    assert {s for s in sources if s.startswith("llm/")} == {"llm/usage.py"}


def test_the_packager_version_fingerprints_what_packages_not_what_measures_them():
    """Every rag module the packager imports (however deep) is in `kb_package`'s code version;
    `rag/coverage.py`, which only tests and bench import to measure a package, is not."""
    from kb_pipeline.versions import PACKAGER_SOURCES

    graph = _imports()
    reached, frontier = set(), {"kb_pipeline.rag.packager"}
    while frontier:
        reached |= frontier
        frontier = {t for m in frontier for t in graph[m] if t.startswith("kb_pipeline.rag")} - reached
    sources = {_module_name(p) for p in PACKAGER_SOURCES}
    assert reached <= sources
    assert "kb_pipeline.rag.coverage" not in sources
    assert not {m for m, targets in graph.items() if "kb_pipeline.rag.coverage" in targets}


def _opens_a_pdf(path: Path) -> bool:
    """The module imports pypdfium2 or makes a `PdfTextLayer`: it opens a PDF itself."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "pypdfium2" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "pypdfium2":
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) == "PdfTextLayer":
                return True
    return False


def test_only_the_parse_quality_and_the_desk_s_page_images_open_the_pdf():
    """The PDF is opened by the parse (its preflight, OCR, MinerU, the source title, the drop
    folder's page count that orders the parses), the normaliser with quality (coverage is
    measured against the source) and the desk's page images, nowhere else; the knowledge
    readers and the RAG package read the artifacts (chunks.json, page_layout.json) and import
    neither the text layer nor MinerU's raw output."""
    parse = ("kb_pipeline.parsing.", "kb_pipeline.normalise.", "kb_pipeline.quality.")
    allowed = {
        "kb_pipeline.pdf_text",
        "kb_pipeline.pipeline",
        "kb_pipeline.source_title",
        "kb_pipeline.drop_folder",
        "kb_pipeline.review.page_image",
        "kb_pipeline.review_desk.pages",
    }
    openers = {_module_name(p) for p in PACKAGE.rglob("*.py") if _opens_a_pdf(p)}
    assert {m for m in openers if not m.startswith(parse)} == allowed
    graph = _imports()
    packager, frontier = set(), {"kb_pipeline.rag.packager"}
    while frontier:
        packager |= frontier
        frontier = {t for m in frontier for t in graph[m] if t.startswith("kb_pipeline.rag")} - packager
    readers = {m for m in graph if m.startswith("kb_pipeline.knowledge")} | packager
    sources = {"kb_pipeline.pdf_text", "kb_pipeline.parsing.raw_output"}
    assert {m: graph[m] & sources for m in readers if graph[m] & sources} == {}
    assert "kb_pipeline.layout_contract" in graph["kb_pipeline.rag.document_packager"]
    assert "kb_pipeline.layout_contract" in graph["kb_pipeline.knowledge.document.layout"]


def _lexicon_classes() -> dict[str, set[str]]:
    """The classes lexicon.py joins, by how: `_every`/`_either` over `LANGUAGES`, `_recognised`
    over every language recognised."""
    joined: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse((PACKAGE / "knowledge" / "language" / "lexicon.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            name = node.args[0]
            if node.func.id in ("_every", "_either", "_recognised") and isinstance(name, ast.Constant):
                joined.setdefault(node.func.id, set()).add(str(name.value))
    return joined


def test_every_language_fills_every_class_the_lexicon_joins():
    """A new language is one module with the same names: every read language defines every class
    (an empty tuple or "" where it has none); a language recognised only where a document names
    its parts and itself defines those classes and no other."""
    from kb_pipeline.knowledge.language.lexicon import LANGUAGES, RECOGNISED_ONLY

    joined = _lexicon_classes()
    every = joined["_every"] | joined["_either"] | joined["_recognised"]
    for language in LANGUAGES:
        assert not {name for name in every if not hasattr(language, name)}, language.__name__
    for language in RECOGNISED_ONLY:
        defined = {name for name in vars(language) if name.isupper()}
        assert defined == joined["_recognised"] | {"CODE"}, language.__name__


def test_a_reader_takes_the_words_of_other_languages_from_the_lexicon():
    """No reader writes a word the lexicon lists for a language other than English (a function
    word, an article, a copula …): every language's words and grammar are its module's."""
    import re

    from kb_pipeline.knowledge.language import english
    from kb_pipeline.knowledge.language.lexicon import LANGUAGES

    def words(language: object) -> set[str]:
        return {
            word.casefold()
            for name, value in vars(language).items()
            if name.isupper() and isinstance(value, (tuple, list, frozenset))
            for word in value
            if isinstance(word, str)
        }

    foreign = {w for language in LANGUAGES if language is not english for w in words(language)} - words(english)
    foreign = {w for w in foreign if len(w) > 2 and w.isalpha()}
    readers = PACKAGE / "knowledge" / "readers"
    written: dict[str, set[str]] = {}
    for path in readers.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        documented = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documented:
                # A regex's escapes ("\b", "\s") are no letters of a word; "\w+est" is an ending.
                plain = re.sub(r"\\[a-zA-Z]", " ", re.sub(r"\\w[+*]", "x", node.value)).casefold()
                found = {w for w in re.findall(r"[^\W\d_]+", plain) if w in foreign}
                if found:
                    written.setdefault(path.relative_to(readers).as_posix(), set()).update(found)
    assert written == {}
