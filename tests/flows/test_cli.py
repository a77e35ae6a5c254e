from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flows.cli import build_parser, main
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]


def zhbench(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=environment, timeout=600)


def all_commands(parser, prefix=()):
    yield prefix
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for name, sub in action.choices.items():
                yield from all_commands(sub, prefix + (name,))


def test_every_command_explains_itself_with_an_example(capsys):
    commands = list(all_commands(build_parser()))
    assert ("run",) in commands and ("parse",) in commands and ("mirror", "serve") in commands
    for command in commands:
        with pytest.raises(SystemExit) as exit_info:
            main([*command, "--help"])
        assert exit_info.value.code == 0
        out = capsys.readouterr().out
        assert "example" in out and "zhbench" in out, command


def test_unknown_option_is_one_line_without_traceback():
    result = zhbench("run", "--no-such-option")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zhbench: error: unrecognized arguments: --no-such-option")
    assert "Traceback" not in result.stderr


def test_bad_seed_file_is_one_line_and_nothing_runs(tmp_path):
    bad = tmp_path / "seeds.tsv"
    bad.write_text("李白 出生日期 701年\n", encoding="utf-8")
    result = zhbench("run", "--seeds", str(bad), "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 1
    assert result.stderr.strip() == (f"zhbench: error: {bad}:1: expected 3 tab-separated columns "
                                     "(entity, relation, value), found 1")
    assert not (tmp_path / "data").exists()


def test_unreachable_site_is_one_line(tmp_path):
    result = zhbench("run", "--base-url", "http://127.0.0.1:9", "--data-dir", str(tmp_path / "data"))
    assert result.returncode == 1
    assert result.stderr.strip().startswith("zhbench: error: site http://127.0.0.1:9 is unreachable")
    assert "Traceback" not in result.stderr


def test_bad_setting_in_config_file_is_one_line(tmp_path):
    config = tmp_path / "zhbench.toml"
    config.write_text("[crawl]\nmax_pages = -3\n", encoding="utf-8")
    result = zhbench("run", "--config", str(config))
    assert result.returncode == 1
    assert result.stderr.strip().startswith("zhbench: error: setting crawl.max_pages:")


def test_parse_prints_the_contract_fields():
    page = FIXTURES / "pages" / "baidu_current_zhangheng.html"
    result = zhbench("parse", str(page), "--url", "https://baike.baidu.com/item/张衡/7331")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert list(record) == ["status", "source", "url", "title", "subtitle", "summary", "paragraphs",
                            "infobox", "links", "senses"]
    assert record["status"] == "ok" and record["source"] == "baidu"
    assert record["infobox"][0] == ["中文名", "张衡"]
    assert record["links"][0] == {"title": "南阳", "url": "https://baike.baidu.com/item/%E5%8D%97%E9%98%B3/123"}


def test_parse_missing_file_is_one_line(tmp_path):
    result = zhbench("parse", str(tmp_path / "none.html"), "--url", "http://x/")
    assert result.returncode == 2
    assert result.stderr.strip() == f"zhbench: error: {tmp_path / 'none.html'} is not a file (give a saved HTML page)"


def test_align_reads_pairs_from_stdin_and_reports_bad_lines(tmp_path):
    lines = [
        json.dumps({"id": "a", "entity": "泰山", "text": "泰山主峰玉皇顶海拔1545米。",
                    "triples": [["泰山", "海拔", "545米"], ["泰山", "海拔", "1545米"]]}, ensure_ascii=False),
        "{not json",
        json.dumps({"id": "b", "entity": "黑莓 9220",
                    "text": "黑莓 9220是2012年上市的一款支持Blackberry OS 7操作系统的2.4英寸的3G手机。",
                    "triples": [["黑莓 9220", "操作系统", "Blackberry OS 7"], ["黑莓 9220", "上市日期", "2012年"]]},
                   ensure_ascii=False),
    ]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "flows.cli", "align"], input="\n".join(lines) + "\n",
                            capture_output=True, text=True, env=environment, timeout=120)
    assert result.returncode == 1  # one line failed
    assert result.stderr.strip().startswith("zhbench align: line 2: skipped")
    first, second = [json.loads(line) for line in result.stdout.splitlines()]
    assert first["id"] == "a" and first["decision"] == "keep"
    assert [t["kept"] for t in first["triples"]] == [False, True]
    assert first["triples"][0]["reason"] == "grounding:value_not_in_text"
    assert second["decision"] == "drop" and second["reason"] == "position_index:below_threshold"
    assert second["position_index"] < 0.75


@pytest.mark.parametrize("toml, expected", [
    ('[items]\ncontamination_files = ["missing.jsonl"]\n', "items.contamination_files: missing.jsonl does not exist"),
    ('[items]\nembedder = "sentence-transformers:./no-such-model"\n', "items.embedder: model directory"),
    ('[align]\nembedder = "word2vec"\n', "unknown embedder 'word2vec'"),
    ('[items]\ntemplates = "templates.tsv"\n', "templates.tsv"),
    ('[verify]\nsearch_backend = "https://searx.example/search"\n', "no {query} placeholder"),
    ('[llm]\nbase_url = "http://127.0.0.1:9/v1"\n', "setting llm.model"),
])
def test_bad_item_and_domain_settings_are_one_line(tmp_path, toml, expected):
    (tmp_path / "templates.tsv").write_text("出生日期\t没有占位符\n", encoding="utf-8")
    config = tmp_path / "zhbench.toml"
    config.write_text(toml, encoding="utf-8")
    result = zhbench("run", "--config", str(config), "--data-dir", str(tmp_path / "data"), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("zhbench: error:") and expected in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "data" / "runs").exists()
