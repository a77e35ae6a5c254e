"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for testing the LLM plumbing.

    with ScriptedLLM(lambda request: reply({"verdict": "yes"})) as llm:
        client = OpenAI(base_url=llm.base_url, api_key="test")

The script is a function of the parsed request body (and the call number) that
returns an action: ``reply(content)`` (a string, or an object sent as JSON text; ``None`` sends a
null content), ``raw(body)`` (the whole response body as it is, e.g. ``{"choices": []}``),
``status(429, retry_after=0.1)``, ``status(500)``, ``delay(seconds, then)`` or ``large(size)`` (a chat
completion of ``size`` bytes, sent a piece at a time).
Every request is recorded in ``llm.requests`` with its headers; ``max_in_flight`` is the
most requests the server was answering at once.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from bench.localhost import free_port


@dataclass
class Action:
    kind: str  # reply | raw | status | delay | large
    content: str | None = ""
    code: int = 200
    retry_after: float | None = None
    seconds: float = 0.0
    then: "Action | None" = None
    prompt_tokens: int = 10
    completion_tokens: int = 5
    finish_reason: str = "stop"  # "length": the reply was cut at max_tokens
    size: int = 0  # large: the body's bytes
    length: bool = True  # large: with a Content-Length header, else the body ends when the connection closes


def reply(content: Any, prompt_tokens: int = 10, completion_tokens: int = 5) -> Action:
    text = content if isinstance(content, str) or content is None else json.dumps(content, ensure_ascii=False)
    return Action("reply", content=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def raw(body: Any) -> Action:
    """A 200 answer whose body is exactly this (an object sent as JSON text)."""
    return Action("raw", content=body if isinstance(body, str) else json.dumps(body, ensure_ascii=False))


def status(code: int, retry_after: float | None = None) -> Action:
    return Action("status", code=code, retry_after=retry_after)


def delay(seconds: float, then: Action) -> Action:
    return Action("delay", seconds=seconds, then=then)


def large(size: int, length: bool = True) -> Action:
    """A chat completion of ``size`` bytes, its content a run of "x", written 64 KiB at a time (the server never
    holds it whole); ``length``: with a Content-Length header, else ended by closing the connection."""
    return Action("large", size=size, length=length)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # room for every concurrent client: a full backlog stalls a connect for a second

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return  # the client gave up waiting (a scripted timeout): nothing to report
        super().handle_error(request, client_address)


class ScriptedLLM:
    def __init__(self, script: Callable[[dict, int], Action] | Callable[[dict], Action]):
        self.script = script
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._server: ThreadingHTTPServer | None = None

    def _act(self, body: dict) -> Action:
        with self._lock:
            number = len(self.requests)
            self.requests.append(body)
        try:
            return self.script(body, number)  # type: ignore[call-arg]
        except TypeError:
            return self.script(body)  # type: ignore[call-arg]

    def __enter__(self) -> "ScriptedLLM":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with owner._lock:
                    owner.headers.append(dict(self.headers))
                    owner.in_flight += 1
                    owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
                try:
                    action = owner._act(body)
                    while action.kind == "delay":
                        time.sleep(action.seconds)
                        action = action.then or reply("")
                    self._send(action, body.get("model", "scripted"))
                finally:
                    with owner._lock:
                        owner.in_flight -= 1

            def _send(self, action: Action, model: str) -> None:
                if action.kind == "status":
                    payload = json.dumps({"error": {"message": f"scripted {action.code}", "type": "scripted"}})
                    self.send_response(action.code)
                    if action.retry_after is not None:
                        self.send_header("Retry-After", str(action.retry_after))
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(payload.encode())
                    return
                if action.kind == "raw":
                    self._body((action.content or "").encode("utf-8"))
                    return
                if action.kind == "large":
                    self._large(action, model)
                    return
                payload = json.dumps({
                    "id": f"chatcmpl-{len(owner.requests)}", "object": "chat.completion", "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "finish_reason": action.finish_reason,
                                 "message": {"role": "assistant", "content": action.content}}],
                    "usage": {"prompt_tokens": action.prompt_tokens, "completion_tokens": action.completion_tokens,
                              "total_tokens": action.prompt_tokens + action.completion_tokens},
                }, ensure_ascii=False).encode("utf-8")
                self._body(payload)

            def _large(self, action: Action, model: str) -> None:
                head = ('{"id": "chatcmpl-large", "object": "chat.completion", "created": 0, "model": %s, '
                        '"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", '
                        '"content": "' % json.dumps(model)).encode()
                tail = b'"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if action.length:
                    self.send_header("Content-Length", str(action.size))
                self.end_headers()
                self.wfile.write(head)
                piece, left = b"x" * 65536, action.size - len(head) - len(tail)
                while left > 0:
                    self.wfile.write(piece[:left])
                    left -= len(piece)
                self.wfile.write(tail)

            def _body(self, payload: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = _Server(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
