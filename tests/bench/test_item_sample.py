"""The labelled sample's figures (bench.item_sample.score): what counts as a second answer, a wrong kind, a gap."""

from __future__ import annotations

from bench.item_sample import score


def test_a_sample_is_scored_per_source_and_kind():
    sample = [
        {"source": "demo", "item_id": "k1", "kind": "kgc", "answer": "诗人", "options": ["诗人", "作家", "画家"]},
        {"source": "demo", "item_id": "k2", "kind": "kgc", "answer": "30", "options": ["30", "29", "65.38"]},
        {"source": "real", "item_id": "c1", "kind": "cloze", "answer": "北京", "options": []},
        {"source": "real", "item_id": "s1", "kind": "simpleqa", "answer": "1895年7月19日", "options": []},
        {"source": "real", "item_id": "s2", "kind": "simpleqa", "answer": "唐朝", "options": []},
    ]
    labels = [
        {"item_id": "k1", "right_options": ["诗人", "作家"], "wrong_kind": [], "sound": False},
        {"item_id": "k2", "right_options": ["30"], "wrong_kind": ["65.38"], "sound": False},
        {"item_id": "c1", "other_fillers": ["中国"], "sound": False},
        {"item_id": "s1", "other_answers": [], "other_forms": ["1895年"], "sound": True},
    ]
    result = score(sample, labels)
    demo = result["by_source_kind"]["demo/kgc"]
    assert demo["items"] == 2 and demo["several_right"] == 1 and demo["wrong_kind"] == 1 and demo["sound"] == 0
    assert result["by_source_kind"]["real/cloze"]["other_filler"] == 1
    real = result["by_source_kind"]["real/simpleqa"]
    assert real["several_right"] == 0 and real["other_forms"] == 1 and real["sound"] == 1  # a gap, no second answer
    assert result["missing"] == ["s2"]
