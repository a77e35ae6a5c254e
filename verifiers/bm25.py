"""Exact BM25 top-k over a bm25s index, at a cost per query that does not grow with the corpus.

bm25s scores a query against every document (a dense array the size of the corpus) and selects
the top k with ``argpartition`` over it, so each query costs O(corpus). :meth:`BM25Index.top_k`
answers the same question from the postings of the query's rarest terms only (MaxScore pruning):

* a term's *bound* is the largest score it adds to any document (times its count in the query);
* the terms are taken in order of their bound, highest first, and the documents holding any of
  them scored exactly; once the k-th best of those beats the sum of the bounds of the terms not
  taken yet, no other document can reach the top k (even with every remaining term) and the
  search stops. An entity name's postings stay about as long however large the corpus grows;
  a common word's (年, 中国) grow with it but are rarely needed.

The answer is the one the previous per-query retrieval gave, to the last bit: each score is the
float32 sum of the same contributions in the same order (query token order) as bm25s's, and the
top k are ranked by (score descending, passage index), ties at the k-th place all considered.
When fewer than k passages share a word with the query, the previous procedure picked the rest
among passages of score 0 by bm25s's selection; that case runs bm25s's own scoring and selection
(:meth:`BM25Index._dense`), so the passages it picks are the ones it picked before.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from array import array
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

import numpy as np

# llama-index's BM25Retriever tokenised corpus and queries this way (bm25s.tokenize with English
# stop words, lower case, no stemming); the index and the queries must keep doing so.
TOKEN_PATTERN = r"(?u)\b\w+\b"

# The float32 sum of contributions can round above their exact sum; bounds are widened by this much.
_ROUNDING = 1e-4

INDEX_FORMAT = 1  # of the files BM25Index.save writes


def quiet_bm25s() -> None:
    """bm25s sets its logger to DEBUG when imported and reports each index it builds there; inside a flow,
    Prefect's root handler would print those lines on the user's terminal. Call after importing bm25s (or
    llama-index's BM25 retriever, which imports it)."""
    import bm25s

    logging.getLogger(bm25s.__name__).setLevel(logging.WARNING)


@functools.cache
def _stopwords() -> frozenset[str]:
    """bm25s's English stop words."""
    from bm25s.stopwords import STOPWORDS_EN

    quiet_bm25s()
    return frozenset(STOPWORDS_EN)


class _Tokenized(NamedTuple):
    ids: array  # every document's term ids, one after the other (4 bytes a token)
    ends: array  # where each document's ids end
    vocab: dict[str, int]


def _scores(tokenized: _Tokenized, model, block_tokens: int) -> dict:
    """The score matrix ``model.index`` builds (bm25s.BM25's ``scores``: the CSC arrays of each term's
    postings, float32 scores and int32 passage numbers), equal to the last bit, built without its copies.

    bm25s scores every posting in document order into three arrays of the corpus's postings (12 bytes a
    posting), then sorts them by term through scipy's COO to CSC conversion, which copies them again.
    Here the document frequencies are counted first; then the documents are scored a block of
    ``block_tokens`` tokens at a time, with the same float operations as bm25s's per-document loop
    (numpy >= 2's promotion rules), and each block's postings put straight into their place: 8 bytes a
    posting and a block's work. Blocks come in document order, so each term's postings are in passage
    order. Only the Lucene variant, bm25s's default, is built here."""
    from bm25s.scoring import _score_idf_lucene

    if (model.method, model.idf_method) != ("lucene", "lucene") or model.dtype != "float32" \
            or model.int_dtype != "int32":
        raise ValueError(f"only bm25s's default BM25 is built here, not {model.method}/{model.idf_method}")
    ids, ends = np.frombuffer(tokenized.ids, dtype=np.int32), np.frombuffer(tokenized.ends, dtype=np.int64)
    vocabulary = len(tokenized.vocab)
    lengths = np.diff(ends, prepend=0)
    average = lengths.mean() if len(lengths) else np.float64("nan")  # as bm25s: the mean of an int64 array
    k1, b = model.k1, model.b

    def blocks():
        """(first document, its documents' postings: document, term and count, by document then term)."""
        first = 0
        while first < len(lengths):
            last = int(np.searchsorted(ends, ends[first - 1] + block_tokens if first else block_tokens, "right"))
            last = max(last, first + 1)
            start = int(ends[first - 1]) if first else 0
            docs = np.repeat(np.arange(last - first, dtype=np.int64), lengths[first:last])
            keys, counts = np.unique(docs * vocabulary + ids[start:int(ends[last - 1])], return_counts=True)
            yield first, keys // vocabulary, keys % vocabulary, counts
            first = last

    frequency = np.zeros(vocabulary, dtype=np.int64)
    for _, _, terms, _ in blocks() if vocabulary else ():
        frequency += np.bincount(terms, minlength=vocabulary)
    idf = np.zeros(vocabulary, dtype=np.float32)
    n = len(lengths)
    for term, df in enumerate(frequency.tolist()):  # math.log, as bm25s (np.log may round otherwise)
        if df:
            idf[term] = _score_idf_lucene(df, N=n)
    postings = int(frequency.sum())
    indptr = np.zeros(vocabulary + 1, dtype=np.int64)  # as scipy's csc_matrix gives bm25s
    np.cumsum(frequency, out=indptr[1:])
    data, indices = np.empty(postings, dtype=np.float32), np.empty(postings, dtype=np.int32)
    heads = indptr[:-1].astype(np.int64)
    for first, docs, terms, counts in blocks() if vocabulary else ():
        if not len(terms):
            continue  # a block of empty documents
        tf = counts.astype(np.float32)
        tfc = tf / (k1 * ((1 - b) + b * lengths[first + docs] / average) + tf)  # bm25s's _score_tfc_robertson
        scores = (idf[terms] * tfc).astype(np.float32)
        order = np.lexsort((docs, terms))
        terms, docs, scores = terms[order], docs[order], scores[order]
        starts = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])
        group = np.repeat(starts, np.diff(np.r_[starts, len(terms)]))
        at = heads[terms] + (np.arange(len(terms)) - group)
        data[at], indices[at] = scores, first + docs
        heads[terms[starts]] += np.diff(np.r_[starts, len(terms)])
    return {"data": data, "indices": indices, "indptr": indptr, "num_docs": n}


