"""The glossary's readers (abbreviation lists, definitions in lists, tables, labels, sections and
sentences), the wording of a definition, and the clustering of their findings into entries."""
