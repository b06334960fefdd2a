"""The review domain (docs/review.md), without the web: the decisions store, the corpus the desk
reads (queue, entries, versions), each entry's status against the decisions when read,
re-attachment after a re-parse, the version diff, the exports (JSON, CSV, TBX, SKOS), accounts
and sessions, the page image. The desk (review_desk/), the command line and the Dagster layer
all build on it; it imports no web framework."""
