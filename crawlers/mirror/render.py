"""HTML for the mirror's pages, in the markup of the four real layouts.

Baidu Baike's current layout hashes its class names per build (``lemmaSummary_dh8Ks``)
and keeps a few stable hooks (``J-lemma-title``, ``J-summary``, ``J-basic-info``,
``J-lemma-content``, ``data-tag``); the renderer does the same, with the hash
derived from a build string so a new build changes every suffix.
"""

from __future__ import annotations

import hashlib
import re
from html import escape
from typing import Callable, Iterable
from urllib.parse import quote

from crawlers.mirror.facts import Entry

_EXPLICIT = re.compile(r"\[\[([^\[\]|]+)(?:\|([^\[\]]+))?\]\]")
_SENTENCE_END = re.compile(r"(?<=。)")


def strip_markup(text: str) -> str:
    """Text as a reader sees it: [[氧]] -> 氧."""
    return _EXPLICIT.sub(lambda m: m.group(2) or m.group(1), text)


class Linker:
    """Turns plain text into HTML with links on the first mention of each known entry.

    auto: also link bare mentions of known titles; off, only explicit [[title]] markup links
    (a large generated corpus: the regex over every title is slow and links non-entities).
    """

    def __init__(self, titles: Iterable[str], url_for: Callable[[str], str], auto: bool = True):
        self.url_for = url_for
        self.titles = set(titles)
        self._ordered: list[str] | None = None
        self.pattern = None
        if auto:
            ordered = sorted((t for t in self.titles if len(t) >= 2), key=lambda t: (-len(t), t))
            self.pattern = re.compile("|".join(re.escape(t) for t in ordered)) if ordered else None

    def __call__(self, text: str, own_title: str, linked: set[str], cite: int | None = None) -> str:
        out: list[str] = []
        pos = 0
        for match in _EXPLICIT.finditer(text):
            out.append(self._auto(text[pos:match.start()], own_title, linked))
            title, shown = match.group(1), match.group(2) or match.group(1)
            if title in self.titles and title != own_title and title not in linked:
                linked.add(title)
                out.append(self._anchor(title, shown))
            else:
                out.append(escape(shown))
            pos = match.end()
        out.append(self._auto(text[pos:], own_title, linked))
        html = "".join(out)
        if cite is not None:
            html = _SENTENCE_END.sub(
                f'<sup class="sup--normal" data-sup="{cite}">[{cite}]</sup>'
                f'<a class="sup-anchor" name="ref_[{cite}]">&nbsp;</a>', html, count=1)
        return html

    def _auto(self, text: str, own_title: str, linked: set[str]) -> str:
        if not self.pattern or not text:
            return escape(text)
        out: list[str] = []
        pos = 0
        for match in self.pattern.finditer(text):
            title = match.group(0)
            if title == own_title or title in linked:
                continue
            linked.add(title)
            out.append(escape(text[pos:match.start()]))
            out.append(self._anchor(title, title))
            pos = match.end()
        out.append(escape(text[pos:]))
        return "".join(out)

    @property
    def ordered_titles(self) -> list[str]:
        """The known titles sorted once (a navigation box picks from them on every page)."""
        if self._ordered is None:
            self._ordered = sorted(self.titles)
        return self._ordered

    def _anchor(self, title: str, shown: str) -> str:
        return f'<a target="_blank" href="{escape(self.url_for(title))}">{escape(shown)}</a>'


class HashedClasses:
    """Baidu-style hashed class names: ``cls('lemmaSummary')`` -> ``lemmaSummary_x1Y2z``."""

    def __init__(self, build: str):
        self.build = build

    def __call__(self, name: str) -> str:
        digest = hashlib.sha1(f"{self.build}:{name}".encode()).hexdigest()
        return f"{name}_{digest[:5]}"


