"""The summary assembled with its planted noise (citation marks, stray spaces), and the labels that
say what the page planted (schema in ``_Page.labels``)."""

from __future__ import annotations

from crawlers.mirror.realistic.phrasing import _NAMES
from crawlers.mirror.realistic.rates import P_CITATION, P_STRAY_SPACE
from crawlers.mirror.realistic.records import _Extra, _Item, _Unit
from crawlers.mirror.realistic.text import _PageText
from crawlers.mirror.realistic.values import _markup


def _copy_labels(labels: dict) -> dict:
    """A copy of a labels dict deep enough to edit (lists of dicts and lists)."""
    out = {}
    for key, value in labels.items():
        if isinstance(value, list):
            out[key] = [dict(x) if isinstance(x, dict) else list(x) if isinstance(x, list) else x for x in value]
        else:
            out[key] = value
    return out


def _find(text: str, value: str) -> tuple[int, int] | None:
    """The first mention of value in text that is not part of a longer number or Latin word."""
    if not value:
        return None
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        inside_number = (value[0].isdigit() and (before.isdigit() or before == ".")) or \
            (value[-1].isdigit() and (after.isdigit() or (after == "." and text[end + 1:end + 2].isdigit())))
        inside_word = (value[0].isascii() and value[0].isalnum() and before.isascii() and before.isalnum()) or \
            (value[-1].isascii() and value[-1].isalnum() and after.isascii() and after.isalnum())
        if not inside_number and not inside_word:
            return start, end
        start = text.find(value, start + 1)
    return None


class _Page(_PageText):
    """A page whose summary is assembled and labelled: what RealisticCorpus writes."""

    __slots__ = ()

    # -- assembly -------------------------------------------------------------------------------------

    def assemble(self, units: list[_Unit]) -> tuple[str, str, list[str]]:
        """The summary string (with link markup and noise) and the clean text its spans refer to."""
        rng = self.rng
        raw: list[str] = []
        clean: list[str] = []
        noise: list[str] = []
        self.spans = [None] * len(self.marks)
        self.named_marks: dict[int, bool] = {}
        self.filler_spans: list[list[int]] = []
        linked: set[str] = set()
        pos = 0
        for unit in units:
            if unit.subject:
                raw.append(unit.subject)
                clean.append(unit.subject)
                pos += len(unit.subject)
            for k, clause in enumerate(unit.clauses):
                if k and not clause.glue:
                    raw.append("，")
                    clean.append("，")
                    pos += 1
                frame = "".join(p for p in clause.pieces if isinstance(p, str))
                clause_start = pos
                for piece in clause.pieces:
                    if isinstance(piece, str):
                        raw.append(piece)
                        clean.append(piece)
                        pos += len(piece)
                        continue
                    val, mark = piece
                    raw.append(_markup(val, linked))
                    clean.append(val[0])
                    pos += len(val[0])
                    if mark is None:
                        continue  # a filler's link: no fact of this entry
                    self.spans[mark] = (pos - len(val[0]), pos)
                    target = self.marks[mark]
                    if isinstance(target, (_Extra, _Item)):
                        # named: the clause words (not the values) name the relation or an alias of it
                        named = any(name in frame for name in _NAMES.get(target.rel, (target.rel,)))
                        if isinstance(target, _Extra):
                            target.named = named
                        else:
                            self.named_marks[mark] = named
                if clause.filler:
                    self.filler_spans.append({"span": [clause_start, pos], "names": list(clause.names)})
            end = "，" if unit.join_next else "。"
            raw.append(end)
            clean.append(end)
            pos += 1
            if end == "。" and rng.random() < P_CITATION:
                first = rng.randint(1, 12)
                cite = f"[{first}]" if rng.random() < 0.8 else f"[{first}-{first + rng.randint(1, 3)}]"
                raw.append(cite)
                noise.append(cite)
        if rng.random() < P_STRAY_SPACE:
            for _ in range(rng.randint(1, 2)):
                space = rng.choice((" ", "\u3000"))
                raw.insert(rng.randint(1, len(raw) - 1), space)
                noise.append(space)
        return "".join(raw), "".join(clean), noise

    # -- labels ---------------------------------------------------------------------------------------

    def labels(self, clean: str, noise: list[str]) -> dict:
        spans = self.spans
        ren = [spans[m] for m in self.ren if spans[m]]
        rows = []
        for row in self.rows:
            for item in row.items:
                span = spans[item.mark] if item.mark >= 0 else None
                # named: the clause of the mention names the relation (what the trailing-relation rule reads)
                label = {"relation": item.relation, "value": item.value, "supported": False, "how": "absent",
                         "form": None, "span": None, "named": bool(span) and self.named_marks.get(item.mark, False),
                         # a planted false value: the page states it, other sites give true_value
                         "false": item.true_value is not None, "true_value": item.true_value}
                if span and item.fate in ("head", "stated", "reserve"):
                    label.update(supported=True, how="pattern" if item.fate == "head" else item.how,
                                 form=item.form or "verbatim", span=list(span))
                elif span and item.fate in ("value_only", "contradicted", "partial"):
                    label.update(how=item.fate, span=list(span))
                else:
                    # 「浙江安平人」 states 籍贯 and 出生地 alike when the two rows hold the same value
                    co = next((s for s in ren if item.rel in ("籍贯", "出生地") and clean[s[0]:s[1]] == item.value), None)
                    found = co or _find(clean, item.value)
                    if co:
                        label.update(supported=True, how="pattern", form="verbatim", span=list(co))
                    elif found:
                        label.update(how="value_only", span=list(found))
                rows.append(label)
        supported_ends = [r["span"][1] for r in rows if r["supported"]]
        last = max(supported_ends) if supported_ends else None
        extras = sorted((e for e in self.extras if spans[e.mark]), key=lambda e: spans[e.mark])
        trailing: list[str] = []
        for extra in extras:
            if extra.named and (last is None or spans[extra.mark][0] >= last) and extra.rel not in trailing:
                trailing.append(extra.rel)
        enums = []
        for enum in self.enums:
            if all(spans[m] for m in enum.marks):
                enums.append({"relation": enum.rel, "items": list(enum.items),
                              "span": [spans[enum.marks[0]][0], spans[enum.marks[-1]][1]],
                              "in_infobox": list(enum.in_infobox)})
        return {
            "profile": "realistic", "seed": self.corpus.seed, "index": self.c.index, "tier": self.c.tier,
            "clean_summary": clean, "noise": noise, "rows": rows,
            "extra_facts": [{"relation": e.rel, "value": e.value, "span": list(spans[e.mark]), "named": e.named}
                            for e in extras],
            "enumerations": enums, "last_supported_end": last, "trailing_named_relations": trailing,
            # sentences that state no fact of the entry (「与某某、某某交往甚密」), their lists no row gives, and
            # the relations a few of them speak of by name (「性质较为稳定」)
            "fillers": self.filler_spans,
            "facts": [[f.rel, v[0]] for f in self.facts for v in f.vals],
            "senses": self.corpus._senses(self.c.index), "near_duplicate_of": None,
        }
