"""Does a text state a triple? Its value, mentioned where the text also expresses its relation.

CDTP keeps a triple only when "the semantic content of each triple is supported by the
accompanying text" (paper, section 3.2). A value that appears somewhere is not enough:
北京 in 「晚年在北京西郊」 does not say where 曹雪芹 died. A triple is supported when its value
(normalised as :mod:`filters.normalize` does, never inside a longer number or word) is
mentioned in a clause that expresses its relation:

* the relation's name or an alias (filters/relation_aliases.tsv), or a cue word from the
  reviewable table ``relation_cues.tsv`` (逝世地: 逝世, 去世, 卒于, 病逝 ...), anywhere in the
  clause outside the value; or a cue right before or after the value (<字 in 「字文叔」,
  >人 in 「浙江绍兴人」);
* or one of the patterns Baike uses to restate infobox rows: the lifespan in parentheses
  after the name, the parenthesised other name, the opening description (「X，药学家」,
  「X是…的药学家」), a qualifier of that description (「东汉开国皇帝」), a copula (「属于…」).

A value written in pieces that a long infobox value strings together (2008年全明星扣篮大赛冠军
for 「2008年夺得NBA全明星扣篮大赛冠军」) counts when every piece occurs, in order, in one clause
or two, close together; short values must occur whole. The span returned is the supporting
mention's, so the position index is measured where the text states the triple.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from filters.clean import clean
from filters.normalize import is_cjk, normalize, value_cache
from filters.text import Clauses, ordinals_as_digits, segmenter, tagger
from filters.triples import relation_aliases

CUES_FILE = Path(__file__).with_name("relation_cues.tsv")
# What may sit between an adjacent cue and the value: quotes, colons, a copula.
GAP = frozenset("“”\"'‘’「」『』:为是作成")
COPULAS = ("是", "为", "系", "乃", "属于", "属", "作为", "身为", "成为", "列为")
# Words that end a description of a person or thing that a qualifier may precede (东汉开国皇帝, 中国药学家).
DESCRIBED = ("家", "人", "者", "员", "师", "帝", "王", "将", "官", "相", "后", "臣", "士", "生", "手", "星", "长", "人物",
             "导演", "演员", "歌手", "作品", "诗", "词", "曲", "赋",
             "主", "匠", "僧", "侠", "君", "妃", "公", "侯", "学者", "领袖", "皇帝", "诗人", "作品", "小说", "国家",
             "城市", "王朝", "朝代", "政权", "植物", "动物", "企业", "公司", "大学", "机构", "电影", "电视剧", "剧",
             "片", "歌曲", "专辑", "菜", "菜肴", "小吃", "食品", "特产", "树", "草", "花", "果", "药", "作物")
# A qualifier stands right before what it qualifies: at most this many characters, not an institution.
QUALIFIED_MAX_CHARS = 8
INSTITUTIONS = ("院", "会", "部", "局", "所", "馆", "厅", "校", "公司", "集团", "政府", "组织", "委员", "大学", "中心", "协会",
                "联盟", "党", "署", "处")
# Administrative suffixes the text may leave out (出生于上海 for 出生地 上海市).
ADMINISTRATIVE = "市省县区镇乡州"
# What may stand between a cue and a value that follows it in a list (「故称益母果或益母子」).
LIST_MARKS = "、或和及与跟"
# What stands between the items of what a text says (「个大、果形正，外形美观」).
ITEM_MARKS = "、，,；;。“”「」\"'"
PATTERNS = ("lifespan_birth", "lifespan_death", "paren_after_head", "descriptor", "qualifier", "copula", "opening",
            "phrase")
# Relations that say what kind of thing the entity is (名称 ending): their values are said as descriptions.
KIND_SUFFIXES = ("类别", "类型", "性质", "级别", "等级", "体裁", "类属")
# A value of a @phrase relation needs no cue when it is at least this long: it is itself a statement.
PHRASE_MIN_CHARS = 4
# Words of a relation's name that say nothing alone (主要成就 is expressed by 成就, not by 主要).
WEAK_WORDS = frozenset({"主要", "重要", "著名", "相关", "其他", "所属", "所在", "首任", "首次", "最高", "最大", "平均",
                        "中文", "外文", "名称", "时间", "日期", "年份", "地点", "地区", "情况", "代表", "类型", "特点",
                        "信息", "内容", "方式", "数量", "总"})
# Values at least this long and made of several words may be found in pieces (see the module docstring),
# with at most PIECE_GAP characters between two of their words.
PIECES_MIN_CHARS = 5
# ... and values this long need no cue of their relation to be found in pieces (their words say what they are).
PIECES_NO_CUE_CHARS = 12
PIECE_GAP = 16


class CueError(ValueError):
    """The cue table is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Cues:
    words: tuple[str, ...] = ()  # anywhere in the clause, outside the value
    before: tuple[str, ...] = ()  # right before the value
    after: tuple[str, ...] = ()  # right after the value
    patterns: frozenset[str] = frozenset()


