"""The annotator web app: server-rendered pages over :class:`review.store.ReviewStore`.

Every rule (two blind annotators, leases, adjudication, idempotent decisions) lives in the store;
the app only authenticates, checks CSRF tokens, turns forms into :class:`Annotation` records and
renders what the store returns. An annotator's page never reads another annotator's label.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import math
import re
import secrets
from pathlib import Path
from urllib.parse import quote, unquote

import pyarrow.parquet as pq
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from review.logins import LoginLimiter, minutes
from review.render import highlight, needles_of, with_cuts
from review.store import (CRITERIA, MCQ_CONFIGS, MIN_URLS, PAIR_CONFIGS, QUESTION_CONFIGS, REASONS, ROLES, Annotation,
                          ReviewError, ReviewStore, Session)

HERE = Path(__file__).parent
SESSION_COOKIE = "zb_session"
LOGIN_COOKIE = "zb_login"  # the pre-session token against login CSRF
RELATIONS_PER_PAGE = 20
SAMPLES_PER_RELATION = 3
HEADERS = {
    # no inline script or style anywhere: the page's only script is /static/app.js
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
FLASH = {  # fixed messages by code, so a query string cannot put words on the page
    "saved": "saved", "undone": "your last annotation is open again", "nothing": "nothing to undo",
    "skipped": "item given back to the queue", "decided": "decision saved", "judged": "relation verdict saved",
    "added": "user added",
}
SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")


class Problem(Exception):
    """A page that ends the request with a status and a message."""

    def __init__(self, status: int, title: str, message: str = ""):
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


def create_app(data_dir: Path, lease_minutes: float = 30, secure_cookies: bool = False) -> FastAPI:
    data_dir = Path(data_dir)
    store = ReviewStore.at(data_dir, lease_minutes=lease_minutes)
    logins = LoginLimiter()
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["kappa"] = lambda k: "–" if k is None else f"{k:.2f}"
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.0f}%"
    env.tests["http"] = lambda u: isinstance(u, str) and u.startswith(("http://", "https://"))
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}  # Chinese stays readable
    env.filters["decoded"] = _decoded_url
    env.filters["zh"] = _chinese_names()
    env.globals.update(CRITERIA=CRITERIA, REASONS=REASONS, MIN_URLS=MIN_URLS, QUESTION_CONFIGS=QUESTION_CONFIGS,
                       MCQ_CONFIGS=MCQ_CONFIGS, PAIR_CONFIGS=PAIR_CONFIGS, highlight=highlight,
                       needles_of=needles_of, with_cuts=with_cuts, quote=quote, sources_of=sources_of,
                       URL_KEYS=URL_KEYS)
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    def page(request: Request, template: str, status: int = 200, **context) -> HTMLResponse:
        session = getattr(request.state, "session", None)
        flash = FLASH.get(request.query_params.get("flash", ""))
        html = env.get_template(template).render(session=session, flash=flash, **context)
        return HTMLResponse(html, status_code=status)

    def login_page(request: Request, status: int = 200, error: str = "", name: str = "") -> HTMLResponse:
        token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(32)
        response = page(request, "login.html", status, login_token=token, error=error, name=name)
        _cookie(response, LOGIN_COOKIE, token, secure_cookies, max_age=3600)
        return response

    def need(request: Request, role: str = "annotator") -> Session:
        session = store.session(request.cookies.get(SESSION_COOKIE))
        request.state.session = session
        if session is None:
            raise Problem(401, "log in first")
        if not session.user.can(role):
            raise Problem(403, "not allowed", f"this page needs the {role} role; you are {session.user.role}")
        return session

    async def posted(request: Request, role: str = "annotator") -> tuple[Session, dict]:
        """The session and the form of a POST whose csrf field matches the session's token."""
        session = need(request, role)
        form = await request.form()
        if not hmac.compare_digest(str(form.get("csrf", "")).encode(), session.csrf.encode()):
            raise Problem(403, "form expired or forged", "form expired or forged; reload the page")
        return session, form

    def known(name: str, version: str) -> None:
        if not store.has_queue(name, version):
            raise Problem(404, "not found", f"no review queue for release {name} {version}")

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.update(HEADERS)
        return response

    @app.exception_handler(Problem)
    async def problem(request: Request, exc: Problem):
        if exc.status == 401:
            return login_page(request, 401, error=exc.message)
        return page(request, "message.html", exc.status, title=exc.title, message=exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        request.state.session = store.session(request.cookies.get(SESSION_COOKIE))
        title = "not found" if exc.status_code == 404 else "request refused"
        return page(request, "message.html", exc.status_code, title=title, message=str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return page(request, "message.html", 422, title="bad request", message="the request's address is malformed")

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception):
        # the traceback goes to the server log, never to the page
        return page(request, "message.html", 500, title="server error",
                    message="something went wrong on the server; the error is in its log")

    # -- login ----------------------------------------------------------------------------------

    @app.get("/login")
    async def login_form(request: Request):
        return login_page(request)

    @app.post("/login")
    async def login(request: Request):
        form = await request.form()
        cookie, field = request.cookies.get(LOGIN_COOKIE, ""), str(form.get("login_token", ""))
        if not cookie or not hmac.compare_digest(cookie.encode(), field.encode()):
            raise Problem(403, "form expired or forged", "form expired or forged; reload the page")
        name, address = str(form.get("name", "")).strip(), request.client.host if request.client else ""
        wait = logins.begin(name, address)
        if wait:
            response = login_page(request, 429, name=name, error="too many failed logins for this name or from "
                                  f"this address; try again in {minutes(wait)}")
            response.headers["Retry-After"] = str(math.ceil(wait))
            return response
        found = None
        try:
            # a password hash is slow on purpose: off the event loop, so other annotators' pages are not held up
            found = await run_in_threadpool(store.login, name, str(form.get("password", "")))
        finally:
            logins.end(name, address, ok=found is not None)
        if found is None:
            return login_page(request, 401, error="wrong name or password", name=name)
        token, _ = found
        response = RedirectResponse("/", status_code=303)
        _cookie(response, SESSION_COOKIE, token, secure_cookies, max_age=int(store.session_s))
        response.delete_cookie(LOGIN_COOKIE, path="/")
        return response

    @app.post("/logout")
    async def logout(request: Request):
        await posted(request)
        store.logout(request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    @app.get("/")
    async def home(request: Request):
        user = need(request).user
        if user.can("admin"):  # admins label nothing: they see every count
            return page(request, "home.html", queues=store.queues())
        # Anyone who labels sees only their own work: counts by status would move when their second label
        # lands and tell them whether the first annotator agreed.
        mine = [{"name": q["name"], "version": q["version"], "queued": q["queued"],
                 "done": store.done_by(q["name"], q["version"], user.name),
                 "left": store.left_for(q["name"], q["version"], user.name),
                 "disputes": store.disputes_for(q["name"], q["version"], user.name) if user.can("adjudicator") else 0}
                for q in store.queues()]
        return page(request, "home.html", mine=mine)

    # -- annotation -------------------------------------------------------------------------------

    def annotate_page(request, session, name, version, item, status=200, error="", value=None):
        return page(request, "annotate.html", status, name=name, version=version, item=item, error=error,
                    value=value or {}, request_id=secrets.token_urlsafe(16),
                    done=store.done_by(name, version, session.user.name),
                    left=store.left_for(name, version, session.user.name))

    @app.get("/annotate/{name}/{version}")
    async def annotate_form(request: Request, name: str, version: str):
        session = need(request)
        known(name, version)
        if session.user.role == "admin":
            # An admin looks without taking an item from the annotators: no lease, no form.
            at = max(0, _int(request.query_params.get("at"), 0))
            item, total = store.browse(name, version, at)
            return page(request, "browse.html", name=name, version=version, item=item, at=at, total=total)
        item = store.next_item(name, version, session.user.name)
        if item is None:
            return page(request, "empty.html", name=name, version=version, what="annotate",
                        done=store.done_by(name, version, session.user.name))
        return annotate_page(request, session, name, version, item)

    @app.post("/annotate/{name}/{version}/undo")
    async def undo(request: Request, name: str, version: str):
        session, _ = await posted(request)
        known(name, version)
        try:
            undone = store.undo(name, version, session.user.name)
        except ReviewError as e:
            raise Problem(409, "cannot undo", str(e))
        return _back(f"/annotate/{_q(name)}/{_q(version)}", "undone" if undone else "nothing")

    @app.post("/annotate/{name}/{version}/{item_id}/skip")
    async def skip(request: Request, name: str, version: str, item_id: str):
        session, _ = await posted(request)
        known(name, version)
        store.release_lease(name, version, item_id, session.user.name)
        return _back(f"/annotate/{_q(name)}/{_q(version)}", "skipped")

    @app.post("/annotate/{name}/{version}/{item_id}")
    async def annotate(request: Request, name: str, version: str, item_id: str):
        session, form = await posted(request)
        item = _item(store, name, version, item_id)
        annotation, value = annotation_of(form)
        try:
            store.annotate(name, version, item_id, session.user.name, annotation, form.get("request_id") or None)
        except ReviewError as e:
            return annotate_page(request, session, name, version, item, 422, str(e), value)
        return _back(f"/annotate/{_q(name)}/{_q(version)}", "saved")

    # -- adjudication -----------------------------------------------------------------------------

    def adjudicate_page(request, name, version, item, status=200, error="", value=None):
        labels = [l for l in store.labels(name, version, item["item_id"]) if l["role"] == "annotator"]
        value = value or {}  # the answer starts empty: typing never appends to a candidate (1, 2, t fill it)
        return page(request, "adjudicate.html", status, name=name, version=version, item=item, labels=labels,
                    error=error, value=value, request_id=secrets.token_urlsafe(16))

    @app.get("/adjudicate/{name}/{version}")
    async def adjudicate_form(request: Request, name: str, version: str):
        session = need(request, "adjudicator")
        known(name, version)
        item = store.next_dispute(name, version, session.user.name)
        if item is None:
            return page(request, "empty.html", name=name, version=version, what="adjudicate", done=None)
        return adjudicate_page(request, name, version, item)

    @app.post("/adjudicate/{name}/{version}/{item_id}")
    async def adjudicate(request: Request, name: str, version: str, item_id: str):
        session, form = await posted(request, "adjudicator")
        item = _item(store, name, version, item_id)
        annotation, value = annotation_of(form)
        try:
            store.adjudicate(name, version, item_id, session.user.name, annotation, form.get("request_id") or None)
        except ReviewError as e:
            return adjudicate_page(request, name, version, item, 422, str(e), value)
        return _back(f"/adjudicate/{_q(name)}/{_q(version)}", "decided")

    # -- admin ------------------------------------------------------------------------------------

    @app.get("/admin/users")
    async def users(request: Request):
        need(request, "admin")
        return page(request, "users.html", users=store.users(), roles=ROLES, error="", value={})

    @app.post("/admin/users")
    async def add_user(request: Request):
        _, form = await posted(request, "admin")
        value = {"name": str(form.get("name", "")), "role": str(form.get("role", ""))}
        try:
            store.add_user(value["name"], value["role"], str(form.get("password", "")))
        except ReviewError as e:
            return page(request, "users.html", 422, users=store.users(), roles=ROLES, error=str(e), value=value)
        return _back("/admin/users", "added")

    def admin_page(request, name, version, status=200, error="", imported=None):
        return page(request, "admin.html", status, name=name, version=version, stats=store.stats(name, version),
                    state=store.status(name, version), error=error, imported=imported)

    @app.get("/admin/{name}/{version}")
    async def admin(request: Request, name: str, version: str):
        need(request, "admin")
        known(name, version)
        return admin_page(request, name, version)

    @app.get("/admin/{name}/{version}/labelstudio.json")
    async def export_labelstudio(request: Request, name: str, version: str):
        from review.labelstudio import export_tasks

        need(request, "admin")
        known(name, version)
        body = json.dumps(export_tasks(store, name, version), ensure_ascii=False, indent=1)
        filename = f"{name}-{version}-labelstudio.json"
        return Response(body, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{quote(filename)}"'})

    @app.get("/labelstudio.xml")
    async def labelstudio_config(request: Request):
        from review.labelstudio import CONFIG_XML

        need(request, "admin")
        return Response(CONFIG_XML.read_text(encoding="utf-8"), media_type="application/xml")

    @app.post("/admin/{name}/{version}/import")
    async def import_labelstudio(request: Request, name: str, version: str):
        from review.labelstudio import import_tasks, parse_tasks, user_names

        _, form = await posted(request, "admin")
        known(name, version)
        upload = form.get("file")
        if upload is None or not hasattr(upload, "read"):
            return admin_page(request, name, version, 422, error="choose a Label Studio JSON export to import")
        data = await upload.read()
        try:
            users = user_names(str(form.get("users", "")).split())
            tasks = parse_tasks(data, upload.filename or "the uploaded file")
            result = await run_in_threadpool(import_tasks, store, name, version, tasks, users)
        except ValueError as e:  # ReviewError among them: a malformed file or mapping, an unknown annotator
            return admin_page(request, name, version, 422, error=str(e))
        return admin_page(request, name, version, imported=result)

    # -- relations --------------------------------------------------------------------------------

    def relations_page(request, name, version, page_no, status=200, error=""):
        release = _release_dir(data_dir, name, version)
        relations = _relations(release)
        pages = max(1, -(-len(relations) // RELATIONS_PER_PAGE))
        page_no = min(max(page_no, 1), pages)
        shown = relations[(page_no - 1) * RELATIONS_PER_PAGE: page_no * RELATIONS_PER_PAGE]
        samples = _samples(release, {r["relation"] for r in shown})
        return page(request, "relations.html", status, name=name, version=version, relations=shown,
                    samples=samples, verdicts=store.relation_verdicts(), page_no=page_no, pages=pages,
                    total=len(relations), error=error)

    @app.get("/relations/{name}/{version}")
    async def relations(request: Request, name: str, version: str):
        need(request, "adjudicator")
        return relations_page(request, name, version, _int(request.query_params.get("page"), 1))

    @app.post("/relations/{name}/{version}")
    async def judge(request: Request, name: str, version: str):
        session, form = await posted(request, "adjudicator")
        page_no = _int(form.get("page"), 1)
        relation = str(form.get("relation", ""))
        if relation not in {r["relation"] for r in _relations(_release_dir(data_dir, name, version))}:
            raise Problem(404, "not found", f"release {name} {version} has no relation {relation!r}")
        try:
            store.judge_relation(relation, str(form.get("verdict", "")), session.user.name,
                                 str(form.get("note", "")).strip(), (name, version))
        except ReviewError as e:
            return relations_page(request, name, version, page_no, 422, str(e))
        return RedirectResponse(f"/relations/{_q(name)}/{_q(version)}?page={page_no}&flash=judged",
                                status_code=303)

    return app


def annotation_of(form) -> tuple[Annotation, dict]:
    """The Annotation a form records, and the raw values to show again if the store refuses it."""
    def yes(key: str) -> bool | None:
        value = form.get(key)
        return None if value not in ("yes", "no") else value == "yes"

    criteria = {c: yes(f"crit_{c}") for c in CRITERIA if yes(f"crit_{c}") is not None}
    options = {k: yes(k) for k in ("gold_right", "distractors_wrong") if yes(k) is not None}
    # the URLs the annotator marked as checked among those shown, then any they typed
    urls = [str(u) for u in form.getlist("checked_url")] + str(form.get("urls", "")).splitlines()
    annotation = Annotation(verdict=str(form.get("verdict", "")), reason=str(form.get("reason", "")),
                            answer=str(form.get("answer", "")), criteria=criteria, urls=urls, options=options,
                            covered=yes("covered"), note=str(form.get("note", "")).strip())
    value = {"verdict": annotation.verdict, "reason": annotation.reason, "answer": annotation.answer,
             "criteria": criteria, "urls": "\n".join(urls), "options": options, "covered": annotation.covered,
             "note": annotation.note}
    return annotation, value


URL_KEYS = "6789"  # keys that mark the first shown sources as checked (1-5 are the criteria)


def sources_of(item: dict) -> list[str]:
    """The web addresses the page shows for an item, in order, once each: the item's URLs, the source pairs'
    pages and the triples' support URLs, then what the verifiers cite. An annotator marks those they checked."""
    it = item["payload"].get("item", {})
    found = list(it.get("urls") or [])
    for pair in item["payload"].get("pairs") or []:
        found.append(pair.get("url") or "")
        for t in pair.get("triples") or []:
            found += t.get("support_urls") or []
    for check in item["payload"].get("checks") or []:
        evidence = check.get("evidence")
        if isinstance(evidence, dict) and isinstance(evidence.get("urls"), list):
            found += [u for u in evidence["urls"] if isinstance(u, str)]
    return [u for u in dict.fromkeys(found) if u.startswith(("http://", "https://"))]


def _decoded_url(url) -> str:
    """An address as a reader writes it: 屠呦呦, not %E5%B1%A0%E5%91%A6%E5%91%A6 (the link keeps the encoded one)."""
    text = str(url)
    try:
        return unquote(text, errors="strict")
    except UnicodeDecodeError:
        return text


def _chinese_names():
    """A filter from a domain, topic or subtopic id to its Chinese name in the bundled taxonomy; anything
    else as it is."""
    from filters.domains import load_taxonomy

    taxonomy = load_taxonomy(None)
    names = {d.id: d.name for d in taxonomy.domains}
    names |= {t.id: t.name for t in taxonomy.topics} | {s.id: s.name for t in taxonomy.topics for s in t.subtopics}
    return lambda value: names.get(value, value) if isinstance(value, str) else value


def _item(store: ReviewStore, name: str, version: str, item_id: str) -> dict:
    try:
        return store.item(name, version, item_id)
    except ReviewError as e:
        raise Problem(404, "not found", str(e))


def _release_dir(data_dir: Path, name: str, version: str) -> Path:
    if not (SAFE_NAME.match(name) and SAFE_NAME.match(version)) or ".." in (name, version):
        raise Problem(404, "not found", "no such release")
    release = data_dir / "releases" / name / version
    if not release.is_dir():
        raise Problem(404, "not found", f"release directory {release} does not exist")
    return release


def _relations(release: Path) -> list[dict]:
    path = release / "relations" / "all.parquet"
    if not path.is_file():
        raise Problem(404, "not found", f"{path} does not exist: this release has no relation table")
    rows = []
    for batch in pq.ParquetFile(path).iter_batches(columns=["relation", "pages", "kept", "aliases"]):
        rows += batch.to_pylist()
    return sorted(rows, key=lambda r: (-(r["pages"] or 0), r["relation"]))


def _samples(release: Path, relations: set[str]) -> dict[str, list[dict]]:
    """{relation: up to SAMPLES_PER_RELATION (pair, triple)} from the release's pairs, in file order."""
    out: dict[str, list[dict]] = {r: [] for r in relations}
    path = release / "cdtp_pairs" / "all.parquet"
    if not path.is_file() or not relations:
        return out
    for batch in pq.ParquetFile(path).iter_batches(columns=["pair_id", "entity", "text", "triples"]):
        for pair in batch.to_pylist():
            for triple in pair["triples"] or []:
                found = out.get(triple.get("relation"))
                if found is not None and len(found) < SAMPLES_PER_RELATION and \
                        (triple.get("decision") or "kept") == "kept":
                    found.append({"pair": pair, "triple": triple})
        if all(len(v) >= SAMPLES_PER_RELATION for v in out.values()):
            break
    return out


def _cookie(response: Response, key: str, value: str, secure: bool, max_age: int) -> None:
    response.set_cookie(key, value, max_age=max_age, path="/", httponly=True, samesite="strict", secure=secure)


def _back(path: str, flash: str) -> RedirectResponse:
    return RedirectResponse(f"{path}?flash={flash}", status_code=303)


def _q(part: str) -> str:
    return quote(part, safe="")


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def exposure_note(host: str, secure_cookies: bool) -> str:
    """A warning when session cookies would travel in clear beyond this machine; '' when they would not."""
    if _loopback(host) or secure_cookies:
        return ""
    return (f"serving on {host} without --secure-cookies; put it behind HTTPS and pass --secure-cookies, "
            "so session cookies never travel in clear")


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve(data_dir: Path, host: str = "127.0.0.1", port: int = 8765, lease_minutes: float = 30,
          secure_cookies: bool = False) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(Path(data_dir), lease_minutes, secure_cookies), host=host, port=port,
                log_level="warning")
