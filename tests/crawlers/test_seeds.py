from __future__ import annotations

import pytest

import json

from crawlers.seeds import MAX_TITLE_CHARS, SeedError, bundled_seed_files, dropped, read_seeds, seed_url, too_long


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


def test_a_json_seed_file_is_a_list_of_titles_or_objects_with_a_title_or_a_url(tmp_path):
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps(["李白", {"title": "杜甫", "note": "x"}, {"url": "https://baike.baidu.com/item/长江"},
                                " ", "李白"], ensure_ascii=False), encoding="utf-8")
    assert read_seeds(path) == ["李白", "杜甫", "https://baike.baidu.com/item/长江"]
    lines = tmp_path / "seeds.jsonl"
    lines.write_text('{"title": "李白"}\n\n{"url": "http://h:1/item/x"}\n', encoding="utf-8")
    assert read_seeds(lines) == ["李白", "http://h:1/item/x"]


@pytest.mark.parametrize("name, content, message", [
    ("a.json", '{"title": "李白"}', 'a.json: expected a JSON list of seeds'),
    ("a.json", '["李白",\n oops]', "a.json:2: not JSON (Expecting value, column 2); a .json seed file is a list"),
    ("a.json", "[" * 100_000, "a.json:1: nested too deep or a number too long to be seeds"),
    ("a.json", '[{"title": 3}]', 'a.json: seed 1: "title" must be a string, found a number'),
    ("a.json", '[{"url": "ftp://x/y"}]', "a.json: seed 1: \"url\" must be an http:// or https:// URL, found 'ftp://x/y'"),
    ("a.json", '["李白", {}]', 'a.json: seed 2: an object with neither "title" nor "url"'),
    ("a.json", "[7]", "a.json: seed 1: expected a title, or an object with a \"title\" or a \"url\", found a number"),
    ("a.jsonl", '{"title": "李白"}\n"杜甫"\n', 'a.jsonl:2: expected an object with a "title" or a "url", found a string'),
    ("a.jsonl", '{"title": "李白"}\n{oops\n', "a.jsonl:2: not JSON"),
    ("a.json", "[]", "holds no entry titles"),
])
def test_a_json_seed_file_that_is_no_seed_list_is_refused_in_one_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SeedError) as error:
        read_seeds(path)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_directory_is_no_seed_file(tmp_path):
    with pytest.raises(SeedError, match=f"seed file {tmp_path} is a directory; give a .tsv"):
        read_seeds(tmp_path)


def test_a_url_seed_is_fetched_as_it_is():
    assert seed_url("http://h:1", "baidu", "https://baike.baidu.com/item/李白") == "https://baike.baidu.com/item/李白"
    assert seed_url("http://h:1", "baidu", "http:") == "http://h:1/item/http%3A"


def test_a_seed_too_long_to_be_a_title_or_a_url_says_why():
    assert too_long("http://h:1", "baidu", "a" * MAX_TITLE_CHARS) == too_long("http://h:1", "baidu", "关" * 200) == ""
    assert too_long("http://h:1", "baidu", "关" * 256) == \
        "seed_too_long: a title of 256 characters (titles have at most 255)"
    # 231 characters fit as a title, not as a URL: 9 characters each once percent-encoded
    assert too_long("http://h:1", "baidu", "关" * 231).startswith("seed_too_long: its URL has 2,095 characters")
    assert too_long("http://h:1", "baidu", "http://h:1/" + "a" * 3000).startswith("seed_too_long: its URL has 3,011")
    record = dropped("关" * 10_000_000, "seed_too_long: x")
    assert record == {"seed": "关" * 100 + "…", "seed_chars": 10_000_000, "reason": "seed_too_long: x"}
