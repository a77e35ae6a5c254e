"""Marking the matched spans of a source text, built from escaped pieces only.

Pair texts are crawled pages and items may come from an LLM: every piece of them is escaped on
its own and only the ``<mark>`` tags are trusted markup, so nothing in the data can become HTML.
"""

from __future__ import annotations

from markupsafe import Markup, escape


def spans(text: str, needles: dict[str, str]) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, kind) of every occurrence of each needle, longer matches first.

    needles: {needle: kind}; the kind becomes the mark's class (head, tail, answer).
    """
    found = []
    for needle, kind in needles.items():
        if not needle:
            continue
        start = text.find(needle)
        while start != -1:
            found.append((start, start + len(needle), kind))
            start = text.find(needle, start + len(needle))
    # A longer needle wins where two overlap: 中华人民共和国 over 中国 inside it.
    found.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    taken: list[tuple[int, int, str]] = []
    for s in found:
        if all(s[1] <= t[0] or s[0] >= t[1] for t in taken):
            taken.append(s)
    return sorted(taken)


def highlight(text: str, needles: dict[str, str]) -> Markup:
    """The text, escaped, with each needle's occurrences wrapped in ``<mark class="kind">``."""
    text = text or ""
    out, pos = [], 0
    for start, end, kind in spans(text, needles):
        out += [escape(text[pos:start]), Markup('<mark class="%s">') % kind, escape(text[start:end]),
                Markup("</mark>")]
        pos = end
    out.append(escape(text[pos:]))
    return Markup("").join(out)


def with_cuts(source: str, cuts: list[dict] | None) -> Markup:
    """The text as crawled, escaped, each span the cut took wrapped in ``<del class="cut">`` with why."""
    source, out, pos = source or "", [], 0
    for cut in sorted(cuts or [], key=lambda c: c["start"]):
        start, end = max(int(cut["start"]), pos), min(int(cut["end"]), len(source))
        if start >= end:
            continue
        out += [escape(source[pos:start]), Markup('<del class="cut" title="%s">') % (cut.get("reason") or ""),
                escape(source[start:end]), Markup("</del>")]
        pos = end
    out.append(escape(source[pos:]))
    return Markup("").join(out)


def needles_of(item: dict, pair: dict) -> dict[str, str]:
    """What to mark in a pair's text: the item's head, its tail or answer, each kept triple's tail."""
    needles: dict[str, str] = {}
    for triple in pair.get("triples") or []:
        if (triple.get("decision") or "kept") == "kept":
            needles[_clean(triple.get("tail"))] = "tail"
    for key in ("tail", "answer"):
        value = _clean(item.get(key))
        # t2t's answer is the whole text: marking all of it says nothing.
        if value and value != _clean(pair.get("text")):
            needles.setdefault(value, "answer" if key == "answer" else "tail")
    for head in (item.get("head"), pair.get("entity")):
        if _clean(head):
            needles[_clean(head)] = "head"
    needles.pop("", None)
    return needles


def _clean(value) -> str:
    return str(value).strip() if value is not None else ""
