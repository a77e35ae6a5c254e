from __future__ import annotations

import pytest

from schemas.records import ITEM_KINDS
from warehouse.hierarchy import HierarchyError, load_hierarchy


def test_every_item_kind_is_labelled_at_every_level():
    table = load_hierarchy("cdtp")
    for kind in ITEM_KINDS:
        labels = table[kind]
        assert labels.role == "evaluation" and labels.capability and labels.task
        assert labels.dataset == f"cdtp-{kind}" and labels.metrics
    assert table["cdtp_pairs"].role == "source" and not table["cdtp_pairs"].capability


def test_an_incomplete_hierarchy_file_says_what_is_missing(tmp_path):
    path = tmp_path / "h.toml"
    path.write_text('[kgc]\ncapability = "x"\n', encoding="utf-8")
    with pytest.raises(HierarchyError, match=r"\[kgc\] needs task, dataset"):
        load_hierarchy("cdtp", path)
    path.write_text("[kgc\n", encoding="utf-8")
    with pytest.raises(HierarchyError, match="cannot read the hierarchy file"):
        load_hierarchy("cdtp", path)