# Where the mirror's entries are published (releases, search results): hosts RFC 2606 reserves, since the
# entries are the mirror's own and exist on no real site. A crawl's snapshot moves its pages there
# (crawlers.snapshot.snapshot_stage); crawlers.urls.public_url keeps these hosts.
PUBLIC_ORIGIN = {"baidu": "https://baike.example", "sogou": "https://baike-sogou.example",
                 "wikipedia": "https://zhwiki.example"}


def _head(title: str, canonical: str, charset: str = "utf-8") -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="{charset}">'
        f"<title>{escape(title)}</title>"
        f'<link rel="canonical" href="{escape(canonical)}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        "<script>window.PAGE_DATA={};</script></head>\n"
    )


def item_path(title: str, baidu_id: int | None = None) -> str:
    path = "/item/" + quote(title, safe="")
    return f"{path}/{baidu_id}" if baidu_id is not None else path


def wiki_path(title: str) -> str:
    return "/wiki/" + quote(title.replace(" ", "_"), safe="()_")


# --- Baidu Baike, current layout ---------------------------------------------------------


def baidu(entry: Entry, link: Linker, senses: list[Entry], build: str) -> str:
    c = HashedClasses(build)
    linked: set[str] = set()
    title_html = (
        f'<div class="{c("lemmaTitleBox")}"><div class="{c("lemmaTitle")} J-lemma-title">'
        f'<h1 class="{c("lemmaTitle")}">{escape(entry.title)}</h1>'
        f'<div class="{c("lemmaDesc")}">{escape(entry.sense)}</div></div>'
        f'<div class="{c("lemmaBtns")}"><a class="{c("editLemma")}" href="/usercenter/edit">编辑</a>'
        f'<a class="{c("discussion")}" href="/usercenter/discuss">讨论</a></div></div>'
    )
    poly = ""
    if len(senses) > 1:
        items = []
        for other in senses:
            if other.key == entry.key:
                items.append(f'<li class="{c("item")} {c("selected")}"><span>{escape(other.sense)}</span></li>')
            else:
                items.append(
                    f'<li class="{c("item")}"><a href="{escape(item_path(other.title, other.baidu_id))}?fromModule=disambiguation">'
                    f"{escape(other.sense)}</a></li>")
        poly = f'<div class="{c("polysemantList")}"><ul>{"".join(items)}</ul></div>'
    summary = (
        f'<div class="{c("lemmaSummary")} J-summary"><div class="{c("para")} MARK_MODULE" data-tag="paragraph">'
        f'<span class="{c("text")}">{link(entry.summary, entry.title, linked, cite=1)}</span></div></div>'
    )
    rows = []
    for name, value in entry.infobox:
        rows.append(
            f'<div class="{c("itemWrapper")}"><dt class="{c("basicInfoItem")} {c("itemName")}">{escape(name)}</dt>'
            f'<dd class="{c("basicInfoItem")} {c("itemValue")}"><span class="{c("text")}">'
            f"{link(value, entry.title, set())}</span></dd></div>"
        )
    half = (len(rows) + 1) // 2
    basic = (
        f'<div class="{c("basicInfo")} J-basic-info"><dl class="{c("basicInfoBlock")} {c("left")}">{"".join(rows[:half])}</dl>'
        f'<dl class="{c("basicInfoBlock")} {c("right")}">{"".join(rows[half:])}</dl></div>'
    )
    blocks = []
    cite = 2
    for number, (heading, paragraphs) in enumerate(entry.sections, 1):
        blocks.append(
            f'<div data-index="{number}" data-tag="header" data-level="1" class="{c("paraTitle")} {c("level-1")}">'
            f'<h2 name="{number}">{escape(heading)}</h2>'
            f'<div class="{c("paraTitleEdit")}"><a class="{c("audio")}">播报</a><a class="{c("edit")}">编辑</a></div></div>'
        )
        for para in paragraphs:
            blocks.append(
                f'<div data-index="{number}_{cite}" data-tag="paragraph" class="{c("para")} MARK_MODULE">'
                f'<span class="{c("text")}">{link(para, entry.title, linked, cite=cite)}</span></div>'
            )
            cite += 1
    content = f'<div class="{c("lemmaContent")} J-lemma-content">{"".join(blocks)}</div>'
    tags = (
        f'<div class="{c("tagList")}"><span>词条标签：</span>'
        + "".join(f'<a class="{c("tagItem")}" href="/wikitag/{quote(t)}">{escape(t)}</a>' for t in _tags(entry))
        + "</div>"
    )
    nav = _baidu_nav(c)
    body = (
        f'<body><div id="J-vars" data-lemmaid="{entry.baidu_id}"></div>{nav}'
        f'<div class="{c("mainContent")}">{title_html}{poly}{summary}{basic}{content}{tags}</div>'
        f'<div class="{c("footer")}"><a href="/help">百科协议</a><a href="/item/百度百科：本人词条编辑服务/22442459">本人词条编辑服务</a></div>'
        "</body></html>\n"
    )
    return _head(f"{entry.title}（{entry.sense}）_百度百科", item_path(entry.title, entry.baidu_id)) + body


