"""The knowledge half: a parsed document's glossary, formulas, rules and brief (Output Contract
v2, docs/knowledge.md). A pure core: it reads `ParsedDocument`s and never imports Dagster."""
