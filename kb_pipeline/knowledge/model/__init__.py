"""The steps a language model is asked in: what code left open, put to it as a choice among the
document's own text (a definition, an open rule or formula), and the guard against text that
addresses a model."""