def _baidu_nav(c: HashedClasses) -> str:
    return (
        f'<div class="{c("navBar")}"><a href="/">百度百科</a><a href="/art">文化</a>'
        '<a href="/science">科学</a><a href="/usercenter">个人中心</a></div>'
    )


def _tags(entry: Entry) -> list[str]:
    kind = {
        "person": "人物", "place": "地点", "city": "城市", "country": "国家", "river": "河流",
        "mountain": "山峰", "lake": "湖泊", "dynasty": "朝代", "event": "历史事件",
        "organisation": "组织机构", "company": "企业", "university": "高校", "work": "作品",
        "book": "书籍", "film": "影视作品", "festival": "节日", "art": "艺术", "language": "语言",
        "element": "化学元素", "compound": "化合物", "mineral": "矿物", "species": "物种",
        "plant": "植物", "animal": "动物", "astronomical": "天体", "device": "器物",
        "technology": "科技", "invention": "发明", "software": "软件", "spacecraft": "航天器",
        "structure": "建筑", "currency": "货币", "concept": "概念", "institution": "机构", "treaty": "条约",
    }.get(entry.type, "其他")
    domain = {
        "history_politics": "历史", "humanities_society": "文化",
        "technology_economics": "科技", "nature_environment": "自然",
    }[entry.domain]
    return [kind, domain]


# --- Baidu Baike, older layout ---------------------------------------------------------------


def _pad_name(name: str) -> str:
    """The old layout pads short names: 中&nbsp;&nbsp;&nbsp;&nbsp;文&nbsp;&nbsp;&nbsp;&nbsp;名."""
    if len(name) == 2:
        return name[0] + "&nbsp;" * 8 + name[1]
    if len(name) == 3:
        return "&nbsp;&nbsp;&nbsp;&nbsp;".join(name)
    return escape(name)


