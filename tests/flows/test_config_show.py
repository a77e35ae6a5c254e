"""Effective settings with their sources, and credentials masked wherever settings are shown."""

from __future__ import annotations

import json
import os

import pytest

from flows.cli import main
from flows.masking import MASK, is_masked, mask_settings, mask_value, restore_masked
from flows.settings import Settings, SettingsError

SECRET = "s3cr3t-9f8e7d"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """The machine's own ZHBENCH_ variables would change the sources under test."""
    for name in list(os.environ):
        if name.upper().startswith("ZHBENCH_"):
            monkeypatch.delenv(name)


@pytest.mark.parametrize("text, expected", [
    ("https://alice:hunter2@baike.example/item/", "https://***@baike.example/item/"),
    ("https://alice@baike.example/", "https://***@baike.example/"),
    ("https://u:p@ss@llm.example/v1", "https://***@llm.example/v1"),
    ("redis://:pw@127.0.0.1:6379/0", "redis://***@127.0.0.1:6379/0"),
    ("https://api.example/search?q={query}&key=SECRET", "https://api.example/search?q={query}&key=***"),
    ("https://api.example/search?key=SECRET&q={query}", "https://api.example/search?key=***&q={query}"),
    ("https://serp.example/s?q={query}&format=json&api_key=abc123",
     "https://serp.example/s?q={query}&format=json&api_key=***"),
    ("https://bing.example/v7?q={query}&Subscription-Key=abc&mkt=zh-CN",
     "https://bing.example/v7?q={query}&Subscription-Key=***&mkt=zh-CN"),
    ("https://s.example/?q={query}&ACCESS_TOKEN=t0k&apiKey=k2&sig=x",
     "https://s.example/?q={query}&ACCESS_TOKEN=***&apiKey=***&sig=***"),
    ("https://cdn.example/f?X-Amz-Signature=abc&Expires=3", "https://cdn.example/f?X-Amz-Signature=***&Expires=3"),
    ("https://s.example/?q={query}&key={key}", "https://s.example/?q={query}&key={key}"),
    ("https://u:p@s.example/?q=%E6%9D%8E&key=k", "https://***@s.example/?q=%E6%9D%8E&key=***"),
    ("https://searx.example/search?q={query}&format=json", "https://searx.example/search?q={query}&format=json"),
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ("sk-proj-Abc123def456GHI789jkl0", "sk-***"),
    ("key sk-Abc123def456GHI789jkl0 in a sentence", "key sk-*** in a sentence"),
    ("Bearer eyJhbGciOiJIUzI1NiJ9.payload", "Bearer ***"),
    ("zhbench/0.1 (+https://example.org/bot; contact: you@example.org)",
     "zhbench/0.1 (+https://example.org/bot; contact: you@example.org)"),
    ("task-abcdefghijklmnopqrstuvwxyz", "task-abcdefghijklmnopqrstuvwxyz"),
    ("OPENAI_API_KEY", "OPENAI_API_KEY"),
])
def test_mask_value_hides_credentials_and_keeps_the_rest_byte_for_byte(text, expected):
    assert mask_value(text) == expected
    assert mask_value(expected) == expected
    assert is_masked(mask_value(text)) == (text != expected)


def real_settings() -> dict:
    return Settings(
        crawl={"base_url": "https://alice:hunter2@baike.example/"},
        verify={"search_backend": f"https://api.example/search?q={{query}}&key={SECRET}",
                "panel": [{"base_url": f"https://llm.example/v1?api_key={SECRET}", "model": "qwen"}]},
        llm={"base_url": "http://127.0.0.1:8000/v1", "model": "qwen"},
    ).model_dump(mode="json")


def test_mask_settings_masks_every_string_and_secret_named_values_but_not_api_key_env():
    real = {**real_settings(), "extra": {"api_key": "plain", "token": 7, "password": None}}
    masked = mask_settings(real)
    assert SECRET not in json.dumps(masked) and "hunter2" not in json.dumps(masked)
    assert masked["crawl"]["base_url"] == "https://***@baike.example/"
    assert masked["verify"]["search_backend"] == "https://api.example/search?q={query}&key=***"
    assert masked["verify"]["panel"][0]["base_url"] == "https://llm.example/v1?api_key=***"
    assert masked["verify"]["panel"][0]["api_key_env"] == "OPENAI_API_KEY"
    assert masked["llm"]["api_key_env"] == "OPENAI_API_KEY" and masked["llm"]["base_url"] == real["llm"]["base_url"]
    assert masked["verify"]["results_key"] == "results"
    assert masked["extra"] == {"api_key": MASK, "token": MASK, "password": None}
    assert real["crawl"]["base_url"] == "https://alice:hunter2@baike.example/"  # a copy: the dump is untouched


def test_restore_masked_puts_the_real_values_back():
    real = {**real_settings(), "extra": {"api_key": "plain"}}
    assert restore_masked(mask_settings(real), real) == real


def test_restore_masked_refuses_a_masked_value_this_process_cannot_supply():
    masked = mask_settings(real_settings())
    elsewhere = real_settings()
    elsewhere["verify"]["search_backend"] = "https://api.example/search?q={query}"
    with pytest.raises(SettingsError) as error:
        restore_masked(masked, elsewhere)
    message = str(error.value)
    assert message.startswith("setting verify.search_backend is masked")
    assert "machine that runs the flow" in message and "ZHBENCH_VERIFY__SEARCH_BACKEND" in message


