"""The rules' reader: statements, and what makes one a rule (normative wording, an instruction, a
condition)."""