def baidu_legacy(entry: Entry, link: Linker, senses: list[Entry]) -> str:
    linked: set[str] = set()
    poly = ""
    if len(senses) > 1:
        items = []
        for other in senses:
            if other.key == entry.key:
                items.append(f'<li class="item">▪<span class="selected" title="{escape(other.sense)}">{escape(other.sense)}</span></li>')
            else:
                items.append(
                    f'<li class="item">▪<a title="{escape(other.sense)}" href="{escape(item_path(other.title, other.baidu_id))}#viewPageContent">'
                    f"{escape(other.sense)}</a></li>")
        poly = (
            '<div class="polysemant-list polysemant-list-normal"><div class="polysemantList-header-title">'
            f'<div class="toggle expand"><span class="text">{escape(entry.title)}</span><span class="num">是一个多义词，请在下列义项上选择浏览（共{len(senses)}个义项）</span></div></div>'
            f'<div class="polysemantList-wrapper cmn-clearfix"><ul class="polysemantList-wrapper-list">{"".join(items)}</ul></div></div>'
        )
    title_html = (
        '<dl class="lemmaWgt-lemmaTitle lemmaWgt-lemmaTitle-"><dd class="lemmaWgt-lemmaTitle-title">'
        f"<h1>{escape(entry.title)}</h1><h2>（{escape(entry.sense)}）</h2>"
        '<a href="javascript:;" class="edit-lemma cmn-btn-hover-blue cmn-btn-28 j-edit-link">'
        '<em class="cmn-icon wiki-lemma-icons wiki-lemma-icons_edit-lemma"></em>编辑</a></dd></dl>'
    )
    summary = (
        '<div class="lemma-summary" label-module="lemmaSummary">'
        f'<div class="para" label-module="para">{link(entry.summary, entry.title, linked, cite=1)}</div></div>'
    )
    left, right = [], []
    half = (len(entry.infobox) + 1) // 2
    for i, (name, value) in enumerate(entry.infobox):
        cell = (
            f'<dt class="basicInfo-item name">{_pad_name(name)}</dt>'
            f'<dd class="basicInfo-item value">\n{link(value, entry.title, set())}\n</dd>'
        )
        (left if i < half else right).append(cell)
    basic = (
        f'<div class="basic-info J-basic-info cmn-clearfix"><dl class="basicInfo-block basicInfo-left">{"".join(left)}</dl>'
        f'<dl class="basicInfo-block basicInfo-right">{"".join(right)}</dl></div>'
    )
    blocks = []
    cite = 2
    for number, (heading, paragraphs) in enumerate(entry.sections, 1):
        blocks.append(
            f'<div class="anchor-list"><a name="{number}" class="lemma-anchor para-title"></a></div>'
            f'<div class="para-title level-2" label-module="para-title"><h2 class="title-text">'
            f'<span class="title-prefix">{escape(entry.title)}</span>{escape(heading)}</h2>'
            '<a class="edit-icon j-edit-link" data-edit-dl="2" href="javascript:;"><em class="cmn-icon wiki-lemma-icons wiki-lemma-icons_edit-lemma"></em>编辑</a></div>'
        )
        for para in paragraphs:
            blocks.append(f'<div class="para" label-module="para">{link(para, entry.title, linked, cite=cite)}</div>')
            cite += 1
    tags = '<div id="open-tag"><dd id="open-tag-item">' + "，".join(
        f'<span class="taglist">\n{escape(t)}\n</span>' for t in _tags(entry)) + "</dd></div>"
    body = (
        '<body><div class="header-wrapper"><div class="header"><a href="/">百度百科</a>'
        '<a href="/art">文化</a><a href="/science">科学</a></div></div>'
        f'<div class="body-wrapper"><div class="content-wrapper"><div class="content"><div class="main-content">'
        f"{title_html}{poly}{summary}{basic}{''.join(blocks)}{tags}</div></div></div></div>"
        '<div class="wgt-footer-main"><a href="/help">百科协议</a></div></body></html>\n'
    )
    return _head(f"{entry.title}（{entry.sense}）_百度百科", item_path(entry.title, entry.baidu_id)) + body


def baidu_disambiguation(title: str, senses: list[Entry]) -> str:
    items = "".join(
        f'<li class="list-dot list-dot-paddingleft"><div class="para" label-module="para">'
        f'<a target="_blank" href="{escape(item_path(s.title, s.baidu_id))}">{escape(s.title)}：{escape(s.sense)}</a></div></li>'
        for s in senses
    )
    body = (
        '<body><div class="main-content"><dl class="lemmaWgt-lemmaTitle lemmaWgt-lemmaTitle-">'
        f'<dd class="lemmaWgt-lemmaTitle-title"><h1>{escape(title)}</h1></dd></dl>'
        '<div class="lemmaWgt-subLemmaListTitle">这是一个多义词，请在下列义项上选择浏览</div>'
        f'<ul class="custom_dot para-list list-paddingleft-1">{items}</ul></div></body></html>\n'
    )
    return _head(f"{title}_百度百科", item_path(title)) + body


