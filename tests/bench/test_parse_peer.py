"""The parse benchmark's peer stands alone and reads the bench page as zhbench's parser does."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from bench.pages import realistic_page
from bench.parse_peer import scrape
from crawlers.mirror.site import Site
from crawlers.parsers import parse

PEER = Path(__file__).resolve().parents[2] / "bench" / "parse_peer.py"


def test_the_peer_imports_only_the_standard_library_and_selectolax():
    imported = set()
    for node in ast.walk(ast.parse(PEER.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    outside = imported - set(sys.stdlib_module_names) - {"__future__", "selectolax"}
    assert not outside, outside


def test_the_peer_gives_zhbench_s_record_of_the_bench_page_with_every_backend():
    body, url = realistic_page(Site(faults=False))
    peer = scrape(body, url)
    assert peer["title"] and peer["infobox"] and peer["paragraphs"] and peer["links"]
    for backend in ("selectolax", "lxml", "bs4"):
        record = parse(body, url, backend=backend).to_row()
        assert record["status"] == "ok"
        assert {k: record[k] for k in peer} == peer, backend
