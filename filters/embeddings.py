"""Text embeddings behind one interface: an offline char n-gram backend, sentence-transformers, a disk cache.

Every backend returns float32 rows of unit length (a zero row for a text with no
characters left after normalisation) and has a stable ``name`` that says which
vectors it makes, so caches and release cards can tell backends apart.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from filters.normalize import normalize

SPECS = ("char-ngram", "char-ngram:<dim>", "sentence-transformers:<model directory or name>")


class EmbeddingError(ValueError):
    """An embedder cannot be built or its cache cannot be read; the message says how to fix it."""


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape (len(texts), dim), rows L2-normalised."""
        ...


ENCODE_CHUNK = 1024  # texts whose n-grams are counted at once


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


class CharNgramEmbedder:
    """Hashed character n-grams of the normalised text, sublinear tf (1 + ln tf), unit length.

    Deterministic across processes and machines: n-grams are hashed with CRC-32 of
    their UTF-32 bytes, never with Python's salted ``hash()``.
    """

    def __init__(self, dim: int = 1024, ngrams: Sequence[int] = (1, 2, 3)):
        if dim < 2:
            raise ValueError(f"dim must be >= 2, got {dim}")
        ngrams = tuple(sorted(set(ngrams)))
        if not ngrams or ngrams[0] < 1:
            raise ValueError(f"ngrams must be positive lengths, got {ngrams}")
        self.dim, self.ngrams = dim, ngrams
        suffix = "" if ngrams == (1, 2, 3) else "-n" + "".join(map(str, ngrams))
        self.name = f"char-ngram-v1-{dim}{suffix}"

    def _buckets(self, text: str) -> list[int]:
        data = normalize(text).encode("utf-32-le")
        chars, dim = len(data) // 4, self.dim
        out = []
        for n in self.ngrams:
            width = 4 * n
            out.extend(zlib.crc32(data[i:i + width]) % dim for i in range(0, 4 * (chars - n + 1), 4))
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The rows are computed ``ENCODE_CHUNK`` texts at a time into the result: counting a text's
        n-grams takes about 9 KB of temporaries at 1,024 dimensions besides its 4 KB row. Encoding
        15,000 short texts at once peaked 269 MB above its start, 85 MB in chunks. Each row is the
        same either way."""
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), ENCODE_CHUNK):
            chunk = texts[start:start + ENCODE_CHUNK]
            rows, cols = [], []
            for row, text in enumerate(chunk):
                buckets = self._buckets(text)
                rows.extend([row] * len(buckets))
                cols.extend(buckets)
            flat = np.asarray(rows, dtype=np.int64) * self.dim + np.asarray(cols, dtype=np.int64)
            counts = np.bincount(flat, minlength=len(chunk) * self.dim).reshape(len(chunk), self.dim)
            part = matrix[start:start + len(chunk)]
            present = counts > 0
            part[present] = 1.0 + np.log(counts[present])
            _unit_rows(part)
        return matrix


class SentenceTransformerEmbedder:
    """A sentence-transformers model (a local directory or a hub name), loaded on first use.

    Offline use needs a local directory (for Chinese, e.g. a copy of bge-small-zh);
    hub names only work where the model is already cached or the network is reachable.
    """

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 64):
        if not model:
            raise EmbeddingError("sentence-transformers needs a model: give a local model directory or a hub name")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model, self.device, self.batch_size = model, device, batch_size
        self.name = f"sentence-transformers:{model}"
        self._model = None

    def _load(self):
        if self._model is None:
            local = Path(self.model).expanduser()
            if self.model.startswith(("/", ".", "~")) and not local.is_dir():
                # Checked before importing sentence-transformers (slow to import) to fail fast on a typo.
                raise EmbeddingError(f"sentence-transformers model directory {self.model!r} does not exist; "
                                     "give the path of a local model directory, or use the 'char-ngram' embedder")
            try:
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(self.model, device=self.device)
            except Exception as exc:  # noqa: BLE001 - any load failure gets the same remedy
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise EmbeddingError(
                    f"cannot load sentence-transformers model {self.model!r} ({type(exc).__name__}: {first}); "
                    "give a local model directory, or use the 'char-ngram' embedder"
                ) from exc
        return self._model

    @property
    def dim(self) -> int:
        return int(self._load().get_embedding_dimension())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def _slug(name: str) -> str:
    """A directory name for an embedder: readable part plus a hash, so distinct names never collide."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[-60:].strip("._-")
    return f"{readable or 'embedder'}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:10]}"


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedEmbedder:
    """Any embedder with its vectors kept on disk, keyed by the SHA-256 of the text.

    Each ``encode`` that meets new texts embeds them in one call and writes them as
    one new Parquet shard (``key`` string, ``vector`` fixed_size_list<float32>[dim])
    under ``cache_dir/<slug of inner.name>/``, named by the hash of its keys and
    moved into place atomically. Shards written by other instances are picked up on
    open and before every encode that has misses. ``hits`` and ``misses`` count
    input texts; a text repeated within one call is embedded once.

    Only where each key's vector is (shard and row) stays in memory, and the shards read or written
    last, up to ``recent_bytes`` of vectors (a shard is read once for all its keys an encode asks for):
    a cache holds 4 KB a text at 1,024 dimensions, and kept whole it grew with every crawl the data
    directory had seen (35,426 vectors at 27k pages).
    """

    def __init__(self, inner: Embedder, cache_dir: Path, recent_bytes: int = 64 << 20):
        self.inner = inner
        self.name = inner.name
        self.directory = Path(cache_dir) / _slug(inner.name)
        self.hits = self.misses = 0
        self.recent_bytes = recent_bytes
        self._where: dict[str, tuple[str, int]] = {}  # key -> (shard name, row)
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()  # shard name -> its vectors, oldest first
        self._shards: set[str] = set()
        self._dim: int | None = None
        self._load_new_shards()

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.inner.dim)
        return self._dim

    def _unreadable(self, path: Path, exc: Exception) -> EmbeddingError:
        reason = " ".join(str(exc).split())  # Arrow's messages run over several lines
        return EmbeddingError(f"embedding cache shard {path} is unreadable ({reason}); delete it and its vectors "
                              "are recomputed")

    def _load_new_shards(self) -> None:
        """The keys of the shards not seen yet (their vectors are read when asked for)."""
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob("*.parquet")):
            if path.name in self._shards:
                continue
            try:
                parquet = pq.ParquetFile(path)
                vector_type = parquet.schema_arrow.field("vector").type
                if not pa.types.is_fixed_size_list(vector_type):
                    raise ValueError(f"column 'vector' is {vector_type}, not fixed_size_list<float32>")
                keys = parquet.read(columns=["key"]).column("key").to_pylist()
            except (OSError, KeyError, ValueError, pa.ArrowException) as exc:
                raise self._unreadable(path, exc) from exc
            width = vector_type.list_size
            if self._dim is None:
                self._dim = width
            elif width != self._dim:
                raise EmbeddingError(f"embedding cache shard {path} holds {width}-d vectors, expected {self._dim}; "
                                     "delete it and its vectors are recomputed")
            self._where.update((key, (path.name, row)) for row, key in enumerate(keys))
            self._shards.add(path.name)

    def _vectors_of(self, name: str) -> np.ndarray:
        """A shard's vectors, (rows, dim) float32: from the recent ones, or read and made recent."""
        matrix = self._recent.get(name)
        if matrix is not None:
            self._recent.move_to_end(name)
            return matrix
        path = self.directory / name
        try:
            column = pq.read_table(path, columns=["vector"]).column("vector").combine_chunks()
            flat = column.flatten().to_numpy(zero_copy_only=False)
            matrix = np.asarray(flat, dtype=np.float32).reshape(len(column), column.type.list_size)
        except (OSError, KeyError, ValueError, pa.ArrowException) as exc:
            raise self._unreadable(path, exc) from exc
        self._remember(name, matrix)
        return matrix

    def _remember(self, name: str, matrix: np.ndarray) -> None:
        """Keeps a shard's vectors among the recent ones, the oldest going first beyond recent_bytes (a
        shard larger than that alone is not kept: one encode's new texts can be a whole batch of items)."""
        self._recent[name] = matrix
        total = sum(m.nbytes for m in self._recent.values())
        while self._recent and total > self.recent_bytes:
            total -= self._recent.popitem(last=False)[1].nbytes

    def _write_shard(self, keys: list[str], matrix: np.ndarray) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        dim = matrix.shape[1]
        vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1), type=pa.float32()), dim)
        table = pa.table({"key": pa.array(keys, type=pa.string()), "vector": vectors})
        table = table.replace_schema_metadata({b"zhbench.embedder": self.name.encode("utf-8")})
        name = hashlib.sha256("\n".join(keys).encode("ascii")).hexdigest()[:20] + ".parquet"
        tmp = self.directory / f".{name}.{uuid.uuid4().hex}.tmp"
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, self.directory / name)
        finally:
            tmp.unlink(missing_ok=True)
        self._shards.add(name)
        self._where.update((key, (name, row)) for row, key in enumerate(keys))
        self._remember(name, matrix)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(text) for text in texts]
        if any(key not in self._where for key in keys):
            self._load_new_shards()
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key in self._where:
                self.hits += 1
            else:
                self.misses += 1
                missing.setdefault(key, text)
        found: dict[str, np.ndarray] = {}
        if missing:
            new_keys = list(missing)
            matrix = np.asarray(self.inner.encode(list(missing.values())), dtype=np.float32)
            if matrix.shape[0] != len(new_keys):
                raise EmbeddingError(f"{self.name} returned {matrix.shape[0]} vectors for {len(new_keys)} texts")
            if self._dim is None:
                self._dim = matrix.shape[1]
            elif matrix.ndim != 2 or matrix.shape[1] != self._dim:
                raise EmbeddingError(f"{self.name} returned vectors of shape {matrix.shape}, but the cache in "
                                     f"{self.directory} holds {self._dim}-d vectors; use a new cache_dir")
            self._write_shard(new_keys, matrix)
            found.update(zip(new_keys, matrix))
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        by_shard: dict[str, list[str]] = {}
        for key in dict.fromkeys(keys):
            if key not in found:
                by_shard.setdefault(self._where[key][0], []).append(key)
        for name, shard_keys in by_shard.items():  # each shard read once, in the order first needed
            vectors = self._vectors_of(name)
            found.update((key, vectors[self._where[key][1]]) for key in shard_keys)
        return np.stack([found[key] for key in keys]).astype(np.float32, copy=False)


