"""Exact and near-duplicate detection over pair texts, streaming, across shards and releases.

Texts are compared after :func:`filters.normalize.normalize`.

* **Exact** duplicates share the BLAKE2b digest of the normalised text.
* **Near** duplicates: each text gets a MinHash signature over its character
  n-grams (or jieba word n-grams); LSH bands (band and row counts from
  datasketch's optimiser for the threshold, weighing misses over extra
  candidates) propose candidate pairs, and a candidate is a duplicate when the
  signatures agree on at least ``threshold`` of their positions (the MinHash
  estimate of the Jaccard similarity).

Signing is vectorised with numpy over batches of documents: an n-gram hashes
to 64 bits by a polynomial over its units and a 64-bit mixer, and permutation
``i`` is the multiply-add-shift hash ``(a_i * x + b_i) >> 32`` of the upper 32
bits ``x`` (Dietzfelbinger's 2-universal family), so one batch costs a few numpy
passes instead of a Python call per n-gram and permutation. The values are laid out
permutation-major (one row per permutation, the n-grams of a block of texts along it), so
each text's minimum is a contiguous reduction, and a block (~8k n-grams) stays in cache.

Memory does not grow with the corpus beyond a one-byte flag per document:
signatures go to a flat file and band keys to Parquet (one row group per band)
in a work directory; DuckDB, memory-limited and spilling to disk, ranks the
documents, finds the exact groups and, band by band, the candidate pairs as
pairs of ranks; the candidates stream back in rank order with their signatures
read by row from a copy of the file in rank order; and only the pairs found to
be duplicates are joined to their ids. Documents are ranked references first, then by id, and
the first of a group survives, so the result does not depend on input order;
references (the texts of earlier releases) are never dropped themselves.
"""

from __future__ import annotations

import hashlib
import shutil
import os
import unicodedata
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from filters.normalize import normalize, normalize_once, value_cache
from filters.text import segmenter
from schemas.storage.shards import bounded_duck

SHINGLES = ("char", "word")
SCHEME = "zhbench-minhash-1"  # change when the signing changes: signatures of two schemes do not compare

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_POLY = np.uint64(0x100000001B3)
_U32 = np.uint64(32)


def shingles(text: str, kind: str = "char", n: int = 5) -> set[bytes]:
    """Character n-grams, or n-grams of jieba words, of a text, as bytes (for datasketch's MinHash)."""
    units = _units(text, kind)
    if len(units) < n:
        return {"".join(units).encode("utf-8")} if units else set()
    return {"".join(units[i:i + n]).encode("utf-8") for i in range(len(units) - n + 1)}


