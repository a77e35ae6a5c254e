"""The flow's parameters (plain, masked settings) and the keys its stage tasks are cached by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows import caching
from flows.settings import AlignSettings, Settings, SettingsError
from tests.flows.test_cli import ROOT


def test_the_flow_loads_from_its_entrypoint_and_validates_a_settings_dump():
    """What a deployment's run does first: load the flow by file path and check the parameters (this failed
    with PydanticUserError when the parameter was a pydantic model under postponed annotations)."""
    from prefect.flows import load_flow_from_entrypoint

    loaded = load_flow_from_entrypoint(f"{ROOT / 'flows' / 'cdtp.py'}:cdtp_flow")
    params = {"settings": Settings().model_dump(mode="json")}
    assert loaded.validate_parameters(params) == params
    schema = loaded.parameters.model_dump()
    assert schema["properties"]["settings"]["type"] == "object"


def test_parameters_are_laid_over_the_config_file_and_masked_values_restored(tmp_path, monkeypatch):
    from flows.stages import resolve_settings
    from flows.masking import mask_settings

    config = tmp_path / "zhbench.toml"
    config.write_text('[crawl]\nmax_pages = 40\nmirror_port = 8863\n'
                      '[verify]\nsearch_backend = "https://search.example/s?q={query}&key=s3cret"\n', encoding="utf-8")
    monkeypatch.setenv("ZHBENCH_CONFIG", str(config))
    # A deployment that carries two settings (prefect.yaml): the file gives the others.
    settings = resolve_settings({"data_dir": "data", "crawl": {"max_depth": 3}})
    assert (settings.crawl.max_pages, settings.crawl.mirror_port, settings.crawl.max_depth) == (40, 8863, 3)
    assert settings.data_dir == (Path.cwd() / "data").absolute()
    # A full, masked dump (zhbench deploy): the key comes back from the file, never from the parameters.
    full = mask_settings(Settings.load(config).model_dump(mode="json"))
    assert "s3cret" not in json.dumps(full)
    assert resolve_settings(full).verify.search_backend.endswith("key=s3cret")
    # A masked value this process cannot restore is an error naming the setting and the variable.
    monkeypatch.delenv("ZHBENCH_CONFIG")
    with pytest.raises(SettingsError, match="ZHBENCH_VERIFY__SEARCH_BACKEND"):
        resolve_settings(full)


def test_a_stage_key_follows_its_settings_and_the_content_of_the_files_they_name(tmp_path):
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text((ROOT / "filters" / "taxonomy.toml").read_text(encoding="utf-8"), encoding="utf-8")
    align = AlignSettings(taxonomy=taxonomy)
    key = caching.stage_key("align", "digest", caching.section(align))
    assert key == caching.stage_key("align", "digest", caching.section(AlignSettings(taxonomy=taxonomy)))
    assert key != caching.stage_key("align", "other digest", caching.section(align))
    assert key != caching.stage_key("align", "digest", caching.section(AlignSettings(taxonomy=taxonomy,
                                                                                       position_threshold=0.8)))
    taxonomy.write_text(taxonomy.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert key != caching.stage_key("align", "digest", caching.section(align))  # same path, other content


def test_how_many_searches_are_asked_at_once_is_in_no_stage_key_and_not_in_the_release():
    from flows.runs import manifest_config

    one, many = Settings(verify={"search_concurrency": 1}), Settings(verify={"search_concurrency": 8})
    assert caching.section(one.verify) == caching.section(many.verify)
    assert caching.section(one.verify) != caching.section(Settings(verify={"k": 5}).verify)
    assert manifest_config(one) == manifest_config(many)
    assert "search_concurrency" not in manifest_config(many)["verify"]


def test_a_stage_directory_counts_only_once_finished(tmp_path):
    directory = caching.work_dir(tmp_path, "align", "k")
    caching.begin(directory)
    (directory / "part.parquet").write_bytes(b"half")
    assert not caching.is_done(directory)
    caching.begin(directory)  # a new attempt starts empty
    assert list(directory.iterdir()) == []
    caching.finish(directory)
    assert caching.is_done(directory)


def test_the_alignment_in_parts_is_the_alignment_in_one(tmp_path):
    """align_rules once, align_shard over row ranges of the snapshot, merge_aligned: the same pairs and
    funnel as one pass over all pages."""
    import pyarrow.parquet as pq

    from crawlers.snapshot import iter_page_range, page_ranges, snapshot_stage
    from filters.align_stage import align_rules, align_shard, align_stage, merge_aligned
    from tests.builders.conftest import fact_pages

    pages = snapshot_stage(fact_pages(tmp_path / "pages"), tmp_path / "data").shards[0]
    whole = align_stage([pages], AlignSettings(), tmp_path / "whole")
    rules = align_rules([pages], AlignSettings(), tmp_path / "rules")
    ranges = page_ranges(pages, 37)
    assert len(ranges) > 3 and ranges[-1][1] == pq.ParquetFile(pages).metadata.num_rows
    parts = [align_shard(iter_page_range(pages, start, stop), rules, AlignSettings(), tmp_path / f"part-{start}")
             for start, stop in ranges]
    merged = merge_aligned(rules, parts)
    assert merged.funnel == whole.funnel and merged.pages_by_status == whole.pages_by_status

    def rows(shards):
        return sorted(json.dumps(r, sort_keys=True, default=str) for s in shards for r in pq.read_table(s).to_pylist())

    assert rows(merged.shards) == rows(whole.shards)


def test_a_bad_parameter_is_one_line_naming_the_setting_with_its_value_masked():
    from flows.stages import resolve_settings

    with pytest.raises(SettingsError) as raised:
        resolve_settings({"llm": {"timeout_s": "https://user:pw@llm.example/v1?key=s3cret"}})
    assert str(raised.value) == ("flow parameters: setting llm.timeout_s: Input should be a valid number, unable to "
                                 "parse string as a number (got 'https://***@llm.example/v1?key=***')")
