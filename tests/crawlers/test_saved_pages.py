"""Saved pages of every layout, fault pages included, against their recorded records (both backends).

The pages in fixtures/pages/mirror were written by `zhbench mirror export` from the small facts
table; expected.json holds the `zhbench parse` record of each, checked once by hand, so a parser
change that alters any field shows up here.
"""

from __future__ import annotations

import json

import pytest

from crawlers.parsers import BACKENDS, parse
from tests.conftest import FIXTURES

SAVED = FIXTURES / "pages" / "mirror"
EXPECTED = json.loads((SAVED / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_saved_page_gives_its_recorded_record(name, backend):
    page = parse((SAVED / name).read_bytes(), "http://127.0.0.1:8800/fixture", backend=backend)
    assert page.contract() == EXPECTED[name]


def test_saved_set_covers_every_layout_and_fault():
    statuses = {name: record["status"] for name, record in EXPECTED.items()}
    assert statuses["special/captcha.html"] == "blocked"
    assert statuses["special/truncated.html"] == "truncated"
    assert statuses["special/not_found.html"] == "not_found"
    assert statuses["special/gbk.html"] == "ok"
    assert statuses["baidu/李白-senses.html"] == "disambiguation"
    assert statuses["wikipedia/李白-disambiguation.html"] == "disambiguation"
    layouts = {parse((SAVED / n).read_bytes(), "http://x/").layout for n in EXPECTED if statuses[n] == "ok"}
    assert layouts == {"baidu", "baidu_legacy", "sogou", "wikipedia"}
