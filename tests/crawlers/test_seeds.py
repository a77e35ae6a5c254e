from __future__ import annotations

import pytest

from crawlers.seeds import SeedError, bundled_seed_files, read_seeds, seed_url


def test_kgclue_tsv_gives_head_entities_once_in_file_order(tmp_path):
    path = tmp_path / "kg.tsv"
    path.write_text("李白\t出生日期\t701年\n杜甫\t字\t子美\n李白\t字\t太白\n", encoding="utf-8")
    assert read_seeds(path) == ["李白", "杜甫"]


def test_ownthink_csv_needs_its_header(tmp_path):
    good = tmp_path / "own.csv"
    good.write_text("实体,属性,值\n长江,全长,6397千米\n泰山,海拔,1545米\n", encoding="utf-8")
    assert read_seeds(good) == ["长江", "泰山"]
    bad = tmp_path / "bad.csv"
    bad.write_text("entity,rel,value\n长江,全长,6397千米\n", encoding="utf-8")
    with pytest.raises(SeedError, match=r"bad.csv:1: expected the OwnThink header"):
        read_seeds(bad)


def test_plain_list_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "titles.txt"
    path.write_text("# seeds\n\n唐朝\n 长江 \n", encoding="utf-8")
    assert read_seeds(path) == ["唐朝", "长江"]


@pytest.mark.parametrize("name, content, message", [
    ("short.tsv", "李白\t出生日期\n", r"short.tsv:1: expected 3 tab-separated columns"),
    ("empty.txt", "# nothing\n", r"holds no entry titles"),
    ("gbk.txt", "李白\n".encode("gbk"), r"is not UTF-8 text"),
])
def test_bad_seed_files_name_the_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(SeedError, match=message):
        read_seeds(path)


def test_missing_seed_file(tmp_path):
    with pytest.raises(SeedError, match="does not exist"):
        read_seeds(tmp_path / "nope.tsv")


def test_bundled_seed_lists_are_readable_in_both_formats():
    files = bundled_seed_files()
    assert {f.suffix for f in files} >= {".tsv", ".csv"}
    for path in files:
        assert len(read_seeds(path)) >= 5


def test_seed_urls_per_site():
    assert seed_url("http://h:1/", "baidu", "李白") == "http://h:1/item/%E6%9D%8E%E7%99%BD"
    assert seed_url("http://h:1", "sogou", "李白").startswith("http://h:1/search/fullsearch.htm?keyword=")
    assert seed_url("http://h:1", "wikipedia", "Python 3") == "http://h:1/wiki/Python_3"
    with pytest.raises(SeedError, match="unknown site"):
        seed_url("http://h:1", "bing", "x")
