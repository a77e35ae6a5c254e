"""Parse + extract throughput on a realistic ~80 KB Baidu Baike page, every backend side by side in one run.

    python -m bench.parse_bench [--rounds 7] [--seconds 1.0]

The peer: a plain selectolax extraction, the same page's record taken with CSS selectors
written straight against lexbor's tree (``peer_baidu`` below), the way a scraper written for
this one layout would do it, with one selector per region. It runs inside the same
:func:`crawlers.parsers.parse` as the backends (decoding, layout detection, hashing and the
readable-text pass are the same work for every contender), so only the tree and the extraction
differ. Every backend must give the peer's record, and the peer's record must be the lxml
backend's; the run fails otherwise. Reports the median pages/s over rounds, interleaved, and
each backend's ratio to the peer.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from bench.machine import cpu_reference, machine_line
from bench.pages import realistic_page
from crawlers.mirror.site import Site
from crawlers.parsers import layouts, parse, tree
from crawlers.parsers.text import CONTROL_WORDS, clean_name, clean_text, split_values
from crawlers.urls import canonicalize
from schemas import InfoboxEntry

PEER = "selectolax CSS (peer)"
BACKENDS = ["selectolax", "lxml", "bs4"]

# --- the peer: selectolax with CSS selectors, written for the current Baidu layout ----------------

_NOISE = ("script, style, sup, noscript, [class*=sup-anchor], [class*=edit], [class*=mw-editsection], "
          "[class*=audio], [class*=lemma-audio], [class*=reference], .lemma-picture, .lemma-album, .text_img, "
          "[class*=lemmaPicture], [class*=lemmaAlbum]")


def _text(node) -> str:
    return clean_text(tree.readable(node.text(deep=True, separator="", strip=False))) if node is not None else ""


def _strip_noise(region) -> None:
    for el in region.css(_NOISE):
        el.decompose()
    for a in region.css("a"):
        if tree.readable(a.text()).strip() in CONTROL_WORDS:
            a.decompose()


def _in_table(el, region) -> bool:
    stop, el = region.mem_id, el.parent
    while el is not None and el.mem_id != stop:
        if el.tag == "table":
            return True
        el = el.parent
    return False


def _row(tr) -> str:
    texts = [_text(c) for c in tr.iter() if c.tag in ("th", "td") and c.css_first("table") is None]
    return layouts.CELL_SEPARATOR.join(t for t in texts if t)


def _infobox(info) -> list[InfoboxEntry]:
    entries = []
    for dt in info.css("dt"):
        dd = dt.next
        while dd is not None and dd.tag != "dd":
            dd = dd.next
        name = clean_name(tree.readable(dt.text()))
        if dd is None or not name:
            continue
        anchors = [tree.readable(a.text()) for a in dd.css("a")]
        spaced = len(anchors) > 1 and re.fullmatch(
            r"\s*" + r"\s+".join(re.escape(a.strip()) for a in anchors) + r"\s*", tree.readable(dd.text()))
        link_texts = [clean_text(a) for a in anchors] if spaced else None
        for br in dd.css("br"):
            br.replace_with("\n")
        lines = [line for line in (clean_text(p) for p in tree.readable(dd.text()).split("\n")) if line]
        if len(lines) > 1:
            entries.append(InfoboxEntry(name=name, value="\n".join(lines),
                                        values=[v for line in lines for v in split_values(line)]))
        else:
            value = lines[0] if lines else ""
            entries.append(InfoboxEntry(name=name, value=value, values=split_values(value, link_texts)))
    return entries


def _links(roots, url: str) -> list[dict]:
    hosts = {urlsplit(url).netloc.lower(), *layouts.SITE_HOSTS["baidu"]}
    links, seen = [], set()
    for root in roots:
        for a in root.css("a[href]"):
            href = tree.readable(a.attributes.get("href") or "")
            if not href:
                continue
            absolute = urljoin(url, href.strip())
            if urlsplit(absolute).netloc.lower() not in hosts:
                continue
            match = layouts.BAIDU_ENTRY.match(urlsplit(absolute).path)
            if not match:
                continue
            target = canonicalize(absolute)
            title = layouts._baidu_title(None, layouts.unquote(match.group(1)).replace("_", " "))
            if target in seen or not title:
                continue
            seen.add(target)
            links.append({"title": title, "url": target})
    return links


def peer_baidu(doc: LexborHTMLParser, url: str) -> dict:
    """The record of a current-layout Baidu page, as a scraper written with CSS selectors takes it."""
    title_box = doc.css_first(".J-lemma-title")
    summary_el, info_el = doc.css_first(".J-summary"), doc.css_first(".J-basic-info")
    content_el, poly = doc.css_first(".J-lemma-content"), doc.css_first("[class*=polysemantList]")
    title_el = title_box if title_box is not None and title_box.tag == "h1" else (
        title_box.css_first("h1") if title_box is not None else None)
    desc = None
    if title_box is not None and title_box.tag != "h1":
        desc = title_box.css_first("[class*=lemmaDesc], h2")
    if desc is None and title_box is not None:
        desc = doc.css_first("[id=lemmaDesc], [class*=lemmaDesc]")
    subtitle = _text(desc).strip("（）()").strip() if desc is not None else ""
    for el in (summary_el, info_el, content_el):
        if el is not None:
            _strip_noise(el)
    summary = ""
    if summary_el is not None:
        parts = [t for t in (_text(p) for p in summary_el.css("[data-tag=paragraph]")) if t]
        summary = " ".join(parts) or _text(summary_el)
    paragraphs, blocks = [], []
    if content_el is not None:
        for el in content_el.css("table, div[data-tag=paragraph]"):
            if _in_table(el, content_el):
                continue
            if el.tag == "table":
                blocks.append(el)
                paragraphs += [t for t in (_row(tr) for tr in el.css("tr")) if t]
            elif el.css_first("table") is None:
                text = _text(el)
                if text:
                    blocks.append(el)
                    paragraphs.append(text)
    links = _links([el for el in (summary_el, info_el) if el is not None] + blocks, url)
    tags = [t for t in (_text(a) for a in doc.css("[class*=tagList] a")) if t]
    senses = []
    if poly is not None:
        for li in poly.css("li"):
            a = li.css_first("a[href]")
            label = _text(li).lstrip("▪•· ").strip()
            if a is not None:
                senses.append({"label": label, "url": canonicalize(urljoin(url, a.attributes["href"]))})
            elif label:
                senses.append({"label": label, "url": canonicalize(url)})
    return dict(title=_text(title_el), subtitle=subtitle, summary=summary, paragraphs=paragraphs,
                infobox=_infobox(info_el) if info_el is not None else [], links=links, senses=senses, tags=tags)


def _with_peer():
    """The peer as a backend of parse(), for this run only: lexbor's parser, then peer_baidu."""
    original = layouts.LAYOUTS["baidu"]

    def baidu(root, url):
        return peer_baidu(root, url) if isinstance(root, LexborHTMLParser) else original(root, url)

    tree.BACKENDS[PEER] = LexborHTMLParser
    layouts.LAYOUTS["baidu"] = baidu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per backend per round")
    args = parser.parse_args(argv)

    reference = cpu_reference()
    body, url = realistic_page(Site(faults=False))
    _with_peer()
    contenders = [PEER] + BACKENDS
    records = {b: parse(body, url, backend=b).to_row() for b in contenders}
    for b in contenders:
        if records[b] != records["lxml"]:
            print(f"{b} gives a different record from the lxml backend's", file=sys.stderr)
            return 1
    if records["lxml"]["status"] != "ok" or not records["lxml"]["paragraphs"]:
        print(f"the bench page gives no record (status {records['lxml']['status']})", file=sys.stderr)
        return 1
    rates: dict[str, list[float]] = {b: [] for b in contenders}
    for _ in range(args.rounds):
        for b in contenders:  # interleaved, so a noisy moment hits every contender alike
            count, start = 0, time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                parse(body, url, backend=b)
                count += 1
            rates[b].append(count / (time.perf_counter() - start))
    peer = statistics.median(rates[PEER])
    record = records["lxml"]
    print(machine_line(reference))
    print(f"page: {len(body) / 1000:.1f} KB, {len(record['infobox'])} infobox rows, {len(record['paragraphs'])} "
          f"paragraphs, {len(record['links'])} entry links; {args.rounds} rounds of {args.seconds:.1f} s; "
          "records identical")
    print(f"{'backend':<24}{'median pages/s':>16}{'min':>9}{'max':>9}{'vs peer':>10}")
    for b in contenders:
        median = statistics.median(rates[b])
        print(f"{b:<24}{median:>16.1f}{min(rates[b]):>9.1f}{max(rates[b]):>9.1f}{median / peer:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