def test_restore_masked_names_a_list_item_and_its_json_variable():
    masked = mask_settings(real_settings())
    elsewhere = real_settings()
    elsewhere["verify"]["panel"] = []
    with pytest.raises(SettingsError, match=r"setting verify\.panel\[0\]\.base_url .* ZHBENCH_VERIFY__PANEL \(as JSON\)"):
        restore_masked(masked, elsewhere)


def test_sources_name_flag_file_environment_and_default(tmp_path, monkeypatch):
    config = tmp_path / "zhbench.toml"
    config.write_text('[crawl]\nmax_pages = 5\nmax_depth = 2\n[verify]\npanel = [{base_url = "http://h/v1", '
                      'model = "m"}]\n', encoding="utf-8")
    monkeypatch.setenv("ZHBENCH_CRAWL__MAX_DEPTH", "9")  # the file is stronger
    monkeypatch.setenv("ZHBENCH_CRAWL__CONCURRENCY", "3")
    monkeypatch.setenv("ZHBENCH_LLM", '{"model": "qwen", "timeout_s": 5}')
    monkeypatch.setenv("ZHBENCH_LLM__TIMEOUT_S", "7")  # laid over the section's JSON, as pydantic-settings does
    monkeypatch.setenv("zhbench_data_dir", str(tmp_path / "data"))  # names are case-insensitive
    settings, sources = Settings.load_with_sources(config, {"crawl.max_pages": 50, "release.version": None})
    assert (settings.crawl.max_pages, settings.crawl.max_depth, settings.crawl.concurrency) == (50, 2, 3)
    assert (settings.llm.model, settings.llm.timeout_s) == ("qwen", 7.0)
    assert sources["crawl.max_pages"] == "flag"
    assert sources["crawl.max_depth"] == f"file {config}"
    assert sources["verify.panel"] == f"file {config}"
    assert sources["crawl.concurrency"] == "environment ZHBENCH_CRAWL__CONCURRENCY"
    assert sources["llm.model"] == "environment ZHBENCH_LLM"
    assert sources["llm.timeout_s"] == "environment ZHBENCH_LLM__TIMEOUT_S"
    assert sources["data_dir"] == "environment zhbench_data_dir"
    assert sources["release.version"] == "default" and sources["crawl.site"] == "default"
    assert set(sources) >= {"data_dir", "crawl.seeds", "verify.drop_unverified", "llm.api_key_env"}
    assert not any(name.startswith("verify.panel.") for name in sources)


def test_load_keeps_its_errors(tmp_path):
    with pytest.raises(SettingsError, match="config file .* does not exist"):
        Settings.load(tmp_path / "missing.toml")
    with pytest.raises(SettingsError, match=r"setting crawl\.max_pages: .*\(got -1\)"):
        Settings.load(None, {"crawl.max_pages": -1})


def test_config_show_prints_sources_and_never_the_secret(tmp_path, monkeypatch, capsys):
    config = tmp_path / "zhbench.toml"
    config.write_text(f'[llm]\nbase_url = "https://bob:{SECRET}@llm.example/v1"\nmodel = "qwen"\n', encoding="utf-8")
    monkeypatch.setenv("ZHBENCH_VERIFY__SEARCH_BACKEND", f"https://api.example/search?q={{query}}&key={SECRET}")
    assert main(["config", "show", "--config", str(config), "--max-pages", "200"]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out
    lines = {line.split(" = ")[0].strip(): line for line in out.splitlines() if line}
    assert lines["crawl.max_pages"].endswith("= 200   (flag)")
    assert lines["llm.base_url"].endswith('= "https://***@llm.example/v1"   (file ' + str(config) + ")")
    assert lines["verify.search_backend"].endswith(
        '= "https://api.example/search?q={query}&key=***"   (environment ZHBENCH_VERIFY__SEARCH_BACKEND)')
    assert lines["llm.budget_usd"].endswith("= unset   (default)")


def test_config_show_json_is_parseable_and_masked(monkeypatch, capsys):
    monkeypatch.setenv("ZHBENCH_CRAWL__BASE_URL", f"https://bob:{SECRET}@baike.example/")
    assert main(["config", "show", "--json", "--readmit"]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out
    shown = json.loads(out)
    assert shown["settings"]["crawl"]["base_url"] == "https://***@baike.example/"
    assert shown["sources"]["crawl.base_url"] == "environment ZHBENCH_CRAWL__BASE_URL"
    assert shown["settings"]["dedup"]["against_releases"] is False
    assert shown["sources"]["dedup.against_releases"] == "flag"


@pytest.mark.parametrize("toml, expected", [
    ("[crawl\nmax_pages = 5\n", "is not valid TOML"),
    ("[crawl]\nmax_pages = -5\n", "setting crawl.max_pages: Input should be greater than or equal to 0"),
])
def test_config_show_bad_config_is_one_line(tmp_path, capsys, toml, expected):
    config = tmp_path / "zhbench.toml"
    config.write_text(toml, encoding="utf-8")
    assert main(["config", "show", "--config", str(config)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zhbench: error: ") and expected in lines[0]


def test_config_show_missing_file_is_one_line(tmp_path, capsys):
    assert main(["config", "show", "--config", str(tmp_path / "nope.toml")]) == 1
    assert capsys.readouterr().err == f"zhbench: error: config file {tmp_path / 'nope.toml'} does not exist\n"


def test_a_bad_value_is_shown_masked_in_the_error():
    with pytest.raises(SettingsError) as raised:
        Settings.load(overrides={"llm.timeout_s": "https://user:pw@llm.example/v1?key=s3cret"})
    message = str(raised.value)
    assert message.startswith("setting llm.timeout_s:") and "s3cret" not in message and "pw@" not in message
    assert "(got 'https://***@llm.example/v1?key=***')" in message
