"""What an entity's own pages say for a relation, beyond its pair's shipped text: a value they give is a right
answer, never a distractor.

A pair's text is cut to the triples it ships (filters.cut), so a value the cut took out is still what the page
says (张衡's 「东汉杰出的天文学家、数学家、发明家和文学家」 ships as 「…天文学家」). The check reads the pages as
crawled, every page of the title (summary and body, every sense):

* a value stated there for the relation, by the grounding rule (:mod:`filters.grounding`: the value mentioned
  where a clause expresses the relation, by its name, a cue of the table or one the run learned);
* a value co-ordinated there with a right answer of the question (数学家 with 天文学家 above), whether or not the
  clause names the relation (:func:`filters.enumerations.coordinated`).

For a question that asks the head (「下列哪部作品的作者是曹雪芹？」), a candidate entity is right where its own pages
state the given value for the relation, or where the pages of the given value co-ordinate it with the gold
(「作者曹雪芹、高鹗」).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Iterable

from filters.enumerations import coordinated
from filters.normalize import normalize, value_forms
from schemas import Pair, Triple

TEXTS_HELD = 2048  # heads whose page texts are held at once (a batch's heads, and the candidates asked about)


class PageTruth:
    """``texts(heads)``: head -> the texts of its pages (builders.graph.Graph.page_texts); ``grounding``: a
    grounding filter of its own (filters.rules.grounding.GroundingFilter: it keeps the last text it segmented, and
    a page is asked about several candidates in a row)."""

    def __init__(self, texts: Callable[[Iterable[str]], dict[str, list[str]]], grounding):
        self._fetch = texts
        self.grounding = grounding
        self._held: OrderedDict[str, tuple[str, str]] = OrderedDict()  # head -> its pages' texts joined, normalised

    def prefetch(self, heads: Iterable[str]) -> None:
        """Read the pages of these heads at once (one query for a batch)."""
        wanted = [h for h in dict.fromkeys(heads) if h and h not in self._held]
        if not wanted:
            return
        found = self._fetch(wanted)
        for head in wanted:
            self._hold(head, "\n".join(found.get(head, ())))

    def _hold(self, head: str, text: str) -> tuple[str, str]:
        held = self._held[head] = (text, normalize(text) if text else "")
        self._held.move_to_end(head)
        while len(self._held) > TEXTS_HELD:
            self._held.popitem(last=False)
        return held

    def _texts(self, head: str) -> tuple[str, str]:
        found = self._held.get(head)
        if found is None:
            found = self._hold(head, "\n".join(self._fetch([head]).get(head, ())))
        return found

    def text(self, head: str) -> str:
        """The texts of the head's pages, joined by line breaks ("" where it has none)."""
        return self._texts(head)[0]

    def states(self, head: str, names: Iterable[str], relation: str, value: str, anchors: Iterable[str] = ()) -> str:
        """"page" where a page of ``head`` states ``value`` for ``relation``; "page_list" where it lists ``value``
        with one of ``anchors`` (right answers of the question); "" otherwise."""
        text = self.text(head)
        if not text or not value.strip():
            return ""
        probe = Pair(pair_id=f"page:{head}", entity=head, text=text, aliases=[n for n in names if n and n != head])
        if self.grounding.check(Triple(head, relation, value), probe).keep:
            return "page"
        return "page_list" if self.coordinated(head, value, anchors) else ""

    def gives_head(self, candidate: str, relation: str, given: str, gold: str, names: Iterable[str] = ()) -> str:
        """For a question that asks the head of (?, relation, given): "page" where the candidate's own pages state
        the given value, or one of its other ``names``, for the relation (高鹗's: 续写《红楼梦》; 东晋's: 定都建康, which
        is 南京), "page_list" where the given value's pages list the candidate with the gold (「作者曹雪芹、高鹗」), ""
        otherwise."""
        if any(self.states(candidate, (), relation, name) for name in dict.fromkeys((given, *names)) if name):
            return "page"
        return "page_list" if self.coordinated(page_title(given), candidate, (gold,)) else ""

    def coordinated(self, head: str, value: str, anchors: Iterable[str]) -> bool:
        """Whether a page of ``head`` lists ``value`` with one of ``anchors`` (filters.enumerations.coordinated)."""
        plain = self._texts(head)[1]
        if not plain:
            return False
        forms = value_forms(value)
        return any(coordinated(plain, value_forms(anchor), forms) for anchor in anchors if anchor and anchor != value)


def page_title(value: str) -> str:
    """The title of the page a value names: a work without its 《》."""
    value = value.strip()
    return value[1:-1] if value.startswith("《") and value.endswith("》") else value
