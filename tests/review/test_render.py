"""Marking matched spans in a source text: marks where the needles are, escapes everything else."""

from review.render import highlight, needles_of, spans


def test_marks_head_and_tail_in_the_text():
    html = highlight("屠呦呦，中国药学家。", {"屠呦呦": "head", "中国": "tail"})
    assert html == '<mark class="head">屠呦呦</mark>，<mark class="tail">中国</mark>药学家。'


def test_longer_needle_wins_where_two_overlap():
    assert spans("中华人民共和国成立", {"中国": "tail", "中华人民共和国": "answer"}) == [(0, 7, "answer")]
    assert spans("中国与中华人民共和国", {"中国": "tail", "中华人民共和国": "answer"}) == [(0, 2, "tail"), (3, 10, "answer")]


def test_script_in_the_text_or_needle_stays_text():
    html = highlight("卫青<script>alert(1)</script>是军事家", {"军事家": "tail", "<script>": "head"})
    assert "<script>" not in html
    assert html.count("&lt;script&gt;") == 1 and '<mark class="head">&lt;script&gt;</mark>' in html


def test_needles_are_the_head_kept_tails_and_answer_but_not_a_whole_t2t_text():
    pair = {"entity": "卫青", "text": "卫青是军事家。", "triples": [
        {"tail": "军事家", "decision": "kept"}, {"tail": "长平侯", "decision": "dropped"}]}
    assert needles_of({"head": "卫青", "answer": "卫青是军事家。"}, pair) == {"军事家": "tail", "卫青": "head"}
    assert needles_of({"head": "卫青", "answer": "大将军"}, pair)["大将军"] == "answer"


def test_the_crawled_text_shows_what_the_cut_took_and_why():
    from review.render import with_cuts

    source = "屠呦呦，1930年12月30日出生于浙江宁波，<b>药学家</b>。"
    shown = str(with_cuts(source, [{"start": 4, "end": 15, "reason": "uncovered date: 1930年12月30日"}]))
    assert shown == ('屠呦呦，<del class="cut" title="uncovered date: 1930年12月30日">1930年12月30日</del>出生于浙江宁波，'
                     '&lt;b&gt;药学家&lt;/b&gt;。')
    assert str(with_cuts(source, [])) == str(with_cuts(source, None)) == source.replace("<", "&lt;").replace(">", "&gt;")