def make_embedder(spec: str, cache_dir: Path | None = None) -> Embedder:
    """``char-ngram``, ``char-ngram:<dim>`` or ``sentence-transformers:<model>``; a model's vectors are cached
    under cache_dir when it is given.

    char-ngram vectors are never cached: they are computed faster than they are read back (4,096 short
    texts in 0.17 s). Through the cache, the item build of an 84k-page crawl took 39-44 s and peaked
    259-278 MB above its start; without it, 31-34 s and 132-143 MB, the same items (bench/RESULTS.md,
    2026-11-28): the cache's key table, its recent shards and its shard reads and writes grew with the
    crawl."""
    kind, _, arg = spec.strip().partition(":")
    embedder: Embedder
    if kind == "char-ngram":
        if arg and not arg.isdigit():
            raise EmbeddingError(f"embedder {spec!r}: the char-ngram dimension must be a whole number, e.g. char-ngram:512")
        if arg and int(arg) < 2:
            raise EmbeddingError(f"embedder {spec!r}: the char-ngram dimension must be at least 2")
        return CharNgramEmbedder(dim=int(arg)) if arg else CharNgramEmbedder()
    if kind == "sentence-transformers" and arg.strip():
        embedder = SentenceTransformerEmbedder(arg.strip())
    else:
        raise EmbeddingError(f"unknown embedder {spec!r}; use one of: {', '.join(SPECS)}")
    return CachedEmbedder(embedder, cache_dir) if cache_dir is not None else embedder
