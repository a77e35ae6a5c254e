"""Both tree backends give identical records on every fixture and every mirror page."""

from __future__ import annotations

import pytest

from crawlers.mirror import render
from crawlers.mirror.site import Site
from crawlers.parsers import BACKENDS, parse
from tests.conftest import FIXTURES

BASE = "http://127.0.0.1:8800"


def mirror_pages(site: Site, every: int = 1):
    for entry in site.entries[::every]:
        for layout in ("baidu", "baidu_legacy"):
            entry_layout, entry.layout = entry.layout, layout
            try:
                yield f"{layout}:{entry.key}", site._render_baidu(entry).body
            finally:
                entry.layout = entry_layout
        yield f"sogou:{entry.key}", site.respond(f"/v{entry.sogou_id}.htm").body
        yield f"wiki:{entry.key}", site.respond(render.wiki_path(site.wiki_title(entry))).body
    for title, senses in site.by_title.items():
        if len(senses) > 1:
            yield f"senses:{title}", site.respond(render.item_path(title)).body
            yield f"disambiguation:{title}", site.respond(render.wiki_path(f"{title} (消歧义)")).body


def records(body: bytes) -> dict:
    rows = {name: parse(body, BASE + "/item/x/1", backend=name).to_row() for name in BACKENDS}
    return rows


def check_agreement(site: Site, every: int) -> int:
    checked = 0
    for key, body in mirror_pages(site, every):
        rows = records(body)
        assert rows["lxml"] == rows["bs4"], key
        checked += 1
    return checked


def test_backends_agree_on_a_sample_of_mirror_pages(bundled_site):
    site = Site(entries=bundled_site.entries, faults=False)
    assert check_agreement(site, every=10) >= 4 * len(site.entries) // 10


@pytest.mark.slow
def test_backends_agree_on_every_bundled_mirror_page(bundled_site):
    site = Site(entries=bundled_site.entries, faults=False)
    assert check_agreement(site, every=1) >= 4 * len(site.entries)


@pytest.mark.parametrize("path", sorted((FIXTURES / "pages").glob("*.html")), ids=lambda p: p.name)
def test_backends_agree_on_saved_fixtures(path):
    rows = records(path.read_bytes())
    assert rows["lxml"] == rows["bs4"]
    assert rows["lxml"]["status"] == "ok"


@pytest.mark.parametrize("html", [
    b"",
    b"<html><body><p>no layout at all</p></body></html>",
    b"<?xml version='1.0' encoding='utf-8'?><html><body><div class='J-lemma-title'><h1>X</h1></div></body></html>",
    "<html><body><div class='lemma-summary'><div class='para'>未闭合<b>标签</div></div></body></html>".encode(),
])
def test_backends_agree_on_odd_markup(html):
    rows = records(html)
    assert rows["lxml"] == rows["bs4"]


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="backend must be one of"):
        parse(b"<html></html>", BASE, backend="regex")