def baidu_not_found(title: str) -> str:
    body = (
        '<body><div class="errorBox"><p class="sorryCont"><span class="sorryTxt">'
        f"抱歉，百度百科尚未收录词条“{escape(title)}”</span></p>"
        '<p><a href="/create/lemma">创建词条</a></p></div></body></html>\n'
    )
    return _head("百度百科错误页", "/error") + body


def baidu_captcha() -> str:
    body = (
        '<body><div class="timeout hide-callback"><div class="timeout-img"></div>'
        '<div class="timeout-title">网络不给力，请稍后重试</div></div>'
        '<div id="captcha" class="passMod_dialog-wrapper"><div class="passMod_dialog-title">百度安全验证</div>'
        '<div class="passMod_dialog-body">请完成下方验证后继续操作</div>'
        '<div class="vcode-spin"><img class="vcode-spin-img" src="/static/captcha/spin.jpg"></div></div></body></html>\n'
    )
    return _head("百度安全验证", "/static/captcha/tuxing.html") + body


# --- Sogou Baike -------------------------------------------------------------------------------


def sogou(entry: Entry, link: Linker) -> str:
    linked: set[str] = set()
    rows = "".join(
        f'<tr><th class="base-info-card-title">{escape(name)}</th>'
        f'<td class="base-info-card-value"><div class="base-info-card-value-text">{link(value, entry.title, set())}</div></td></tr>'
        for name, value in entry.infobox
    )
    sections = []
    cite = 2
    for heading, paragraphs in entry.sections:
        paras = []
        for para in paragraphs:
            paras.append(f"<p>{link(para, entry.title, linked, cite=cite)}</p>")
            cite += 1
        sections.append(
            f'<div class="lemma_section"><h2 class="section_title">{escape(heading)}'
            f'<a class="edit_btn" href="/edit">编辑</a></h2><div class="text_pic">{"".join(paras)}</div></div>'
        )
    body = (
        '<body><div id="header"><a href="/">搜狗百科</a><a href="/fenlei">分类</a></div>'
        f'<div class="lemma_name"><h1 id="title">{escape(entry.title)}</h1>'
        f'<span class="lemma_subtitle">{escape(entry.sense)}</span></div>'
        f'<div class="abstract" id="j-shareAbstract"><p>{link(entry.summary, entry.title, linked, cite=1)}</p></div>'
        f'<table class="abstract_tbl"><tbody>{rows}</tbody></table>'
        f'<div class="lemma_content" id="lemma_content">{"".join(sections)}</div>'
        '<div class="lemma_tags">' + "".join(f'<a href="/tag/{quote(t)}">{escape(t)}</a>' for t in _tags(entry))
        + '</div><div id="footer"><a href="/help">帮助</a></div></body></html>\n'
    )
    return _head(f"{entry.title} - 搜狗百科", f"/v{entry.sogou_id}.htm") + body


def sogou_not_found(title: str) -> str:
    body = f'<body><div class="no_result">搜狗百科暂未收录“{escape(title)}”</div></body></html>\n'
    return _head("搜狗百科", "/") + body


# --- zh-Wikipedia ------------------------------------------------------------------------------------


