"""The readers, by branch (glossary, rules, formulas, brief): each proposes candidates quoted from
the document (findings.py), for the span check to admit."""