class BM25Index:
    """bm25s's BM25 (Lucene variant, its defaults) over documents already split into words by spaces.

    :meth:`save` writes it to a directory and :meth:`open` answers from there without building it again:
    its postings memory-mapped (a query reads the pages of its own terms' postings), the vocabulary read
    into a dict."""

    def __init__(self, texts: Iterable[str], block_tokens: int = 1 << 18):
        import bm25s

        tokenized = self._tokenized(texts)
        model = bm25s.BM25()
        scores = _scores(tokenized, model, block_tokens)
        vocab = tokenized.vocab
        del tokenized
        vocab.setdefault("", len(vocab))  # as bm25s.BM25.index adds it
        self._setup(model, scores, vocab)

    def _setup(self, model, scores: dict, vocab: dict[str, int], bound: np.ndarray | None = None,
               prunable: bool | None = None) -> None:
        model.scores = scores
        model.vocab_dict = vocab
        model.nonoccurrence_array = None  # Lucene's BM25 has none
        self._bm25 = model
        self.size = int(scores["num_docs"])
        self.vocab: dict[str, int] = vocab
        # Each term's postings are in passage order, as searchsorted needs (see _scores); the same arrays
        # bm25s answers from (4-byte passage numbers), not copies.
        data, indices, indptr = (scores[name] for name in ("data", "indices", "indptr"))
        self._data, self._indices, self._indptr = data, indices, indptr
        if bound is None:
            lengths = np.diff(indptr)
            bound = np.zeros(len(lengths))
            starts = indptr[:-1][lengths > 0]
            if len(starts):
                bound[lengths > 0] = np.maximum.reduceat(data, starts).astype(np.float64)
        self._bound = bound
        # Pruning relies on every posting adding a positive score (Lucene's idf is positive); a variant
        # without that property is answered by bm25s alone.
        self._prunable = bool(np.all(data > 0)) if prunable is None else prunable

    def save(self, directory: Path) -> None:
        """Writes the index into ``directory`` (which must exist): its arrays as .npy files, its vocabulary as
        UTF-8 text, one term a line in id order (a term is a run of word characters: no line breaks), and
        ``index.json`` last."""
        directory = Path(directory)
        for name, values in (("data", self._data), ("indices", self._indices), ("indptr", self._indptr),
                             ("bound", self._bound)):
            np.save(directory / f"{name}.npy", np.asarray(values), allow_pickle=False)
        terms = sorted(self.vocab, key=self.vocab.__getitem__)
        if [self.vocab[t] for t in terms] != list(range(len(terms))):
            raise ValueError("the vocabulary's ids are not 0..n-1")
        (directory / "vocab.txt").write_text("\n".join(terms), encoding="utf-8")
        (directory / "index.json").write_text(json.dumps(
            {"format": INDEX_FORMAT, "documents": self.size, "terms": len(terms), "columns": len(self._bound),
             "postings": int(len(self._data)), "prunable": self._prunable}), encoding="utf-8")

    @classmethod
    def open(cls, directory: Path) -> "BM25Index":
        """The index :meth:`save` wrote into ``directory``; ValueError when it is not one, or not whole."""
        import bm25s

        directory = Path(directory)
        try:
            meta = json.loads((directory / "index.json").read_text(encoding="utf-8"))
            if meta.get("format") != INDEX_FORMAT:
                raise ValueError(f"format {meta.get('format')!r}, not {INDEX_FORMAT}")
            arrays = {name: np.load(directory / f"{name}.npy", mmap_mode="r", allow_pickle=False)
                      for name in ("data", "indices", "indptr", "bound")}
            terms = (directory / "vocab.txt").read_text(encoding="utf-8").split("\n")
            data, indices, indptr, bound = (arrays[n] for n in ("data", "indices", "indptr", "bound"))
            expected = {"data": (np.float32, meta["postings"]), "indices": (np.int32, meta["postings"]),
                        "indptr": (np.int64, meta["columns"] + 1), "bound": (np.float64, meta["columns"])}
            documents, prunable = int(meta["documents"]), bool(meta["prunable"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{directory}: not a whole saved index ({error})") from error
        for name, (dtype, length) in expected.items():
            if arrays[name].dtype != dtype or arrays[name].shape != (length,):
                raise ValueError(f"{directory}: {name}.npy is {arrays[name].dtype}{arrays[name].shape}, "
                                 f"not {np.dtype(dtype)}({length},)")
        if len(terms) != meta["terms"] or int(indptr[-1]) != meta["postings"]:
            raise ValueError(f"{directory}: the vocabulary or the postings do not match index.json")
        index = cls.__new__(cls)
        index._setup(bm25s.BM25(), {"data": data, "indices": indices, "indptr": indptr, "num_docs": documents},
                     {term: i for i, term in enumerate(terms)}, bound, prunable)
        return index

    _split = staticmethod(re.compile(TOKEN_PATTERN).findall)

    def _tokenized(self, texts: Iterable[str]) -> "_Tokenized":
        """What ``bm25s.tokenize(texts, stopwords="en", token_pattern=TOKEN_PATTERN)`` returns (the same ids,
        numbered in order of first appearance, and the same vocabulary), with every document's ids in one
        array of 4 bytes a token instead of a list of 8-byte references per document."""
        vocab: dict[str, int] = {}
        ids, ends = array("i"), array("q")
        for text in texts:
            ids.extend(vocab.setdefault(w, len(vocab)) for w in self._words(text))
            ends.append(len(ids))
        return _Tokenized(ids, ends, vocab)

    def tokens(self, text: str) -> list[int]:
        """The query's term ids, as bm25s.tokenize and BM25.get_tokens_ids give them (order and repeats kept)."""
        return [self.vocab[w] for w in self._words(text) if w in self.vocab]

    def _words(self, text: str) -> Iterator[str]:
        """The text's words as bm25s.tokenize splits them: lowercased, TOKEN_PATTERN, English stopwords out."""
        stopwords = _stopwords()
        return (w for w in self._split(text.lower()) if w not in stopwords)

    def top_k(self, ids: list[int], k: int) -> list[tuple[int, float]]:
        """(passage index, score) of the k best passages for the query's term ids, best first."""
        want = min(k, self.size)
        if want < 1:
            return []
        if self._prunable and ids:
            found = self._pruned(ids, k, want)
            if found is not None:
                return found
        return self._dense(ids, k, want)

    def _pruned(self, ids: list[int], k: int, want: int) -> list[tuple[int, float]] | None:
        terms, counts = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        bounds = self._bound[terms] * counts
        order = np.argsort(-bounds, kind="stable")
        docs = np.empty(0, dtype=np.int64)
        for taken in range(1, len(order) + 1):
            term = terms[order[taken - 1]]
            docs = np.union1d(docs, self._indices[self._indptr[term]:self._indptr[term + 1]])
            if len(docs) < want:
                continue
            scores = self._scores(ids, docs)
            kth = float(np.partition(scores, len(scores) - want)[len(scores) - want])
            rest = float(bounds[order[taken:]].sum())
            if rest * (1 + _ROUNDING) < kth:
                best = np.lexsort((docs, -scores))[:k]
                return [(int(docs[i]), float(scores[i])) for i in best]
        return None  # fewer than k passages share a word with the query

    def _scores(self, ids: list[int], docs: np.ndarray) -> np.ndarray:
        """bm25s's scores of ``docs``: float32 sums in query token order, as its np.add.at makes them."""
        total = np.zeros(len(docs), dtype=self._data.dtype)
        for term in ids:
            start, end = self._indptr[term], self._indptr[term + 1]
            posting = self._indices[start:end]
            at = np.minimum(np.searchsorted(posting, docs), len(posting) - 1)
            total += np.where(posting[at] == docs, self._data[start:end][at], 0).astype(total.dtype)
        return total

    def _dense(self, ids: list[int], k: int, want: int) -> list[tuple[int, float]]:
        """The previous retrieval itself: bm25s's dense scores and selection, asking for more results until
        every passage tied with the k-th is in, then ties broken by passage index."""
        from bm25s import selection

        scores = self._bm25.get_scores_from_ids(ids) if ids else np.zeros(self.size, dtype=self._bm25.dtype)
        while True:
            top, index = selection.topk(scores, want, backend="numpy", sorted=True)
            ranked = sorted((float(s) for s in top), reverse=True)
            if want == self.size or len(ranked) < want or ranked[-1] < ranked[k - 1] or not ranked[-1]:
                break
            want = min(2 * want, self.size)
        return [(i, -s) for s, i in sorted((-float(s), int(i)) for s, i in zip(top, index))[:k]]
