"""The passage file of a local index: the passages LocalBM25 took from Page records, sorted out of core in
the order Python sorts them, with the same digest."""

from __future__ import annotations

import random

import pytest

from crawlers.urls import public_url
from schemas import Page
from tests.builders.conftest import fact_pages
from verifiers.passages import PassageFile
from verifiers.search import Hit, corpus_digest
from schemas.storage.shards import ShardWriter, iter_records

# Characters whose orders differ between UTF-16 code units, bytes of other encodings and code points, JSON
# escapes, and white space Python strips: the sort and the digest must follow Python's str on all of them.
ALPHABET = ["a", "b", "!", '"', "\\", "/", "%", " ", "\u3000", "\n", "\x01", "长", "江", "！", "\uff5e", "\U00020000",
            "\U0001f600", "é", "\ud7ff", "\ue000"]


def record_passages(page_shards, max_per_page: int = 20) -> list[Hit]:
    """The passages as LocalBM25 read them from Page records before the passage file."""
    found = []
    for page in iter_records(page_shards, Page):
        if page.status != "ok":
            continue
        for text in [page.summary, *page.paragraphs][:max_per_page]:
            if not text.strip():
                continue
            found.append(Hit(public_url(page.canonical_url or page.url, page.source), page.title, text, 0.0))
    return sorted(found, key=lambda h: (h.url, h.text, h.title))


def odd_pages(tmp_path, seed: int = 7, count: int = 400):
    rng = random.Random(seed)

    def word(n: int) -> str:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, n)))

    pages = []
    for i in range(count):
        # Few distinct URLs and titles: many passages tie on the URL, some on the text as well.
        url = f"http://127.0.0.1:8800/item/{rng.choice(['a', 'a!', 'a/b', '长江', '%E9%95%BF'])}/{rng.randint(1, 9)}"
        paragraphs = [word(6) for _ in range(rng.choice([0, 1, 3, 25]))]
        pages.append(Page(url=url, canonical_url=rng.choice(["", url]), source=rng.choice(["baidu", "other"]),
                          status=rng.choice(["ok", "ok", "ok", "error"]), title=word(3), summary=word(8),
                          paragraphs=paragraphs))
    pages.append(Page(url="http://127.0.0.1:8800/item/x/1", title="重复", summary="同一段。", paragraphs=["同一段。"]))
    with ShardWriter(tmp_path / "odd", "pages", Page) as writer:
        writer.write_all(pages)
    return writer.paths


@pytest.mark.parametrize("seed", [7, 8])
def test_the_passages_and_their_digest_are_those_python_sorted(tmp_path, seed):
    shards = odd_pages(tmp_path, seed) + fact_pages(tmp_path / "facts")
    expected = record_passages(shards)
    store = PassageFile.build(shards, 20, tmp_path / "work", memory_limit="16MB")
    assert len(store) == len(expected) > 1000
    assert list(store) == [(h.url, h.title, h.text) for h in expected]
    assert [store[i] for i in range(0, len(store), 7)] == [(h.url, h.title, h.text) for h in expected[::7]]
    assert store.digest == corpus_digest(expected)
    assert any(a.url == b.url for a, b in zip(expected, expected[1:]))  # the ties were there to break
    assert store[-1] == (expected[-1].url, expected[-1].title, expected[-1].text)
    with pytest.raises(IndexError):
        store[len(store)]


def test_at_most_the_first_passages_of_a_page_are_kept(tmp_path):
    shards = odd_pages(tmp_path)
    store = PassageFile.build(shards, 2, tmp_path / "work")
    assert list(store) == [(h.url, h.title, h.text) for h in record_passages(shards, 2)]


def test_the_file_goes_when_closed_or_collected_and_a_crawl_without_passages_gives_none(tmp_path):
    import gc

    work = tmp_path / "work"
    store = PassageFile.build(fact_pages(tmp_path / "facts"), 20, work)
    assert len(list(work.iterdir())) == 1
    store.close()
    assert not list(work.iterdir())
    PassageFile.build(fact_pages(tmp_path / "facts"), 20, work)  # not kept
    gc.collect()
    assert not list(work.iterdir())
    with ShardWriter(tmp_path / "blank", "pages", Page) as writer:
        writer.write_all([Page(url="http://127.0.0.1/item/a", summary=" \u3000\n"), Page(url="http://127.0.0.1/b",
                                                                                         status="error")])
    assert PassageFile.build(writer.paths, 20, work) is None
    assert not list(work.iterdir())


def test_the_files_of_processes_that_are_gone_are_removed_by_the_next_build(tmp_path):
    import subprocess
    import sys

    work = tmp_path / "work"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    orphan = work / f"zhbench-passages-{gone.stdout.strip()}-abc"
    orphan.mkdir(parents=True)
    (orphan / "passages.bin").write_bytes(b"left behind")
    mine = PassageFile.build(fact_pages(tmp_path / "facts"), 20, work)
    living = PassageFile.build(fact_pages(tmp_path / "facts"), 20, work)  # another open index of this process
    assert not orphan.exists() and len(list(work.iterdir())) == 2
    mine.close(), living.close()
