"""Members of one co-ordination: what a list says together (filters.enumerations.coordinated)."""

from __future__ import annotations

import pytest

from filters.enumerations import coordinated

ZHANG_HENG = "张衡（78年－139年），字平子，南阳西鄂人，东汉杰出的天文学家、数学家、发明家和文学家。他创制了候风地动仪。"


@pytest.mark.parametrize("first, second", [("天文学家", "文学家"), ("数学家", "文学家"), ("天文学家", "发明家")])
def test_members_of_one_list_are_coordinated(first, second):
    assert coordinated(ZHANG_HENG, (first,), (second,))
    assert coordinated(ZHANG_HENG, (second,), (first,))


@pytest.mark.parametrize("text, first, second", [
    (ZHANG_HENG, "天文学家", "南阳西鄂"),  # another clause
    (ZHANG_HENG, "文学家", "候风地动仪"),  # another sentence
    ("他是诗人，也是画家", "诗人", "画家"),  # two clauses: each says its own, no list
    ("德国古典主义文学最伟大的代表，作家", "代表", "作家"),
])
def test_values_of_different_clauses_are_not(text, first, second):
    assert not coordinated(text, (first,), (second,))


def test_a_list_with_its_last_item_after_he_and_names_in_a_row():
    assert coordinated("他是诗人和画家", ("诗人",), ("画家",))
    assert coordinated("主要人物有孙安涛、蔡淑嘉、孙淑、胡泰志等", ("孙安涛",), ("孙淑",))
    # a long stretch between two members is two parts of the sentence, not one list
    assert not coordinated("诗人、一位在战乱中颠沛流离一生的画家", ("诗人",), ("画家",))