def _units(text: str, kind: str) -> list[str]:
    if kind == "char":
        return list(text)
    if kind == "word":
        return [w for w in segmenter().cut(text, HMM=False) if w.strip()]
    raise ValueError(f"shingle kind must be one of {SHINGLES}, got {kind!r}")


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place."""
    h ^= h >> np.uint64(30)
    h *= _MIX1
    h ^= h >> np.uint64(27)
    h *= _MIX2
    h ^= h >> np.uint64(31)
    return h


class MinHasher:
    """MinHash signatures (uint32, ``num_perm`` per text) of normalised texts, a batch at a time.

    block: about how many n-grams are permuted at once (all ``num_perm`` values of each: block x
    num_perm x 8 bytes, 8 MB for the defaults); a text with more n-grams is a block of its own.
    """

    def __init__(self, num_perm: int = 128, shingle: str = "char", n: int = 5, seed: int = 1,
                 block: int = 8_192):
        if shingle not in SHINGLES:
            raise ValueError(f"shingle must be one of {SHINGLES}, got {shingle!r}")
        if n < 1 or num_perm < 16:
            raise ValueError(f"n must be >= 1 and num_perm >= 16, got n={n}, num_perm={num_perm}")
        if block < 1:
            raise ValueError(f"block must be >= 1, got {block}")
        self.num_perm, self.shingle, self.n, self.seed, self.block = num_perm, shingle, n, seed, block
        rng = np.random.default_rng(seed)
        self._a = rng.integers(1, 2**63, num_perm, dtype=np.uint64) | np.uint64(1)
        self._b = rng.integers(0, 2**63, num_perm, dtype=np.uint64)

    def _units(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every text's units, one after another, and their counts; a text shorter than one
        n-gram is padded with zeros to one n-gram."""
        n = self.n
        if self.shingle == "char":
            # one encode for the batch: a str's length is its count of code points, UTF-32's units
            padded = [t if len(t) >= n else t + "\0" * (n - len(t)) for t in texts]
            lengths = np.fromiter(map(len, padded), dtype=np.int64, count=len(padded))
            units = np.frombuffer("".join(padded).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
            return units, lengths
        arrays = []
        for text in texts:
            words = _units(text, "word")
            units = np.array([int.from_bytes(hashlib.blake2b(w.encode("utf-8"), digest_size=8).digest(), "little")
                              for w in words], dtype=np.uint64)
            if len(units) < n:
                units = np.concatenate([units, np.zeros(n - len(units), dtype=np.uint64)])
            arrays.append(units)
        lengths = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.uint64), lengths

    def ngram_hashes(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The upper 32 bits of every n-gram's 64-bit hash (as uint64), text after text, and the
        index of each text's first n-gram (n-grams repeated within a text are kept: they do not
        change a minimum)."""
        n = self.n
        units, lengths = self._units(texts)
        width = len(units) - n + 1
        h = np.zeros(max(width, 0), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for k in range(n):
                h *= _POLY
                h += units[k:k + width]
            _mix(h)
        # keep the n-grams that start and end inside one text
        counts = lengths - n + 1
        starts = np.cumsum(lengths) - lengths
        firsts = np.cumsum(counts) - counts
        index = np.repeat(starts - firsts, counts) + np.arange(counts.sum())
        return h[index] >> _U32, firsts

    def sign(self, texts: Sequence[str]) -> np.ndarray:
        """Signature ``i`` of a text is the least ``(a_i * x + b_i) mod 2**64 >> 32`` over its n-grams ``x``.

        Permutation-major: a block of n-grams is one (num_perm x n-grams) array, so each text's
        minimum is a reduction over a contiguous run of a row, and the shift comes after the
        minimum (it keeps the order), on num_perm values a text instead of on all of them."""
        if not len(texts):
            return np.empty((0, self.num_perm), dtype=np.uint32)
        x, firsts = self.ngram_hashes(texts)
        ends = np.append(firsts[1:], len(x))
        out = np.empty((self.num_perm, len(texts)), dtype=np.uint64)
        a, b = self._a[:, None], self._b[:, None]
        buffer = np.empty(self.num_perm * max(self.block, int((ends - firsts).max())), dtype=np.uint64)
        start = 0
        with np.errstate(over="ignore"):
            while start < len(texts):
                low = firsts[start]
                stop = max(int(np.searchsorted(ends, low + self.block, side="right")), start + 1)
                high = ends[stop - 1]
                values = buffer[:self.num_perm * (high - low)].reshape(self.num_perm, high - low)
                np.multiply(a, x[low:high], out=values)
                values += b
                np.minimum.reduceat(values, firsts[start:stop] - low, axis=1, out=out[:, start:stop])
                start = stop
        out >>= _U32
        return out.T.astype(np.uint32)


def estimate_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """MinHash Jaccard estimates between matching rows of two signature arrays."""
    return (np.asarray(a) == np.asarray(b)).mean(axis=-1)


def lsh_bands(threshold: float, num_perm: int, false_negative_weight: float = 0.5) -> tuple[int, int]:
    """(bands, rows) that best separate similarities around the threshold (datasketch's optimiser,
    weighing missed pairs by ``false_negative_weight`` and extra candidates by the rest)."""
    from datasketch.lsh import _optimal_param

    return _optimal_param(threshold, num_perm, 1 - false_negative_weight, false_negative_weight)


# The Deduplicator checks every candidate on its signatures, so an extra candidate costs one comparison
# while a missed one is a duplicate kept: it weighs misses 0.7, which for 0.6 and 128 permutations gives
# 21 bands of 6 rows instead of 18 of 7; bench/dedup_bench.py (100k documents) measured recall 0.94 ->
# 0.97 for the same false merges and time.
BAND_MISS_WEIGHT = 0.7


@dataclass(frozen=True)
class Duplicate:
    doc_id: str
    duplicate_of: str
    kind: str  # exact | near | field
    similarity: float
    reference: bool = False  # duplicate_of is a reference text (an earlier release), not a document of this run


class Deduplicator:
    """threshold: the Jaccard similarity (MinHash estimate) at and above which two texts are one;
    num_perm: MinHash permutations; shingle / n: what the sets are made of; work_dir: where the
    signatures and band keys are spilled (a temporary directory when None); memory_limit and
    threads: DuckDB's (threads None: one per core). One thread within 32MB kept the peak RSS
    within 10% from 100k to 1M documents (bench/dedup_bench.py --memory); more threads need more
    memory.

    Use: ``add_references(...)`` any number of times, then ``find(docs)`` once.
    """

    # 0.6 over character 5-grams found every planted near-duplicate (character edits, punctuation,
    # reordered clauses) in tests/filters/test_dedup.py; bench/dedup_bench.py measures it at scale.
    def __init__(self, threshold: float = 0.6, num_perm: int = 128, shingle: str = "char", n: int = 5,
                 seed: int = 1, batch_size: int = 5_000, work_dir: Path | None = None,
                 memory_limit: str = "32MB", threads: int | None = 1):
        if not 0 < threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {threshold}")
        self.hasher = MinHasher(num_perm, shingle, n, seed)
        self._params = {"threshold": threshold, "num_perm": num_perm, "shingle": shingle, "n": n, "seed": seed,
                        "batch_size": batch_size}
        self.threshold, self.num_perm, self.batch_size = threshold, num_perm, batch_size
        self.memory_limit, self.threads = memory_limit, threads
        self.bands, self.rows = lsh_bands(threshold, num_perm, BAND_MISS_WEIGHT)
        rng = np.random.default_rng(seed + 1)
        self._band_mult = rng.integers(1, 2**63, self.rows, dtype=np.uint64) | np.uint64(1)
        self._tmp = None if work_dir is not None else tempfile.TemporaryDirectory(prefix="zhbench-dedup-")
        self.work_dir = Path(work_dir) if work_dir is not None else Path(self._tmp.name)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self._parts = self._rows = 0
        self.counts = {"documents": 0, "references": 0, "candidates": 0}

    def add_references(self, docs: Iterable[tuple[str, str]]) -> int:
        """Texts that are already published: later documents duplicating them are dropped."""
        return self._spill(docs, reference=True)

    def find(self, docs: Iterable[tuple[str, str]]) -> Iterator[Duplicate]:
        """Yield the duplicates among (id, text) documents, exact ones first; ids must be unique."""
        self._spill(docs, reference=False)
        yield from self._resolved()

    def sign_part(self, docs: Iterable[tuple[str, str]], out_dir: Path) -> int:
        """Pass 1 for one part of the documents, into ``out_dir``: what ``find`` would spill for them. Parts
        can be signed anywhere (a task per part, on other processes or hosts); ``find_signed`` takes them as
        if the documents had been given to ``find`` in the parts' order, and gives the same duplicates."""
        signer = Deduplicator(**self._params, work_dir=Path(out_dir))
        return signer._spill(docs, reference=False)

    def find_signed(self, parts: Iterable[Path]) -> Iterator[Duplicate]:
        """``find`` over documents already signed by ``sign_part``, part after part."""
        for part in parts:
            self._add_part(Path(part))
        yield from self._resolved()

    def _resolved(self) -> Iterator[Duplicate]:
        if self._parts == 0:
            return
        try:
            yield from self._resolve()
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()

    def _add_part(self, part: Path) -> None:
        """A signed part's files, renumbered after the documents already here."""
        offset = self._rows
        rows = 0
        for docs in sorted(part.glob("docs-*.parquet")):
            name = f"{self._parts:06d}"
            self._parts += 1
            table = pq.read_table(docs)
            rows += table.num_rows
            table = table.set_column(0, "seq", pc.add(table.column("seq"), pa.scalar(offset, pa.int64())))
            pq.write_table(table, self.work_dir / f"docs-{name}.parquet")
            bands = pq.read_table(part / docs.name.replace("docs-", "bands-"))
            bands = bands.set_column(0, "seq", pc.add(bands.column("seq"), pa.scalar(offset, pa.int64())))
            pq.write_table(bands, self.work_dir / f"bands-{name}.parquet",
                           row_group_size=max(1, bands.num_rows // self.bands))
        signatures = part / "signatures.bin"
        if rows:
            with open(signatures, "rb") as source, open(self.work_dir / "signatures.bin", "ab") as target:
                shutil.copyfileobj(source, target, 1 << 20)
        self._rows += rows
        self.counts["documents"] += rows

    # -- pass 1: sign and spill ------------------------------------------------------------

    def _spill(self, docs: Iterable[tuple[str, str]], reference: bool) -> int:
        total = 0
        batch: list[tuple[str, str]] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= self.batch_size:
                total += self._write(batch, reference)
                batch = []
        if batch:
            total += self._write(batch, reference)
        self.counts["references" if reference else "documents"] += total
        return total

    def _write(self, batch: list[tuple[str, str]], reference: bool) -> int:
        ids = [doc_id for doc_id, _ in batch]
        texts = [normalize_once(text) for _, text in batch]
        digests = [hashlib.blake2b(t.encode("utf-8"), digest_size=16).digest() for t in texts]
        sigs = self.hasher.sign(texts)
        keys = self._band_keys(sigs)
        part = f"{self._parts:06d}"
        self._parts += 1
        seq = np.arange(self._rows, self._rows + len(ids), dtype=np.int64)
        self._rows += len(ids)
        with open(self.work_dir / "signatures.bin", "ab") as handle:
            handle.write(np.ascontiguousarray(sigs, dtype=np.uint32).tobytes())
        pq.write_table(pa.table({
            "seq": pa.array(seq),
            "id": pa.array(ids, pa.string()),
            "ref": pa.array([reference] * len(ids), pa.bool_()),
            "digest": pa.array(digests, pa.binary(16)),
        }), self.work_dir / f"docs-{part}.parquet")
        # Band-major, one row group per band: a query for one band reads only its row groups.
        pq.write_table(pa.table({
            "seq": pa.array(np.tile(seq, self.bands)),
            "band": pa.array(np.repeat(np.arange(self.bands, dtype=np.int16), len(ids))),
            "hash": pa.array(np.ascontiguousarray(keys.T).reshape(-1).view(np.int64)),
        }), self.work_dir / f"bands-{part}.parquet", row_group_size=len(ids))
        return len(ids)

    def _band_keys(self, sigs: np.ndarray) -> np.ndarray:
        used = sigs[:, :self.bands * self.rows].astype(np.uint64).reshape(len(sigs), self.bands, self.rows)
        with np.errstate(over="ignore"):
            keys = (used * self._band_mult).sum(axis=2, dtype=np.uint64)
            keys += np.arange(self.bands, dtype=np.uint64)
            return _mix(keys)

    # -- pass 2: groups and candidates in DuckDB, then the greedy pass -----------------------

    def _resolve(self) -> Iterator[Duplicate]:
        with bounded_duck(self.memory_limit, self.threads, str(self.work_dir / "dedup.duckdb"),
                          self.work_dir / "spill") as con:
            try:
                yield from self._exact(con)
                references = self.counts["references"]
                self._rank_signatures(con)
                self._candidates(con, references)
                decided = self._greedy(con)
                # Ids join the decided pairs last, one join per statement: only the duplicates carry
                # strings through DuckDB, never the candidates.
                con.execute(f"""
                    CREATE TABLE named AS
                    SELECT d.*, l.id AS later_id FROM read_parquet('{decided}') d JOIN docs l ON l.ord = d.later""")
                for batch in _batches(con, """
                        SELECT n.later_id, e.id AS earlier_id, n.similarity, n.earlier < $refs AS earlier_ref
                        FROM named n JOIN docs e ON e.ord = n.earlier ORDER BY n.later""", {"refs": references}):
                    for later_id, earlier_id, sim, earlier_ref in zip(*(c.to_pylist() for c in batch.columns),
                                                                      strict=True):
                        yield Duplicate(later_id, earlier_id, "near", sim, earlier_ref)
            except (duckdb.OutOfMemoryException, OSError) as exc:
                # A streamed result reports DuckDB's out-of-memory error through pyarrow, as an OSError.
                if not isinstance(exc, duckdb.OutOfMemoryException) and "Out of Memory" not in str(exc):
                    raise
                raise DedupMemoryError(
                    f"dedup needs more memory than its DuckDB limit of {self.memory_limit} for "
                    f"{self.counts['documents'] + self.counts['references']} texts; raise the setting "
                    f"dedup.memory_limit (doubling it is a good first step)") from None

    def _exact(self, con) -> Iterator[Duplicate]:
        """Rank the documents (references first, then by id; rank 0 first) and yield the exact
        duplicates: everything after the first of its digest group."""
        docs = self.work_dir / "docs-*.parquet"
        con.execute(f"""
            CREATE TABLE docs AS
            SELECT seq, id, ref, digest, row_number() OVER (ORDER BY ref DESC, id) - 1 AS ord
            FROM read_parquet('{docs}')""")
        clash = con.sql("SELECT id FROM docs GROUP BY id, ref HAVING count(*) > 1 LIMIT 1").fetchall()
        if clash:
            raise ValueError(f"document id {clash[0][0]!r} occurs more than once; ids must be unique")
        # One flag per rank: the documents dropped so far (a byte each, whatever the text sizes).
        self._dropped = np.zeros(self._rows, dtype=bool)
        con.execute("""
            CREATE TABLE exact AS
            SELECT d.ord, d.id, f.id AS first_id, f.ref AS first_ref
            FROM docs d JOIN (SELECT digest, min(ord) AS first FROM docs GROUP BY digest) g USING (digest)
            JOIN docs f ON f.ord = g.first
            WHERE d.ord > g.first AND NOT d.ref""")
        for batch in _batches(con, "SELECT ord, id, first_id, first_ref FROM exact ORDER BY ord"):
            self._dropped[batch.column("ord").to_numpy()] = True
            for doc_id, first_id, first_ref in zip(*(batch.column(i).to_pylist() for i in (1, 2, 3)), strict=True):
                yield Duplicate(doc_id, first_id, "exact", 1.0, first_ref)

    def _rank_signatures(self, con) -> None:
        """Rewrite the signature file in rank order, so the candidates (ranks) read theirs directly."""
        written = self.work_dir / "signatures.bin"
        with _SignatureFile(written, self.num_perm) as signatures, \
                open(self.work_dir / "ranked.bin", "wb") as ranked:
            for batch in _batches(con, "SELECT seq FROM docs ORDER BY ord"):
                ranked.write(signatures.rows(batch.column(0).to_numpy()).tobytes())
        written.unlink()

    def _candidates(self, con, references: int) -> None:
        """Pairs of ranks (earlier, later) sharing a band key, band by band, the later one not a
        reference and neither an exact duplicate. A pair sharing several bands is listed once per
        band; the greedy pass skips the repeats. Band keys held by one document only (most of
        them) are left out before the self-join."""
        bands = self.work_dir / "bands-*.parquet"
        con.execute("CREATE TABLE candidates (earlier BIGINT, later BIGINT)")
        for band in range(self.bands):
            con.execute(f"""
                CREATE TEMP TABLE live AS
                SELECT b.hash, d.ord
                FROM read_parquet('{bands}') b
                SEMI JOIN (SELECT hash FROM read_parquet('{bands}') WHERE band = $band
                           GROUP BY hash HAVING count(*) > 1) shared USING (hash)
                JOIN docs d USING (seq)
                ANTI JOIN exact e ON e.ord = d.ord
                WHERE b.band = $band""", {"band": band})
            con.execute("""
                INSERT INTO candidates
                SELECT x.ord, y.ord FROM live x JOIN live y ON x.hash = y.hash AND x.ord < y.ord
                WHERE y.ord >= $refs""", {"refs": references})
            con.execute("DROP TABLE live")

    def _greedy(self, con) -> Path:
        """In rank order, a later document is a duplicate of the first earlier candidate that is
        similar enough and not itself dropped. Writes the decided pairs to Parquet."""
        dropped = self._dropped
        out = self.work_dir / "decided.parquet"
        schema = pa.schema([("later", pa.int64()), ("earlier", pa.int64()), ("similarity", pa.float64())])
        previous = (-1, -1)
        current, decided = -1, False
        with _SignatureFile(self.work_dir / "ranked.bin", self.num_perm) as signatures, \
                pq.ParquetWriter(out, schema) as writer:
            for batch in _batches(con, "SELECT later, earlier FROM candidates ORDER BY later, earlier"):
                later, earlier = batch.column(0).to_numpy(), batch.column(1).to_numpy()
                if not len(later):
                    continue
                # A pair listed by several bands comes in a run: keep its first row.
                repeat = np.empty(len(later), dtype=bool)
                repeat[0] = (later[0], earlier[0]) == previous
                repeat[1:] = (later[1:] == later[:-1]) & (earlier[1:] == earlier[:-1])
                previous = (int(later[-1]), int(earlier[-1]))
                later, earlier = later[~repeat], earlier[~repeat]
                self.counts["candidates"] += len(later)  # distinct candidate pairs
                similarity = estimate_similarity(signatures.rows(later), signatures.rows(earlier))
                close = similarity >= self.threshold
                found = ([], [], [])
                for l, e, sim in zip(later[close].tolist(), earlier[close].tolist(), similarity[close].tolist(),
                                     strict=True):
                    if l != current:
                        current, decided = l, False
                    if decided or dropped[e]:
                        continue
                    decided = True
                    dropped[l] = True
                    for column, value in zip(found, (l, e, sim), strict=True):
                        column.append(value)
                if found[0]:
                    writer.write_table(pa.table(dict(zip(schema.names, found, strict=True)), schema=schema))
        return out


class DedupMemoryError(ValueError):
    """The grouping queries did not fit the memory limit; the message names the setting to raise."""


def _batches(con, query: str, params: dict | None = None, rows: int = 8_192) -> Iterator[pa.RecordBatch]:
    """A query's result in record batches, streamed (DuckDB sorts and joins beyond memory on disk)."""
    yield from con.sql(query, params=params).to_arrow_reader(rows)


class _SignatureFile:
    """The signatures in the order they were written, read back by row with ``pread``: the file is
    not mapped, so reading it costs the rows asked for, not the file's size, in resident memory."""

    def __init__(self, path: Path, num_perm: int):
        self.path, self.width = path, num_perm * 4
        self.num_perm = num_perm

    def __enter__(self) -> "_SignatureFile":
        self.fd = os.open(self.path, os.O_RDONLY)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)

    def rows(self, seqs: np.ndarray) -> np.ndarray:
        unique, inverse = np.unique(seqs, return_inverse=True)
        width, fd = self.width, self.fd
        data = b"".join([os.pread(fd, width, int(s) * width) for s in unique.tolist()])
        return np.frombuffer(data, dtype=np.uint32).reshape(-1, self.num_perm)[inverse]


@value_cache
def field_key(*fields: str) -> bytes:
    """What field-matching dedup compares: each field normalised with punctuation removed."""
    parts = ("".join(ch for ch in normalize(f) if not unicodedata.category(ch).startswith("P")) for f in fields)
    return hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=16).digest()


class FieldDeduplicator:
    """Field-matching dedup (as in WenMind): records whose fields (for items, question and answer)
    are equal after normalisation and with punctuation removed are one; the smallest id survives,
    and references (earlier releases) always do."""

    def __init__(self) -> None:
        self._first: dict[bytes, tuple[str, bool]] = {}

    def add_references(self, records: Iterable[tuple[str, Sequence[str]]]) -> int:
        count = 0
        for record_id, fields in records:
            self._first.setdefault(field_key(*fields), (record_id, True))
            count += 1
        return count

    def find(self, records: Iterable[tuple[str, Sequence[str]]]) -> Iterator[Duplicate]:
        for record_id, fields in sorted(records, key=lambda r: r[0]):
            key = field_key(*fields)
            first = self._first.setdefault(key, (record_id, False))
            if first[0] != record_id or first[1]:
                yield Duplicate(record_id, first[0], "field", 1.0, first[1])