def wikipedia(entry: Entry, link: Linker, page_title: str, others: list[Entry]) -> str:
    linked: set[str] = set()
    rows = "".join(
        f'<tr><th scope="row" class="infobox-label">{escape(name)}</th>'
        f'<td class="infobox-data">{link(value, entry.title, set())}</td></tr>'
        for name, value in entry.infobox
    )
    infobox = (
        '<table class="infobox vcard"><tbody>'
        f'<tr><th colspan="2" class="infobox-above">{escape(entry.title)}</th></tr>{rows}</tbody></table>'
    )
    hatnote = ""
    if others:
        hatnote = (
            f'<div role="note" class="hatnote navigation-not-searchable">“{escape(entry.title)}”的其他用法，请见'
            f'「<a href="{escape(wiki_path(entry.title + " (消歧义)"))}">{escape(entry.title)} (消歧义)</a>」。</div>'
        )
    parts = [hatnote, infobox, f"<p>{link(entry.summary, entry.title, linked, cite=1)}</p>"]
    cite = 2
    for heading, paragraphs in entry.sections:
        parts.append(
            f'<div class="mw-heading mw-heading2"><h2 id="{escape(heading)}">{escape(heading)}</h2>'
            '<span class="mw-editsection"><span class="mw-editsection-bracket">[</span>'
            '<a href="/w/index.php?action=edit">编辑</a><span class="mw-editsection-bracket">]</span></span></div>'
        )
        for para in paragraphs:
            parts.append(f"<p>{link(para, entry.title, linked, cite=cite)}</p>")
            cite += 1
    refs = "".join(f'<li id="cite_note-{i}">参考来源 {i}</li>' for i in range(1, cite))
    parts.append(f'<div class="mw-references-wrap"><ol class="references">{refs}</ol></div>')
    navbox = "".join(
        f'<li><a href="{escape(wiki_path(t))}">{escape(t)}</a></li>' for t in sorted(_navbox_titles(entry, link))
    )
    parts.append(f'<div role="navigation" class="navbox"><ul>{navbox}</ul></div>')
    body = (
        '<body class="mediawiki skin-vector"><div id="mw-navigation"><a href="/wiki/Wikipedia:首页">首页</a>'
        '<a href="/wiki/Special:随机页面">随机条目</a></div>'
        f'<h1 id="firstHeading" class="firstHeading mw-first-heading"><span class="mw-page-title-main">{escape(page_title)}</span></h1>'
        '<div id="bodyContent"><div id="mw-content-text" class="mw-body-content">'
        f'<div class="mw-content-ltr mw-parser-output" lang="zh-Hans-CN" dir="ltr">{"".join(parts)}</div></div>'
        '<div id="catlinks" class="catlinks"><ul>'
        + "".join(f'<li><a href="/wiki/Category:{quote(t)}">{escape(t)}</a></li>' for t in _tags(entry))
        + "</ul></div></div></body></html>\n"
    )
    return _head(f"{page_title} - 维基百科，自由的百科全书", wiki_path(page_title)) + body


def _navbox_titles(entry: Entry, link: Linker) -> list[str]:
    # A navigation box lists a few other entries; a parser must not count these as the entry's links.
    titles = [t for t in link.ordered_titles if t != entry.title]
    if not titles:
        return []
    start = int(hashlib.sha1(entry.key.encode()).hexdigest()[:6], 16) % len(titles)
    return titles[start:start + 3]


def wikipedia_disambiguation(title: str, senses: list[Entry], page_title_for: Callable[[Entry], str]) -> str:
    items = "".join(
        f'<li><a href="{escape(wiki_path(page_title_for(s)))}">{escape(page_title_for(s))}</a>，{escape(s.sense)}</li>'
        for s in senses
    )
    page_title = f"{title} (消歧义)"
    body = (
        f'<body><h1 id="firstHeading" class="firstHeading"><span class="mw-page-title-main">{escape(page_title)}</span></h1>'
        '<div id="mw-content-text"><div class="mw-parser-output">'
        f"<p><b>{escape(title)}</b>可以指：</p><ul>{items}</ul>"
        '<table id="disambigbox" class="dmbox disambig"><tr><td>这是一个消歧义页。</td></tr></table>'
        "</div></div></body></html>\n"
    )
    return _head(f"{page_title} - 维基百科，自由的百科全书", wiki_path(page_title)) + body


def wikipedia_not_found(title: str) -> str:
    body = (
        '<body><h1 id="firstHeading" class="firstHeading">' + escape(title) + "</h1>"
        '<div class="mw-parser-output"><div class="noarticletext">'
        "维基百科目前还没有与上述标题相同的条目。</div></div></body></html>\n"
    )
    return _head(f"{title} - 维基百科，自由的百科全书", wiki_path(title)) + body
