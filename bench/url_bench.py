"""Entry URLs of real data: how many canonicalize to a clean entry URL, why the rest do not, and speed.

    python -m bench.url_bench [--file ../shared/data/chinese_simpleqa.jsonl] [--rounds 5] [--write-unclean]

Reads the 3,000 questions of Chinese SimpleQA (repository OpenStellarTeam/ChineseSimpleQA, file
data/chinese_simpleqa.jsonl), splits every ``urls`` field with :func:`crawlers.urls.split_urls`, and
keeps the URLs on a host of Baidu Baike, Sogou Baike or zh-Wikipedia (``site_of``; other services of
the same domains, such as zhidao.baidu.com or en.wikipedia.org, are counted and left out).

A URL is clean when its canonical URL ``c`` names an entry (``entry``), is a fixed point
(``canonicalize(c) == c``) and is the public site's URL (``public_url(c, site) == c``). Printed: the
total, the clean share now and with the canonicalize this module replaced (the baseline, kept below
as it was), the rest by reason with examples, the distinct URLs before and after, the false merges
(URLs of one canonical URL whose titles or ids, read from the raw URL independently of the module,
differ) and the missed merges (one title or id, several canonical URLs), and the time per URL of
both functions, uncached. Every URL that is not clean must have a row, with the same reason, in
``bench/data/urls/unclean.tsv``; ``--write-unclean`` rewrites that file from the notes below.

Exit status 1 when a URL that is not clean has no row (or another reason), a row is clean now, a
false merge is found, or the clean share of the URLs that name an entry is under the target; when
the data file is not there, says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import quote, unquote, unquote_plus, urlsplit

from crawlers.urls import canonicalize, entry, public_url, reject_reason, site_of, split_urls

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT.parent / "shared" / "data" / "chinese_simpleqa.jsonl"
UNCLEAN = Path(__file__).resolve().parent / "data" / "urls" / "unclean.tsv"
TARGET = 0.99  # clean share of the URLs that name an entry

# Why a page that is no entry is cited, by reason and the start of its path (or its namespace).
NOTES = {
    ("not_entry", "/tashuo/"): "Baidu 他说: a user's post about an entry, not the entry",
    ("not_entry", "/tashuolist/"): "Baidu 他说 list: the posts about an entry, not the entry",
    ("not_entry", "/link"): "Baidu redirect link (opaque ?url= token): only the site knows the entry it leads to",
    ("not_entry", "/planet/"): "Baidu 百科星球: a community article, not an entry",
    ("not_entry", "/starmap/"): "Baidu 星图: a knowledge-graph view, not an entry",
    ("not_entry", "/minilemma/"): "Baidu 秒懂 mini entry: a card about an entry, not the entry page",
    ("not_entry", "/platform/"): "Baidu film-review page of an entry, not the entry",
    ("namespace", "template"): "Wikipedia template (a navigation box), not an article",
    ("namespace", "user"): "Wikipedia user page or sandbox draft, not an article",
    ("namespace", "file"): "Wikipedia file description page, not an article",
    ("namespace", "draft"): "Wikipedia draft, not an article",
    ("namespace", "portal"): "Wikipedia portal subpage, not an article",
}
_NOTE_HEADER = """\
# The Baidu Baike, Sogou Baike and zh-Wikipedia URLs in Chinese SimpleQA (OpenStellarTeam/ChineseSimpleQA,
# data/chinese_simpleqa.jsonl, field urls) that do not canonicalize to a clean entry URL, each with the
# reason crawlers.urls.reject_reason gives and a note on what the page is, written after reading them.
# bench/url_bench.py checks that every such URL has a row here with that reason and that every row
# is still not clean; `python -m bench.url_bench --write-unclean` rewrites the file from its NOTES.
# Lines starting with # are comments. Columns, tab-separated:
"""


def load_fields(path: Path) -> list[str]:
    """Every element of every ``urls`` field (a list of strings, or one string)."""
    fields = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                urls = json.loads(line).get("urls") or []
                fields.extend([urls] if isinstance(urls, str) else [u for u in urls if isinstance(u, str)])
    return fields


def is_clean(url: str, canon=canonicalize) -> bool:
    """The canonical URL of ``url`` under ``canon`` is a public entry URL and a fixed point."""
    canonical = canon(url)
    found = entry(canonical)
    return (found is not None and found.url == canonical and canon(canonical) == canonical
            and public_url(canonical, found.site) == canonical)


def note_key(url: str, reason: str) -> tuple[str, str]:
    path = urlsplit(canonicalize(url)).path
    if reason == "namespace":
        return reason, unquote(path.removeprefix("/wiki/")).partition(":")[0].lower()
    for prefix in ("/tashuolist/", "/tashuo/", "/link", "/planet/", "/starmap/", "/minilemma/", "/platform/"):
        if path.startswith(prefix):
            return reason, prefix
    return reason, path


def load_unclean(path: Path = UNCLEAN) -> dict[str, tuple[str, str]]:
    """url -> (reason, note), from the tab-separated table after its header line."""
    rows: dict[str, tuple[str, str]] = {}
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != 3 or not fields[2].strip():
            raise ValueError(f"{path}: row {number} needs 3 tab-separated fields and a note: {line!r}")
        rows[fields[0]] = (fields[1], fields[2])
    return rows


def write_unclean(unclean: dict[str, str], path: Path = UNCLEAN) -> list[str]:
    """Rewrite the table from NOTES; returns the URLs that have no note (and are not written)."""
    lines, missing = [], []
    for url in sorted(unclean):
        note = NOTES.get(note_key(url, unclean[url]))
        if note is None:
            missing.append(url)
        else:
            lines.append(f"{url}\t{unclean[url]}\t{note}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_NOTE_HEADER + "url\treason\tnote\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return missing


def independent_key(url: str) -> tuple | None:
    """The entry a raw URL names, read with plain regular expressions (no crawlers.urls): Sogou's id,
    Baidu's title and id, or Wikipedia's title. None when the URL shows none of them."""
    match = re.search(r"sogou\.com/(?:m/)?v(\d+)\.htm", url) or re.search(r"[?&](?:lid|lemmaId)=(\d+)", url)
    if match and "sogou" in url:
        return "sogou", int(match.group(1))
    match = re.search(r"baidu\.(?:com|hk)/item/([^?#]+)", url)
    if match:
        parts = [p for p in match.group(1).split("/") if p]
        lemma_id = int(parts.pop()) if len(parts) > 1 and parts[-1].isdigit() else 0
        return "baidu", unquote("/".join(parts)), lemma_id or None
    match = re.search(r"[?&]title=([^&#]+)", url) if "index.php" in url else None
    title = unquote_plus(match.group(1)) if match else None
    if title is None:
        match = re.search(r"wikipedia\.org/(?:wiki|zh|zh-[a-z]+)/([^?#]+)", url)
        if not match:
            match = re.search(r"translate\.goog/(?:wiki|zh|zh-[a-z]+)/([^?#]+)", url)
        title = unquote(match.group(1)) if match else None
    if title is not None:
        return "wikipedia", " ".join(title.replace("_", " ").split()).rstrip("/")
    return None


def merges(urls: list[str], canon=canonicalize) -> tuple[dict[str, set], dict[tuple, set]]:
    """(canonical URL -> its raw URLs' keys, where they differ; key -> its canonical URLs, where several)."""
    keys_by_url: dict[str, set] = defaultdict(set)
    urls_by_key: dict[tuple, set] = defaultdict(set)
    for url in urls:
        key = independent_key(url)
        if key is None:
            continue
        canonical = canon(url)
        keys_by_url[canonical].add(key)
        urls_by_key[key].add(canonical)
    false = {u: k for u, k in keys_by_url.items() if len(k) > 1}
    missed = {k: u for k, u in urls_by_key.items() if len(u) > 1}
    return false, missed


def timing(urls: list[str], functions: dict[str, object], rounds: int) -> dict[str, float]:
    """Best microseconds per URL of each function over ``rounds`` passes, interleaved."""
    best = {name: float("inf") for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            start = time.perf_counter()
            for url in urls:
                function(url)
            best[name] = min(best[name], (time.perf_counter() - start) / len(urls) * 1e6)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--rounds", type=int, default=5, help="timing passes over the URLs")
    parser.add_argument("--write-unclean", action="store_true", help=f"rewrite {UNCLEAN.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        print(f"no data at {args.file}: nothing to measure (get data/chinese_simpleqa.jsonl of "
              "OpenStellarTeam/ChineseSimpleQA and pass --file)")
        return 0

    fields = load_fields(args.file)
    split = [u for f in fields for u in split_urls(f)]
    urls = [u for u in split if site_of(u)]
    left_out = Counter(urlsplit(canonicalize(u)).netloc for u in split if reject_reason(u) == "other_service")
    clean = [u for u in urls if is_clean(u)]
    unclean = {u: reject_reason(u) or "not_clean" for u in urls if not is_clean(u)}
    naming = [u for u in urls if entry(u) is not None]
    baseline_clean = sum(is_clean(u, baseline_canonicalize) for u in urls)
    raw_elements = [f for f in fields if any(site_of(u) for u in split_urls(f))]
    raw_clean = sum(is_clean(f, baseline_canonicalize) for f in raw_elements)

    print(f"{len(fields)} urls elements in {args.file.name}, {len(split)} URLs after split_urls; "
          f"{len(urls)} on Baidu Baike, Sogou Baike or zh-Wikipedia hosts "
          f"({', '.join(f'{n} {s}' for s, n in Counter(site_of(u) for u in urls).most_common())})")
    if left_out:
        print(f"left out, other services of those domains: {sum(left_out.values())} "
              f"({', '.join(f'{h} {n}' for h, n in left_out.most_common())})")
    print(f"clean now:       {len(clean)} / {len(urls)} = {len(clean) / len(urls):.2%}")
    print(f"clean, baseline: {baseline_clean} / {len(urls)} = {baseline_clean / len(urls):.2%} "
          f"(the canonicalize replaced, on the same split URLs); "
          f"{raw_clean} / {len(raw_elements)} = {raw_clean / len(raw_elements):.2%} on the elements that hold "
          f"such URLs, unsplit")
    named_clean = sum(1 for u in naming if is_clean(u))
    print(f"URLs that name an entry: {len(naming)}, clean {named_clean} = {named_clean / len(naming):.2%} "
          f"(target {TARGET:.0%}); the other {len(urls) - len(naming)} name none:")
    by_reason: dict[str, list[str]] = defaultdict(list)
    for url in urls:
        if url in unclean:
            by_reason[unclean[url]].append(url)
    for reason, group in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        kinds = Counter(note_key(u, reason)[1] for u in group)
        print(f"  {reason:<12}{len(group):>5}  " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
        for url in list(dict.fromkeys(group))[:3]:
            print(f"      {url[:120]}")

    print(f"distinct URLs: {len(set(urls))} as split, {len({baseline_canonicalize(u) for u in urls})} baseline "
          f"canonical, {len({canonicalize(u) for u in urls})} canonical now "
          f"({len({canonicalize(u) for u in clean})} entries)")
    for name, canon in (("baseline", baseline_canonicalize), ("now", canonicalize)):
        false, missed = merges(urls, canon)
        print(f"{name + ':':<10}false merges (one canonical URL, different titles or ids in the raw URLs) "
              f"{len(false)} ({sum(len(k) for k in false.values())} entries); "
              f"missed merges (one title or id, several canonical URLs) {len(missed)}")
        for url, keys in list(false.items())[:2]:
            print(f"      {url}: {len(keys)} entries, e.g. {sorted(map(str, keys))[:2]}")
        for key, canonical in list(missed.items())[:2]:
            print(f"      {key}: {sorted(canonical)}")

    micros = timing(urls, {"baseline": baseline_canonicalize, "now": canonicalize.__wrapped__}, args.rounds)
    canonicalize.cache_clear()
    cached = timing(urls, {"cached": canonicalize}, args.rounds)["cached"]
    print(f"canonicalize, uncached, best of {args.rounds}: baseline {micros['baseline']:.2f} µs/URL, "
          f"now {micros['now']:.2f} µs/URL ({micros['now'] / micros['baseline']:.2f}x); cached {cached:.2f} µs/URL")

    failed = False
    if args.write_unclean:
        missing = write_unclean(unclean)
        print(f"wrote {UNCLEAN.relative_to(ROOT)}: {len(unclean) - len(missing)} rows (distinct URLs)")
        for url in missing:
            print(f"  no note for {unclean[url]} {note_key(url, unclean[url])[1]}: {url}")
        failed |= bool(missing)
    table = load_unclean() if UNCLEAN.is_file() else {}
    unexplained = [u for u, reason in unclean.items() if table.get(u, ("",))[0] != reason]
    stale = [u for u in table if u not in unclean]
    print(f"{UNCLEAN.relative_to(ROOT)}: {len(table)} rows (distinct URLs); unexplained {len(unexplained)}, "
          f"stale {len(stale)}")
    for url in unexplained[:10]:
        print(f"  unexplained ({unclean[url]}): {url}")
    for url in stale[:10]:
        print(f"  stale: {url}")
    false_now = merges(urls)[0]
    failed |= bool(unexplained or stale or false_now) or named_clean / len(naming) < TARGET
    return 1 if failed else 0


# The canonicalize that crawlers.urls had before, as it was, the baseline: query and fragment
# dropped, scheme and host kept (lower-cased), path encoded once, /zh-hans/-style paths as /wiki/.
_BASELINE_SAFE = "/()_-.~,:!*'"
_BASELINE_ITEM = re.compile(r"^/item/([^/]+)(/\d+)?/?$")
_BASELINE_VARIANT = re.compile(r"^/(?:zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg)/(.+)$")


def baseline_canonicalize(url: str) -> str:
    parts = urlsplit(url.strip())
    raw_path = parts.path
    if raw_path.startswith("/item/"):
        segments = raw_path.removeprefix("/item/").strip("/").split("/")
        path = "/item/" + "/".join(quote(unquote(s), safe="") for s in segments)
    else:
        path = quote(unquote(raw_path), safe=_BASELINE_SAFE)
    variant = _BASELINE_VARIANT.match(unquote(raw_path))
    if variant:
        path = "/wiki/" + quote(variant.group(1), safe=_BASELINE_SAFE)
    match = _BASELINE_ITEM.match(path)
    if match:
        path = f"/item/{match.group(1)}{match.group(2) or ''}"
    scheme = (parts.scheme or "http").lower()
    return f"{scheme}://{parts.netloc.lower()}{path}"


if __name__ == "__main__":
    sys.exit(main())
