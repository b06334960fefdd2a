"""The review desk (docs/review.md): experts approve, edit or reject glossary entries beside the
source page; their decisions, kept in a database keyed by term_id, form the active glossary."""
