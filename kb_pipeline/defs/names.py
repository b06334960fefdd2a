"""Names of the graph's assets and jobs, for the code that refers to them from outside the
definitions (instance helpers, status, tests). `test_definitions.py` keeps them true."""

SOURCE_PDF = "source_pdf"
MINERU_RAW_OUTPUT = "mineru_raw_output"
PARSED_DOCUMENT = "parsed_document"
PAGE_LAYOUT = "page_layout"
QUALITY_WARNINGS = "quality_warnings"
QUALITY_WARNINGS_TABLE = "quality_warnings_table"
KB_PACKAGE = "kb_package"
KNOWLEDGE_PAYLOADS = "knowledge_payloads"
GLOSSARY_TABLE = "glossary_table"
REVIEW_QUEUE_TABLE = "review_queue_table"
# The review desk's decisions (outside Dagster), the approved knowledge they make (JSON, CSV)
# and the glossary's exports in the terminology formats downstream of it.
REVIEW_DECISIONS = "review_decisions"
ACTIVE_KNOWLEDGE = "active_knowledge"
GLOSSARY_TBX = "glossary_tbx"
GLOSSARY_SKOS = "glossary_skos"

INGEST_JOB = "ingest_documents"
# One document's knowledge step alone: what `kb-pipeline ingest` re-runs when only it failed.
KNOWLEDGE_JOB = "extract_knowledge"
# The corpus-wide tables: quality warnings, glossary, review queue.
TABLES_JOB = "refresh_tables"

# Run tag naming the content a run was for, so `status` can tell a failure of the present bytes
# from a failure of an earlier version of the file.
CONTENT_TAG = "kb/content"
