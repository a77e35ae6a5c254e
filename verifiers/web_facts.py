"""What the web says about an entity's relation: values other sites state for it, and answers they dispute.

Both read the results of the search validation's query (``"<head>" <relation>``, verifiers.search), so a run
asks nothing new: the verify stage asked it for every kept triple, and the catalog's cache answers.

A page *states* a value for a relation when it names the entity (or an alias) and one of its sentences holds
the value (as pages write it: verifiers.search.value_forms) and an expression of the relation: its name, a
cue of the reviewable table (filters/relation_cues.tsv: 生于 for 出生日期, 全长 for 长度 …), or for a relation the
table says a construction states (职业: 「X是一位画家」), the entity's name.

* :meth:`WebFacts.states`: a distractor some other page states for the entity's relation may be a right answer
  (the infobox lists one 职业, a museum page gives another): the item builder does not offer it; nor one another
  page lists, in a sentence naming the entity, with a right answer (:meth:`WebFacts.lists`).
* :func:`filters.statements.dispute`: a dated answer that another page gives a different year for, in a sentence that expresses
  the relation (sites disagree on a birth year): the question has no one answer and is dropped.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from filters.enumerations import coordinated
from filters.normalize import normalize, value_forms
from filters.statements import sentences, split_sentences
from schemas.records import Hit
from verifiers.search import SearchValidator


class WebFacts:
    """Statements of other pages about (head, relation), from the top ``k`` results of the validation's query."""

    def __init__(self, search, k: int = 10):
        self.search, self.k = search, k
        self.hits = lru_cache(maxsize=4096)(self._ask)  # (head, relation) -> its results, asked once
        # (head, relation, names, exclude) -> the (URL, sentence) pairs that state something for it: every
        # candidate value of an item is looked for in the same sentences
        self._statements = lru_cache(maxsize=4096)(self._stating)

    def prefetch(self, asked: Iterable[tuple[str, str]]) -> None:
        """Read the cached results of these (head, relation) queries at once, where the search keeps a cache
        (verifiers.search.CachedSearch): a batch of questions then costs one catalog read, not one each."""
        prefetch = getattr(self.search, "prefetch", None)
        if prefetch is not None:
            prefetch(sorted({SearchValidator.query(head, relation) for head, relation in asked}), self.k)

    def _ask(self, head: str, relation: str) -> tuple[Hit, ...]:
        return tuple(self.search.search(SearchValidator.query(head, relation), self.k))

    def states(self, head: str, relation: str, value: str, names: Iterable[str] = (),
               exclude: Iterable[str] = ()) -> str | None:
        """The URL of a page (not in ``exclude``) that states ``value`` for the entity's relation, or None."""
        forms = value_forms(value)
        for url, sentence in self._statements(head, relation, tuple(names), tuple(exclude)):
            if any(f in sentence for f in forms):
                return url
        return None

    def lists(self, head: str, relation: str, value: str, anchors: Iterable[str], names: Iterable[str] = (),
              exclude: Iterable[str] = ()) -> str | None:
        """The URL of a page (not in ``exclude``) whose sentence naming the entity lists ``value`` with one of
        ``anchors`` (the question's right answers: 「张衡是天文学家、数学家」), or None."""
        forms = value_forms(value)
        wanted = [normalize(n) for n in (head, *names) if n]
        anchor_forms = [value_forms(a) for a in anchors if a and a != value]
        skip = set(exclude)
        for hit in self.hits(head, relation):
            if hit.url in skip:
                continue
            for sentence in split_sentences(normalize(hit.text)):
                if any(n in sentence for n in wanted) and any(f in sentence for f in forms) and any(
                        coordinated(sentence, anchor, forms) for anchor in anchor_forms):
                    return hit.url
        return None

    def _stating(self, head: str, relation: str, names: tuple[str, ...],
                 exclude: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        return tuple((url, sentence) for url, sentence, _ in sentences(self.hits(head, relation), head, names,
                                                                         relation, exclude))
