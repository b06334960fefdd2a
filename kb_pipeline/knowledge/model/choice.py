"""Putting to a language model what code could not decide, on any branch: always as a choice
among the document's own sentences or clauses (an `enum` in the JSON schema) or null, never
free text. The answer is therefore verbatim by construction, and the caller still sends it
through the span check as another proposer's quote.

The passage is data, not instructions: an option that talks to a model (injection.py) is never
offered, and is recorded in rejected.json. A bad answer (cut off, not JSON, not an option) is
recorded against the one value asked for and the others go on; an endpoint that fails raises
`ModelFailed` from the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...llm.model import BadAnswer, LanguageModel
from ...llm.usage import CallUsage
from ..payloads.contracts import RejectedBranch, RejectedField
from .injection import addresses_a_model

MAX_OPTIONS = 12
# Longer "sentences" are run-together layout (a table row, a list without stops), not an answer.
LONGEST_OPTION = 600
# The JSON object around the longest allowed option, in tokens, with room to spare.
MAX_TOKENS = 400
_INJECTION_REASON = "reads as an instruction to a language model (prompt injection): never offered to the model"


@dataclass
class Choices:
    """What a branch's questions left beside their picks: what was refused, and the calls'
    accounting."""

    rejected: list[RejectedField] = field(default_factory=list)
    usage: list[CallUsage] = field(default_factory=list)


@dataclass(frozen=True)
class Question:
    """One choice to put: `entry` names it in rejected.json; `prompt` is the user message before
    the numbered options."""

    entry: str
    # Ends with the options' label ("Sentences:"); the numbered options follow on the next lines.
    prompt: str
    options: tuple[str, ...]


class Chooser:
    """One branch's questions to one model: `system` says what to choose and how to answer;
    `answer_field` is the one property of the answer object; `field` is the contract field the
    pick fills (for rejected.json)."""

    def __init__(
        self, model: LanguageModel, *, branch: RejectedBranch, system: str, answer_field: str, field: str
    ) -> None:
        self.model = model
        self.branch = branch
        self.system = system
        self.answer_field = answer_field
        self.field = field
        self.choices = Choices()
        self._refused: set[str] = set()  # an injection is recorded once, however often offered

    def _rejected(self, entry: str, value: str, reason: str) -> None:
        self.choices.rejected.append(
            RejectedField(entry_term=entry, field=self.field, offending_value=value, reason=reason, branch=self.branch)
        )

    def _offered(self, question: Question) -> list[str]:
        offered: list[str] = []
        for option in dict.fromkeys(question.options):
            if len(option) > LONGEST_OPTION:
                continue
            if addresses_a_model(option):
                if option not in self._refused:
                    self._refused.add(option)
                    self._rejected(question.entry, option, _INJECTION_REASON)
                continue
            offered.append(option)
        return offered[:MAX_OPTIONS]

    def ask(self, question: Question) -> str | None:
        """The option picked, or None (nothing offered, the model abstained, or its answer was
        refused and recorded)."""
        offered = self._offered(question)
        if not offered:
            return None
        listed = "\n".join(f"{k}. {option}" for k, option in enumerate(offered, start=1))
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": f"{question.prompt}\n{listed}"},
        ]
        # Every property required (a small model leaves optional ones out), null allowed in the enum.
        schema = {
            "type": "object",
            "properties": {self.answer_field: {"enum": [*offered, None]}},
            "required": [self.answer_field],
            "additionalProperties": False,
        }
        answer = self.model.ask(self.branch, messages, schema, MAX_TOKENS)
        self.choices.usage.append(answer.usage)
        try:
            value = answer.parsed().get(self.answer_field)
        except BadAnswer as bad:
            self._rejected(question.entry, bad.raw[:500], f"the model's answer was refused: {bad}")
            return None
        if value is None:
            return None  # the model abstained: the value stays open for a person
        if not isinstance(value, str) or value not in offered:
            # An endpoint that ignores the schema: whatever it wrote is not an option it was shown.
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            self._rejected(question.entry, shown[:500], "not one of the passage's sentences the model was offered")
            return None
        return value
