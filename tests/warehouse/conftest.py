"""A small release with pairs and every item config, published through the real flow functions."""

from __future__ import annotations

import json

import pytest

from warehouse.publish import publish_stage
from flows.items import item_tables
from flows.settings import ItemsSettings, ReleaseSettings
from schemas import Item, Pair, Triple
from warehouse.hierarchy import load_hierarchy
from schemas.storage.shards import ShardWriter
from warehouse.gate import GateRules

DOMAINS = ("history_politics", "nature_environment")


def pairs(count: int = 12) -> list[Pair]:
    found = []
    for i in range(count):
        text = f"实体{i}海拔{1000 + i}米。"
        end = len(text) - 1  # the mention ends before the full stop
        found.append(Pair(pair_id=f"p{i:03d}", entity=f"实体{i}", text=text, url=f"http://x/item/{i}",
                          triples=[Triple(f"实体{i}", "海拔", f"{1000 + i}米", decision="kept", span_end=end)],
                          decision="kept", page_hash=f"h{i}", domain=DOMAINS[i % 2],
                          position_index=round(end / len(text), 6), topic="natural_science", subtopic="geography"))
    return found


def split_of(i: int) -> str:
    """The item stage splits by entity: every item of 实体i is in one split."""
    return "eval" if i % 5 == 0 else "train"


def mcq(i: int, kind: str, **changes) -> Item:
    # the gold (实体i's own 海拔) at index i % 10, the other options heights no page gives 实体i
    others = [f"{2000 + 10 * i + k}米" for k in range(9)]
    options = others[:i % 10] + [f"{1000 + i}米"] + others[i % 10:]
    fields = dict(item_id=f"{kind}{i:03d}", kind=kind, question=f"{kind}：实体{i}的海拔是多少？",
                  answer=options[i % 10], options=options, answer_index=i % 10, source_pair_ids=[f"p{i:03d}"],
                  domain=DOMAINS[i % 2], primary_category="natural_science", secondary_category="geography",
                  head=f"实体{i}", relation="海拔", split=split_of(i))
    fields.update(changes)
    return Item(**fields)


def evidence(i: int) -> list[dict]:
    """Two other sites' passages that state simpleqa{i}'s answer (its own page does not)."""
    return [{"url": f"https://openwiki.example/wiki/{i}", "passage": f"实体{i}于{1950 + i}年首次被登顶。"},
            {"url": f"https://news.example/{i}.html", "passage": f"据介绍，实体{i}在{1950 + i}年首次被人登顶。"}]


def items(count: int = 12) -> list[Item]:
    found = []
    for i in range(count):
        found += [mcq(i, "kgc", question=f"（实体{i}，海拔，？）"), mcq(i, "qa")]
        common = dict(source_pair_ids=[f"p{i:03d}"], domain=DOMAINS[i % 2], primary_category="natural_science",
                      secondary_category="geography", head=f"实体{i}", relation="海拔", split=split_of(i))
        found += [Item(item_id=f"t2t{i:03d}", kind="t2t", question=f"实体{i}｜海拔｜{1000 + i}米",
                       answer=f"实体{i}海拔{1000 + i}米。", **common),
                  Item(item_id=f"cloze{i:03d}", kind="cloze", question=f"实体{i}是一座山，海拔＿＿＿。",
                       answer=f"{1000 + i}米", **common),
                  # another fact of 实体i than the qa item's: one fact is asked by one question config
                  Item(item_id=f"simpleqa{i:03d}", kind="simpleqa", question=f"实体{i}首次被登顶是在哪一年？",
                       answer=f"{1950 + i}年", urls=[f"http://x/item/{i}", *(e["url"] for e in evidence(i))],
                       answer_kind="year", provenance=json.dumps({"evidence": evidence(i)}, ensure_ascii=False),
                       **{**common, "relation": "首次登顶时间"})]
    return found


def write(directory, records, record_type):
    with ShardWriter(directory, record_type.__name__.lower(), record_type) as writer:
        writer.write_all(records)
    return writer.paths


def rules(hierarchy) -> GateRules:
    return GateRules(position_threshold=0.75, max_answer_chars=20, domains=DOMAINS, topics=("natural_science",),
                     subtopics=("geography",), hierarchy={c: v.as_dict() for c, v in hierarchy.items()})


def publish_release(tmp_path, data_dir, pair_records=None, item_records=None, gate=True, version=None, **publish):
    """Publish a release of pairs and items; returns its directory. ``publish``: more of publish_stage's
    arguments (run_id, review)."""
    hierarchy = load_hierarchy("cdtp")
    settings = ItemsSettings()
    pair_shards = write(tmp_path / f"pairs-{len(list(tmp_path.iterdir()))}", pair_records or pairs(), Pair)
    item_shards = write(tmp_path / f"items-{len(list(tmp_path.iterdir()))}", item_records or items(), Item)
    return publish_stage(pair_shards, ReleaseSettings(version=version), data_dir, {"k": 1}, {"pairs_kept": 12},
                         "snap", None, item_tables(item_shards, settings, hierarchy), hierarchy,
                         rules(hierarchy) if gate else None, tmp_path / "validation", **publish)


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("release")
    return publish_release(tmp, tmp / "data")