@lru_cache(maxsize=8)
def load_cues(path: Path = CUES_FILE) -> dict[str, Cues]:
    """relation -> its cues, from the reviewable table (see its header for the format)."""
    classes: dict[str, list[str]] = {}
    rows: dict[str, list[str]] = {}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 2 or not cells[0].strip() or not cells[1].strip():
            raise CueError(f"{path}:{number}: expected 'relation<TAB>cues' with cues separated by spaces")
        name, cues = cells[0].strip(), cells[1].split()
        for cue in cues:
            if cue.startswith("@") and cue[1:] not in PATTERNS:
                raise CueError(f"{path}:{number}: unknown pattern {cue}; the patterns are "
                               + ", ".join("@" + p for p in PATTERNS))
            if cue.startswith("$") and cue not in classes:
                raise CueError(f"{path}:{number}: class {cue} is not defined above this line")
        (classes if name.startswith("$") else rows)[name] = cues
    table: dict[str, Cues] = {}
    for relation, cues in rows.items():
        expanded: list[str] = []
        for cue in cues:
            expanded += classes[cue] if cue.startswith("$") else [cue]
        table[relation] = _cues(expanded)
    return table


def _cues(tokens: list[str]) -> Cues:
    words, before, after, patterns = [], [], [], set()
    for token in tokens:
        if token.startswith("@"):
            patterns.add(token[1:])
        elif token.startswith("<"):
            before.append(normalize(token[1:]))
        elif token.startswith(">"):
            after.append(normalize(token[1:]))
        else:
            words.append(normalize(token))
    return Cues(tuple(dict.fromkeys(words)), tuple(dict.fromkeys(before)), tuple(dict.fromkeys(after)),
                frozenset(patterns))


def merge_cues(table: dict[str, Cues], learned: dict[str, list[str]]) -> dict[str, Cues]:
    """The table with each relation's learned cue tokens (<word, >word) added to its own."""
    merged = dict(table)
    for relation, tokens in learned.items():
        extra = _cues(list(tokens))
        own = merged.get(relation, Cues())
        merged[relation] = Cues(tuple(dict.fromkeys(own.words + extra.words)),
                                tuple(dict.fromkeys(own.before + extra.before)),
                                tuple(dict.fromkeys(own.after + extra.after)), own.patterns | extra.patterns)
    return merged


class RelationCues:
    """The cues of every relation: its table entry, its name, its aliases and the words of its name."""

    def __init__(self, table: dict[str, Cues] | None = None, aliases: dict[str, str] | None = None,
                 learned: dict[str, list[str]] | None = None):
        self.table = load_cues() if table is None else table
        if learned:  # cues learned from the crawl (filters.cues_learned), beside the table's
            self.table = merge_cues(self.table, learned)
        self.others: dict[str, list[str]] = {}
        for alias, canonical in (relation_aliases() if aliases is None else aliases).items():
            self.others.setdefault(canonical, []).append(alias)
        self._cache: dict[str, Cues] = {}

    def __call__(self, relation: str) -> Cues:
        found = self._cache.get(relation)
        if found is None:
            entry = self.table.get(relation, Cues())
            if not entry.patterns and relation.endswith(KIND_SUFFIXES):
                # a relation that classifies (行政区类别, 机构性质, 景区级别) is said as what the entity is
                entry = Cues(entry.words, entry.before, entry.after, frozenset({"descriptor", "qualifier"}))
            names = [normalize(n) for n in (relation, *self.others.get(relation, ()))]
            words = [w for n in names for w in segmenter().cut(n, HMM=False) if len(w) >= 2 and w not in WEAK_WORDS]
            found = self._cache[relation] = Cues(tuple(dict.fromkeys([*names, *words, *entry.words])),
                                                 entry.before, entry.after, entry.patterns)
        return found


