"""What pages say about an entity's relation, read sentence by sentence: the sentences about the entity that
express the relation (its name, a cue of the reviewable table filters/relation_cues.tsv: 生于 for 出生日期 …, or for
a relation the table says a construction states, the entity's name), and the other year a page dates the
relation to (:func:`dispute`). Text rules on search hits (schemas.records.Hit): the item builder reads its own
pair's text with them, the verifiers read other sites' pages (verifiers.web_facts, verifiers.items)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable
from urllib.parse import urlsplit

from filters.grounding import load_cues
from filters.normalize import normalize
from schemas.records import Hit

_SENTENCE = re.compile(r"[。！？；!?;\n]")
_PRONOUNS = ("其", "他", "她", "该")
# A date: its year (with 公元前 when BC), then month and day if given.
_DATE = re.compile(r"(?<!\d)((?:公元前)?\d{1,4})年(?:\d{1,2}月(?:\d{1,2}日)?)?")
_SPAN = re.compile(r"年[^年]*[—–~至到-][^年]*年")  # 960年—1279年: a span, not one date
_BEFORE, _AFTER = 8, 4  # how close a relation word stands to the date it dates
_QUALIFIER = re.compile(r"[（(]([^（）()]+)[）)]\s*$")


@lru_cache(maxsize=1024)
def by_pattern(relation: str) -> bool:
    """Whether the cue table says the relation is also stated by a construction (「X是一位画家」, 「唐朝诗人X」)
    rather than a word: then a sentence that names the entity and holds the value states it."""
    cues = load_cues().get(relation)
    return bool(cues and cues.patterns)


@lru_cache(maxsize=1024)
def relation_words(relation: str) -> tuple[str, ...]:
    """The relation's name and the cue words of the reviewable table (normalised; patterns left out)."""
    cues = load_cues().get(relation)
    words = [normalize(relation)]
    if cues is not None:
        words += [*cues.words, *cues.before, *cues.after]
    return tuple(w for w in dict.fromkeys(words) if w)


def sentences(hits: Iterable[Hit], head: str, names: Iterable[str], relation: str, exclude: Iterable[str] = (),
              constructions: bool = True, only_about: bool = False):
    """(URL, sentence) of the pages among ``hits`` (not in ``exclude``), for each of their sentences about the
    entity (naming it, or on a page titled by it, starting with 其, 他 …) that expresses the relation (by a word;
    with ``constructions``, also by naming the entity where the relation is stated by a construction), and the
    sentence with the entity's names masked (the same length); normalised. ``only_about``: pages whose title
    names the entity only."""
    skip = set(exclude)
    wanted = [normalize(n) for n in (head, *names) if n]
    words, construction = relation_words(relation), constructions and by_pattern(relation)
    for hit in hits:
        if hit.url in skip:
            continue
        about = any(n in normalize(hit.title) for n in wanted)  # a page on the entity: 其, 他 … mean it
        if only_about and not about:
            continue
        for sentence in _SENTENCE.split(normalize(hit.text)):
            named = any(n in sentence for n in wanted)
            if not (named or (about and sentence.lstrip("，,据介绍").startswith(_PRONOUNS))):
                continue  # a sentence about something else, such as another person's birth on the same page
            # the relation's words outside the names: 「爱迪生于1931年逝世」 holds 生于 inside 爱迪生 + 于
            masked = sentence
            for name in wanted:
                masked = masked.replace(name, "＠" * len(name))
            if any(w in masked for w in words) or (construction and named):
                yield hit.url, sentence, masked


def split_sentences(text: str) -> list[str]:
    """A normalised text's sentences, as this module reads them (at 。！？；, and line breaks)."""
    return _SENTENCE.split(text)


def _years(text: str) -> list[tuple[str, int, int]]:
    """(year as written, start, end of the whole date) of each date in ``text``; 公元前 kept on the year."""
    return [(m.group(1), m.start(), m.end()) for m in _DATE.finditer(text)]


def _qualifier(title: str) -> str:
    """The sense a page's title gives in brackets (邹松杰（北宋药学家）), or ""."""
    found = _QUALIFIER.search(title)
    return normalize(found.group(1)) if found else ""


def dispute(hits: Iterable[Hit], head: str, names: Iterable[str], relation: str, answer: str,
            exclude: Iterable[str] = (), sense: str = "") -> tuple[str, str] | None:
    """(URL, the year it gives) of a page that dates the entity's relation to another year than ``answer``
    does, or None. Only a single date is disputed (not a span such as 960年—1279年), only on a page about the
    entity (its title names it: another entity's page dates that entity's own life), and only by a date the
    relation's word stands right next to (「生于1932年」, 「1932年出生」, 「卒于1616年」): a sentence that names
    the entity and a year may date anything else (「2016年是汤显祖逝世400周年」). Pages of another entity by the
    same name do not dispute it: another entry of the item's own encyclopedia (the sites of ``exclude``), or a
    page whose title gives another sense than ``sense``."""
    written = normalize(answer)
    years = {year for year, _, _ in _years(written)}
    if len(years) != 1 or _SPAN.search(written):
        return None
    words = relation_words(relation)
    skip = set(exclude)
    own_sites = {urlsplit(u).hostname for u in skip}
    others = []
    for hit in hits:
        # another entry of the item's own encyclopedia is another entity (a homonym's page); so is a page whose
        # title names another sense (邹松杰（北宋药学家） for the physicist)
        qualifier = _qualifier(hit.title)
        if urlsplit(hit.url).hostname in own_sites or (sense and qualifier and qualifier != normalize(sense)):
            continue
        others.append(hit)
    for url, sentence, masked in sentences(others, head, names, relation, exclude, constructions=False,
                                           only_about=True):
        for year, start, end in _years(sentence):
            near = masked[max(0, start - _BEFORE):start] + "|" + masked[end:end + _AFTER]
            if year not in years and any(w in near for w in words):
                return url, year + "年"
    return None
