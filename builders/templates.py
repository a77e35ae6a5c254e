"""Question templates per relation and per end of the triple asked, from the reviewable ``question_templates.tsv``.

A line is ``relation<TAB>ask<TAB>template``; ``ask`` says which end of (head, relation, tail)
the question asks for (CDTP's QA: two components given, the third asked):

* ``tail``: the value, when the head has one value for the relation (short-answer questions
  and multiple choice);
* ``any``: one of several values, when the head has several ("which of the following is one
  of ..."; multiple choice only);
* ``head``: the entity, given the value (multiple choice only; other entities sharing the
  value are never among the options).

A relation has several phrasings per ask; an item takes one by a hash of its id, so the same
item always reads the same and a release mixes the phrasings. A two-cell line
``relation<TAB>template`` (the format before ``ask`` existed) is a ``tail`` template.
Placeholders: ``{head}``, ``{tail}`` and ``{sense}`` (``（sense）`` for a head whose title has
several senses, nothing otherwise).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

TEMPLATES = Path(__file__).with_name("question_templates.tsv")
ASKS = ("tail", "any", "head")
PLACEHOLDERS = ("head", "sense", "tail")
FALLBACK = {"tail": "{head}{sense}的{relation}是什么？", "any": "下列哪一项是{head}{sense}的{relation}之一？"}

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class TemplateError(ValueError):
    """A templates file is malformed; the message names the file and line."""


@dataclass
class Templates:
    """relation -> ask -> phrasings, in file order."""

    phrasings: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def relations(self, ask: str = "tail") -> set[str]:
        return {r for r, a in self.phrasings if a == ask}

    def has(self, relation: str, ask: str) -> bool:
        return (relation, ask) in self.phrasings

    def __contains__(self, relation: str) -> bool:
        return (relation, "tail") in self.phrasings

    def question(self, relation: str, ask: str, head: str = "", tail: str = "", sense: str = "",
                 pick: str = "") -> str | None:
        """The question for one item; ``pick`` (the item id) chooses among the phrasings. None for
        ``head`` when the relation has no head template (no fallback asks a head)."""
        options = self.phrasings.get((relation, ask))
        if not options:
            if ask not in FALLBACK:
                return None
            options = [FALLBACK[ask].replace("{relation}", relation)]
        choice = options[int(hashlib.md5(f"{pick}|{relation}|{ask}".encode()).hexdigest(), 16) % len(options)] \
            if len(options) > 1 else options[0]
        return fill(choice, head=head, tail=tail, sense=sense)


def fill(template: str, head: str = "", tail: str = "", sense: str = "") -> str:
    """One pass over the placeholders, so braces inside the values are never read as placeholders."""
    values = {"head": head, "tail": tail, "sense": f"（{sense}）" if sense else ""}
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def load_templates(path: Path | None = None) -> Templates:
    """The templates of a ``relation<TAB>ask<TAB>template`` file (default: the bundled one)."""
    path = Path(path) if path is not None else TEMPLATES
    found = Templates()
    first_line: dict[tuple[str, str, str], int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) == 2:
            cells = [cells[0], "tail", cells[1]]
        if len(cells) != 3:
            raise TemplateError(f"{where}: expected 'relation<TAB>ask<TAB>template' (two tabs), found "
                                f"{len(cells) - 1} tab(s); separate the cells with exactly one tab each")
        relation, ask, template = cells
        if not relation or not template:
            raise TemplateError(f"{where}: empty {'relation' if not relation else 'template'}; "
                                f"write both the relation and its question")
        if ask not in ASKS:
            raise TemplateError(f"{where}: ask {ask!r} is not one of {', '.join(ASKS)}")
        unknown = [p for p in _PLACEHOLDER.findall(template) if p not in PLACEHOLDERS]
        if unknown:
            raise TemplateError(f"{where}: unknown placeholder {{{unknown[0]}}} in {template!r}; "
                                f"use only {{head}}, {{tail}} and {{sense}}")
        needed, forbidden = ("{tail}", "{head}") if ask == "head" else ("{head}", "{tail}")
        if needed not in template:
            raise TemplateError(f"{where}: template {template!r} has no {needed}; a{'n' if ask == 'any' else ''} "
                                f"{ask} question names the {needed.strip('{}')} it is about")
        if forbidden in template:
            raise TemplateError(f"{where}: template {template!r} contains {forbidden}, the answer of a {ask} "
                                "question; leave it out")
        if not template.endswith(("？", "?")):
            raise TemplateError(f"{where}: template {template!r} is not a question; end it with ？")
        key = (relation, ask, template)
        if key in first_line:
            raise TemplateError(f"{where}: the same template for {relation!r} ({ask}) is already on line "
                                f"{first_line[key]}; keep one line per phrasing")
        first_line[key] = number
        found.phrasings.setdefault((relation, ask), []).append(template)
    return found


# The question word for an answer of each kind, in place of the generic 哪一项 (a thing): 「当代毕昇是下列哪位
#人物的别名？」, not 「…是下列哪一项的别名？」 of a person.
QUESTION_WORDS = {"person": "哪位人物", "place": "哪个地方", "year": "哪一年"}
_WHICH_ITEM = re.compile(r"哪一?项")


def fit_question_word(question: str, answer_kind: str) -> str:
    """The question with 哪一项/哪项 asking as ``answer_kind`` asks (person 哪位人物, place 哪个地方, year 哪一年);
    unchanged for a thing, and for a question that asks by a word of its own (哪本书, 哪所学校)."""
    word = QUESTION_WORDS.get(answer_kind)
    return _WHICH_ITEM.sub(word, question, count=1) if word else question


def question_for(head: str, relation: str, templates: Templates, sense: str = "", pick: str = "") -> str:
    """The tail question of ``relation`` about ``head``; ``{head}{sense}的{relation}是什么？`` without a template."""
    return templates.question(relation, "tail", head=head, sense=sense, pick=pick) or ""
