"""The walking skeleton end to end: `zhbench run` on the bundled mirror, through the Prefect flow."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request

import duckdb
import pyarrow.parquet as pq
import pytest

from tests.flows.test_cli import ROOT, zhbench
from bench.localhost import free_port


def test_run_crawls_the_mirror_and_publishes_a_verified_release(demo_run, demo_data, tmp_path):
    """The session's demo run, then, in a copy of its data directory (tmp_path / "data"), the commands that
    read it (the runs after it: test_a_second_run_publishes_nothing_new_unless_asked)."""
    result = demo_run.result
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and "CancelledError" not in result.stderr
    assert "DEBUG" not in result.stdout + result.stderr
    out = result.stdout
    assert f"release         {demo_run.data / 'releases' / 'cdtp' / '0.1.0'}" in out
    release = demo_data / "releases" / "cdtp" / "0.1.0"
    assert "manifest        checksums verified" in out
    crawled = int(re.search(r"pages crawled\s+(\d+)", out).group(1))
    kept = int(re.search(r"pairs kept\s+(\d+)", out).group(1))
    # The CDTP filters (grounding by relation, position index, trailing relations, enumerations),
    # relation support and search validation (each pair judged again on the triples search leaves
    # it) keep a few percent of the demo's short entries, whose summaries say more than their infoboxes.
    assert crawled >= 250 and kept >= 10

    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["pages"]["ok"] >= 250
    assert manifest["counts"]["pages"]["not_found"] >= 1  # a seed the mirror does not hold
    assert manifest["config"]["crawl"]["site"] == "baidu"
    assert manifest["flow_run_id"] is None  # the run's ids are in the catalog, not in the release
    pairs = pq.read_table(release / "cdtp_pairs" / "all.parquet")
    assert pairs.num_rows == kept
    # Every released triple is grounded in its pair's text.
    ((count,),) = duckdb.sql(f"""
        SELECT count(*) FROM (SELECT text, unnest(triples) AS t
                              FROM read_parquet('{release / "cdtp_pairs" / "all.parquet"}'))
        WHERE t.decision <> 'kept' OR t.span_end < 0
    """).fetchall()
    assert count == 0

    # Every released pair has a domain; on the mirror, whose facts carry a domain, nearly all agree.
    from crawlers.mirror.facts import load_facts
    from schemas import DOMAINS

    truth = {(e.title, e.sense): e.domain for e in load_facts()}
    rows = pairs.select(["entity", "sense", "domain", "domain_confidence", "topic"]).to_pylist()
    assert all(r["domain"] in DOMAINS and 0 <= r["domain_confidence"] <= 1 and r["topic"] for r in rows)
    labelled = [(r["domain"], truth[(r["entity"], r["sense"])]) for r in rows if (r["entity"], r["sense"]) in truth]
    assert len(labelled) >= 0.9 * len(rows)
    assert sum(got == want for got, want in labelled) >= 0.85 * len(labelled)

    # Every multiple-choice item of the release: ten unique options, the gold once at its index,
    # every option in the gold's format.
    from builders.formats import compatible, value_format
    from filters.dedup import field_key

    mcq = []
    for config in ("kgc", "qa"):
        for split in ("train", "eval"):
            mcq += pq.read_table(release / config / f"{split}.parquet").to_pylist()
    assert len(mcq) >= 30  # kgc, and the qa facts short-answer questions do not own (flows.items.FACT_OWNERS)
    for item in mcq:
        keys = [field_key(o) for o in item["options"]]
        assert len(item["options"]) == 10 and len(set(keys)) == 10
        assert item["options"][item["answer_index"]] == item["answer"] and keys.count(field_key(item["answer"])) == 1
        gold = value_format(item["answer"], item["relation"])
        assert all(compatible(gold, value_format(o, item["relation"])) or s != "same_relation"
                   for o, s in zip(item["options"], item["option_sources"]))
    for config in ("t2t", "cloze", "simpleqa"):
        assert pq.read_table(release / config / "train.parquet").num_rows > 0

    # The audit recomputes every promise from the files (and the crawl the manifest names): none broken.
    audit = zhbench("audit", "0.1.0", "--data-dir", str(tmp_path / "data"))
    assert audit.returncode == 0 and "0 violations" in audit.stdout, audit.stdout
    assert manifest["validation"]["audit"]["violations"] == 0 and manifest["sources"]["crawl"]
    verify = zhbench("release", "verify", "0.1.0", "--data-dir", str(tmp_path / "data"))
    assert verify.returncode == 0 and "every file matches the manifest" in verify.stdout
    listing = zhbench("release", "list", "--data-dir", str(tmp_path / "data"))
    assert listing.stdout.startswith("0.1.0")

    report = zhbench("report", "--data-dir", str(tmp_path / "data"))
    assert report.returncode == 0, report.stderr
    assert re.search(rf"pages fetched\s+{crawled}\b", report.stdout)
    assert re.search(rf"pairs search-checked\s+{kept}\b", report.stdout)
    assert manifest["counts"]["search"]["backend"].startswith("searxng:mirror-demo-")  # no port: the same every run
    assert all(t["support_urls"] and url not in t["support_urls"]
               for url, triples in zip(pairs.column("url").to_pylist(), pairs.column("triples").to_pylist())
               for t in triples)
    assert "kept pairs by domain" in report.stdout
    assert "gold position among the ten options" in report.stdout and "distractor sources" in report.stdout
    assert "char-ngram" in (release / "README.md").read_text(encoding="utf-8")
    html = (tmp_path / "data" / "runs").glob("*/report.html")
    assert "<svg" in next(html).read_text(encoding="utf-8")

    # The gate ran, its Data Docs are with the run, and the catalog holds the runs and releases.
    assert manifest["validation"]["passed"] and "validation      passed:" in out
    assert manifest["hierarchy"]["simpleqa"]["dataset"] == "cdtp-simpleqa"
    assert all(i["capability"] and i["task"] and i["dataset"] == f"cdtp-{i['kind']}" for i in mcq)
    assert list((tmp_path / "data" / "runs").glob("*/validation/gx/uncommitted/data_docs/local_site/index.html"))
    from schemas.storage.catalog import Catalog

    catalog = Catalog(tmp_path / "data" / "catalog.duckdb")
    assert [r["status"] for r in catalog.runs()] == ["published"]
    assert [(r["version"], r["validation_passed"]) for r in catalog.releases("cdtp")] == [("0.1.0", True)]
    stages = {o["stage"] for o in catalog.stage_outputs(catalog.runs()[0]["run_id"])}
    assert stages == {"crawl", "align", "dedup", "verify", "items"}
    assert catalog.cache_sizes()["search_cache"] > 0  # the search results are cached in the catalog
    assert all(r["flow_run_id"] for r in catalog.runs()) and catalog.releases("cdtp")[0]["run_id"]
    assert not (tmp_path / "data" / "warehouse" / "search_cache.duckdb").exists()

    # The run queued its release for review by the policy: every SimpleQA question, a sample of the others.
    simpleqa = pq.read_metadata(release / "simpleqa" / "eval.parquet").num_rows + \
        pq.read_metadata(release / "simpleqa" / "train.parquet").num_rows
    status = zhbench("review", "status", "0.1.0", "--data-dir", str(tmp_path / "data"))
    queued = int(re.search(r"(\d+) queued; open (\d+)", status.stdout).group(1))
    assert queued > simpleqa > 0 and f"review          {queued} items queued" in out
    again = zhbench("review", "queue", "0.1.0", "--config", "simpleqa", "--split", "all",
                    "--data-dir", str(tmp_path / "data"))
    assert again.returncode == 0 and f"0 items queued for review ({queued} in the queue)" in again.stdout


@pytest.mark.slow  # two more runs of the demo, a minute of CPU
def test_a_second_run_publishes_nothing_new_unless_asked(demo_run, demo_data, tmp_path):
    """In a copy of the demo's data directory: the same crawl again publishes nothing (every pair is in 0.1.0
    already), and with --readmit a new version with byte-identical data files, searching nothing again."""
    port, release = demo_run.port, demo_data / "releases" / "cdtp" / "0.1.0"
    kept = int(re.search(r"pairs kept\s+(\d+)", demo_run.result.stdout).group(1))
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))

    # The same crawl again: everything is in release 0.1.0 already, so nothing is published ...
    again = zhbench("run", "--data-dir", str(tmp_path / "data"), "--mirror-port", port, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"release         none published: all {kept} pairs" in again.stdout
    assert not (release.parent / "0.2.0").exists()
    # ... unless asked: then a new version with byte-identical data files.
    again = zhbench("run", "--data-dir", str(tmp_path / "data"), "--mirror-port", port, "--readmit", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    second = json.loads((release.parent / "0.2.0" / "manifest.json").read_text(encoding="utf-8"))
    assert second["parent"] == "0.1.0"
    assert [f["sha256"] for f in second["files"]] == [f["sha256"] for f in manifest["files"]]
    assert second["validation"] == manifest["validation"]
    diff = zhbench("release", "diff", "0.1.0", "0.2.0", "--data-dir", str(tmp_path / "data"))
    assert diff.returncode == 0 and re.search(r"qa\s+\d+\s+\d+\s+0\s+0\s+0", diff.stdout), diff.stdout

    from schemas.storage.catalog import Catalog

    catalog = Catalog(tmp_path / "data" / "catalog.duckdb")
    assert [r["status"] for r in catalog.runs()] == ["published", "nothing_new", "published"]
    assert [(r["version"], r["validation_passed"]) for r in catalog.releases("cdtp")] == [("0.1.0", True),
                                                                                       ("0.2.0", True)]
    # The search results are cached in the catalog: the --readmit run searched nothing again.
    search = catalog.funnel(catalog.runs()[-1]["run_id"])["search"]
    assert search["cache_misses"] == 0 and search["cache_hits"] > 0 and "cache_hits" not in second["counts"]["search"]
    assert all(r["flow_run_id"] for r in catalog.runs())


def test_mirror_serve_answers_on_localhost():
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "mirror", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    try:
        line = proc.stdout.readline()
        base = re.search(r"(http://127\.0\.0\.1:\d+)", line).group(1)
        robots = urllib.request.urlopen(base + "/robots.txt", timeout=10).read().decode()
        assert "Disallow: /usercenter" in robots
        page = urllib.request.urlopen(base + "/item/%E6%9D%8E%E7%99%BD", timeout=10).read().decode()
        assert "李白" in page
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_a_release_of_the_realistic_profile_keeps_every_promise(tmp_path):
    """`zhbench run --profile realistic` (search validation off: offline, BM25 over the crawl confirms
    almost nothing on a long-tail corpus), then `zhbench audit`: no violation, and items of every kind."""
    result = zhbench("run", "--data-dir", str(tmp_path / "data"), "--profile", "realistic", "--mirror-size", "1500",
                     "--mirror-port", str(free_port()), cwd=tmp_path, env={"ZHBENCH_VERIFY__SEARCH": "false"})
    assert result.returncode == 0, result.stderr[-2000:]
    kept = int(re.search(r"pairs kept\s+(\d+)", result.stdout).group(1))
    assert kept >= 200
    audit = zhbench("audit", "0.1.0", "--data-dir", str(tmp_path / "data"), "--json")
    report = json.loads(audit.stdout)
    assert audit.returncode == 0 and report["ok"], audit.stdout[-3000:]
    assert all(report["configs"][c]["rows"] > 0 for c in ("cdtp_pairs", "t2t", "kgc", "qa", "cloze", "simpleqa"))


@pytest.mark.slow
def test_a_second_run_in_one_data_dir_validates_as_a_fresh_one(tmp_path):
    """Two runs of the mirror on different ports into one data directory, and a run over the realistic
    profile into it: each search validation drops what it drops in a fresh data directory (results cached
    for another fetch address or another corpus answer nothing; results of the same corpus are reused)."""
    def run(data: str, *args: str) -> str:
        result = zhbench("run", "--data-dir", str(tmp_path / data), "--mirror-port", str(free_port()), "--readmit",
                         *args, cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout

    def search_drops(out: str) -> int:
        found = re.search(r"search:no_cooccurrence (\d+)", out)
        return int(found.group(1)) if found else 0

    first = run("shared")
    again = run("shared")  # another port: the same public URLs, the same corpus
    assert search_drops(first) > 0 and search_drops(again) == search_drops(first)
    other = run("shared", "--profile", "realistic", "--mirror-size", "300")
    fresh = run("fresh", "--profile", "realistic", "--mirror-size", "300")
    assert search_drops(fresh) > 0 and search_drops(other) == search_drops(fresh)
