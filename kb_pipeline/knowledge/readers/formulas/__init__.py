"""The formulas' reader: formulas, their lead-in names and their symbols' legends (the legends are
also a glossary reader)."""