def _adjacent_before(text: str, start: int, words: tuple[str, ...]) -> bool:
    """A cue right before the value, or separated from it by up to three GAP characters."""
    i = start
    while True:
        head = text[:i]
        if any(head.endswith(w) for w in words if w):
            return True
        if i == 0 or text[i - 1] not in GAP or start - i >= 3:
            return False
        i -= 1


def _listed_after(text: str, begin: int, start: int, words: tuple[str, ...]) -> bool:
    """A cue before a list whose item the value is: the text between them ends in a list mark."""
    if start - begin < 2 or text[start - 1] not in LIST_MARKS:
        return False
    between = text[begin:start]
    for w in words:
        at = between.rfind(w)
        if w and at != -1 and len(between) - at - len(w) <= 16:
            return True
    return False


def _adjacent_after(text: str, end: int, words: tuple[str, ...]) -> bool:
    j = end
    while j < len(text) and text[j] in "“”\"'‘’「」『』" and j - end < 2:
        j += 1
    return any(text.startswith(w, end) or text.startswith(w, j) for w in words if w)


def _whole_item(text: str, names: list[str], begin: int, stop: int, start: int, end: int) -> bool:
    """Whether a mention is a whole item of what the text says: its clause, an item of a list, or what follows
    the entity's name (「味腴、气香、微红」, 「乳山草莓果个大，」), not part of a longer phrase (「肉质细」 in
    「肉质细脆」)."""
    before = text[begin:start]
    for name in names:
        if name and before.endswith(name):
            before = ""
    opened = not before or before[-1] in ITEM_MARKS or before in ("因", "以", "其")
    closed = end == stop or text[end] in ITEM_MARKS or text.startswith("等", end)
    return opened and closed


def qualified_noun(text: str, end: int, stop: int) -> tuple[int, int] | None:
    """(start, end) of the noun a value ending at ``end`` qualifies, its clause ending at ``stop``: the noun, not
    the whole list; short, naming the entity's kind, not an institution (中国 in 「中国科学院副院长」 qualifies the
    academy) nor a 的-phrase (「中国近代革命的先行者」); an adjective and its 的 may stand before it
    (「唐朝伟大的浪漫主义诗人」). None when the value qualifies no such noun."""
    rest = re.split(f"[{LIST_MARKS}，,]", text[end:stop])[0]
    adjective, _, noun = rest.partition("的") if rest.count("的") == 1 else ("", "", rest)
    if adjective and not _is_adjective(adjective):
        adjective, noun = "", rest
    if noun and len(noun) <= QUALIFIED_MAX_CHARS and "的" not in noun \
            and not any(w in noun for w in INSTITUTIONS) and any(noun.endswith(d) for d in DESCRIBED) \
            and not _has_verb(noun):
        start = end + len(rest) - len(noun)
        return start, start + len(noun)
    return None


def _name_spans(text: str, names: list[str], needle: str) -> list[tuple[int, int]]:
    """Where the text writes the entity's names longer than needle (a name equal to the value is the value)."""
    spans = []
    for name in names:
        if name and len(name) > len(needle) and needle in name:
            at = text.find(name)
            while at != -1:
                spans.append((at, at + len(name)))
                at = text.find(name, at + 1)
    return spans


@value_cache
def _clean_value(value: str) -> str:
    """A value cleaned as texts are (citation marks, footnote digits, markup, stray spaces): 1936年10月19日[2]
    is 1936年10月19日."""
    return clean(value)


@value_cache
def _is_adjective(text: str) -> bool:
    """Whether a short text is an adjective phrase: 伟大, 最杰出, 著名 (jieba's a, ad, d, b)."""
    words = tagger().lcut(text, HMM=False)
    return 0 < len(text) <= 6 and bool(words) and all(f.startswith(("a", "d", "b")) for _, f in words) \
        and words[-1].flag.startswith(("a", "b"))


@value_cache
def _has_verb(text: str) -> bool:
    return any(flag.startswith("v") for _, flag in tagger().lcut(text, HMM=False))


