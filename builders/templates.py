"""Question templates per relation, from the reviewable ``question_templates.tsv``."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).with_name("question_templates.tsv")
PLACEHOLDERS = ("head", "sense")
FALLBACK = "{head}的{relation}是什么？"

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class TemplateError(ValueError):
    """A templates file is malformed; the message names the file and line."""


def load_templates(path: Path | None = None) -> dict[str, str]:
    """relation -> template from a ``relation<TAB>template`` file (default: the bundled one)."""
    path = Path(path) if path is not None else TEMPLATES
    templates: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        cells = line.split("\t")
        if len(cells) != 2:
            raise TemplateError(f"{where}: expected 'relation<TAB>template' (one tab), found {len(cells) - 1} tab(s); "
                                f"separate the relation from its question with exactly one tab")
        relation, template = cells[0].strip(), cells[1].strip()
        if not relation or not template:
            raise TemplateError(f"{where}: empty {'relation' if not relation else 'template'}; "
                                f"write both the relation and its question")
        unknown = [p for p in _PLACEHOLDER.findall(template) if p not in PLACEHOLDERS]
        if unknown:
            raise TemplateError(f"{where}: unknown placeholder {{{unknown[0]}}} in {template!r}; "
                                f"use only {{head}} and {{sense}}")
        if "{head}" not in template:
            raise TemplateError(f"{where}: template {template!r} has no {{head}}; "
                                f"put {{head}} where the entity's name goes")
        if not template.endswith(("？", "?")):
            raise TemplateError(f"{where}: template {template!r} is not a question; end it with ？")
        if relation in first_line:
            raise TemplateError(f"{where}: relation {relation!r} already has a template on line "
                                f"{first_line[relation]}; keep one line per relation")
        first_line[relation] = number
        templates[relation] = template
    return templates


def question_for(head: str, relation: str, templates: dict[str, str], sense: str = "") -> str:
    """The question asking for ``relation`` of ``head``; ``{head}的{relation}是什么？`` without a template.

    ``{sense}`` becomes ``（sense）`` when a sense is given and disappears otherwise.
    """
    template = templates.get(relation) or FALLBACK.replace("{relation}", relation)
    values = {"head": head, "sense": f"（{sense}）" if sense else ""}
    # One pass, so braces inside the head or the sense are never read as placeholders.
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