class Grounder:
    """Finds where a text states a triple; see the module docstring."""

    def __init__(self, cues: RelationCues | None = None):
        self.cues = cues or RelationCues()

    def support(self, aligned, clauses: Clauses, names: list[str], relation: str,
                value: str) -> tuple[int, int] | None:
        """(start, end) of the first mention of ``value`` that states ``relation`` in the normalised
        text of ``aligned`` (filters.text.AlignedText), or None."""
        needle = normalize(_clean_value(value))
        if not needle:
            return None
        cues = self.cues(relation)
        found = self._mention(aligned, clauses, names, needle, cues, relation)
        if found is None and len(needle) >= 3 and needle[-1] in ADMINISTRATIVE:
            found = self._mention(aligned, clauses, names, needle[:-1], cues, relation)  # 上海 for 上海市
            if found is None and "省" in needle[2:-2]:  # 山西南鹿 for 山西省南鹿市
                found = self._mention(aligned, clauses, names, needle[:-1].replace("省", "", 1), cues, relation)
        if found is None:
            found = self._in_pieces(aligned, clauses, names, needle, cues)
        if found is None:
            found = self._parenthesised(aligned, clauses, names, needle, cues, relation)
        return found

    def _mention(self, aligned, clauses: Clauses, names: list[str], needle: str, cues: Cues,
                 relation: str) -> tuple[int, int] | None:
        text = aligned.text
        # A value that ends with the relation's name names its relation (银杏科 for 科, 双子叶植物纲 for 纲):
        # said of the entity after a copula or before what it qualifies (「是银杏科、银杏属植物」).
        self_named = len(needle) > len(relation) and needle.endswith(normalize(relation))
        own = _name_spans(text, names, needle)
        start = text.find(needle)
        while start != -1:
            end = start + len(needle)
            # inside the entity's own name (仁远纺织 in 仁远纺织股份有限公司, 镇 in 德上镇) is no mention of a value
            if not aligned.inside_number(start, end, needle) and not any(a <= start and end <= b for a, b in own):
                standalone = aligned.standalone(start, end, needle)
                if self._states(text, clauses, names, start, end, cues, standalone):
                    return start, end
                if self_named and self._pattern(text, clauses, names, start, end, *clauses.clause(start, end),
                                                frozenset({"copula", "qualifier"})):
                    return start, end
            start = text.find(needle, start + 1)
        return None

    def _parenthesised(self, aligned, clauses: Clauses, names: list[str], needle: str, cues: Cues,
                       relation: str) -> tuple[int, int] | None:
        """A value written 'A（B）' (The Big O（大O）): A and B both in one sentence, one of them stated."""
        inner = needle.find("(")
        if inner <= 0 or not needle.endswith(")"):
            return None
        parts = [needle[:inner], needle[inner + 1:-1]]
        if not all(parts):  # 0() names no second form: nothing to find on either side
            return None
        text = aligned.text
        for part, other in (parts, parts[::-1]):
            found = self._mention(aligned, clauses, names, part, cues, relation)
            if found is None:
                continue
            sentence = clauses.sentence(found[0])
            at = text.find(other)
            while at != -1:
                if clauses.sentence(at) == sentence:
                    return min(found[0], at), max(found[1], at + len(other))
                at = text.find(other, at + 1)
        return None

    def _states(self, text: str, clauses: Clauses, names: list[str], start: int, end: int, cues: Cues,
                standalone: bool) -> bool:
        begin, stop = clauses.clause(start, end)
        if cues.before and (_adjacent_before(text, start, cues.before)
                            or _listed_after(text, begin, start, cues.before)):
            return True
        if cues.after and _adjacent_after(text, end, cues.after):
            return True
        if not standalone:
            # Inside a longer word only a cue right beside it, or the noun it qualifies (英国女王, 喜剧电影),
            # says it is the value.
            return "qualifier" in cues.patterns and self._pattern(text, clauses, names, start, end, begin, stop,
                                                                  frozenset({"qualifier"}))
        if stop - begin <= (end - start) + 2 and stop < len(text) and text[stop] in "，,":
            # a clause that is nothing but the value (「2012年12月7日，农业部批准…」) is said by the next one
            stop = clauses.clause(stop + 1)[1]
        outside = text[begin:start] + "\x00" + text[end:stop]
        if any(w in outside for w in cues.words):
            return True
        if "phrase" in cues.patterns and (end - start >= PHRASE_MIN_CHARS
                                          or end - start >= 2 and _whole_item(text, names, begin, stop, start, end)):
            return True
        return bool(cues.patterns) and self._pattern(text, clauses, names, start, end, begin, stop, cues.patterns)

    def _pattern(self, text: str, clauses: Clauses, names: list[str], start: int, end: int, begin: int,
                 stop: int, patterns: frozenset[str]) -> bool:
        if patterns & {"lifespan_birth", "lifespan_death", "paren_after_head"}:
            group = _paren_after_name(text, names, start, end)
            if group is not None:
                inner = text[group[0]:group[1]]
                dash = next((i for i, ch in enumerate(inner) if ch in "—－-–~～至到"), -1)
                relative = start - group[0]
                first = min((i for i, ch in enumerate(inner) if ch in "，,;；" or i == dash), default=len(inner))
                if "paren_after_head" in patterns and relative < first:  # 「X（Kobe Bryant，1978年—…）」
                    return True
                if dash != -1 and "lifespan_birth" in patterns and relative + (end - start) <= dash:
                    return True
                if dash != -1 and "lifespan_death" in patterns and relative > dash:
                    return True
        if "opening" in patterns and start == 0:
            return True
        copula = any(c in text[begin:start] for c in COPULAS)
        if copula and ("copula" in patterns or "descriptor" in patterns):
            return True
        opening = clauses.sentence(start) <= 1 or copula
        if "descriptor" in patterns and opening:
            before = text[begin:start]
            if before and before[-1] in LIST_MARKS:  # one of a list of descriptions: what precedes the list
                before = re.split(f"[{LIST_MARKS}]", before)[0]
            for name in names:
                if name and name in before:
                    before = before.replace(name, "")
            if not before.strip() or not _has_verb(before):
                return True
        if "qualifier" in patterns and opening and qualified_noun(text, end, stop) is not None:
            return True
        return False

    def _in_pieces(self, aligned, clauses: Clauses, names: list[str], needle: str,
                   cues: Cues) -> tuple[int, int] | None:
        """A long value whose words all occur in order within one sentence, close together: the value
        with words inserted (「14号球衣也被国王队退役」), a more precise date in a clause before it
        (「2015年3月22日，…正式宣布退役」), ordinals written in characters (第二顺位 for 第2位).

        Values of PIECES_NO_CUE_CHARS or more, and values of @phrase relations, need no cue (the words of a
        long phrase say what it is); shorter ones need their relation's cue in the clauses they span."""
        if len(needle) < PIECES_MIN_CHARS or not any(is_cjk(ch) for ch in needle):
            return None
        pieces = _pieces(needle)
        if len(pieces) < 2:
            return None
        text, where = aligned.ordinals
        first = text.find(pieces[0])
        while first != -1:
            position, ok = first + len(pieces[0]), True
            for piece in pieces[1:]:
                found = text.find(piece, position)
                if found == -1 or found - position > PIECE_GAP:
                    ok = False
                    break
                position = found + len(piece)
            start, end = where[first], where[position - 1] + 1
            if ok and clauses.sentence(start) == clauses.sentence(end - 1) and end - start <= 3 * len(needle) + 10:
                begin, stop = clauses.clause(start, end)
                outside = aligned.text[begin:start] + "\x00" + aligned.text[end:stop]
                if len(needle) >= PIECES_NO_CUE_CHARS or "phrase" in cues.patterns \
                        or any(w in outside for w in cues.words):
                    return start, end
            first = text.find(pieces[0], first + 1)
        return None


@value_cache
def _pieces(needle: str) -> tuple[str, ...]:
    """The words of a value, ordinals in digits."""
    return tuple(w for w in segmenter().cut(ordinals_as_digits(needle)[0], HMM=False) if w.strip())


def _paren_after_name(text: str, names: list[str], start: int, end: int) -> tuple[int, int] | None:
    """(start, end) of the inside of the parentheses holding text[start:end], when they open right
    after one of the entity's names."""
    open_ = max(text.rfind("(", 0, start), text.rfind("（", 0, start))
    if open_ == -1:
        return None
    close = min((i for i in (text.find(")", end), text.find("）", end)) if i != -1), default=-1)
    if close == -1 or any(ch in text[open_ + 1:start] for ch in "()（）"):
        return None
    before = text[:open_]
    if not any(name and before.endswith(name) for name in names):
        return None
    return open_ + 1, close
