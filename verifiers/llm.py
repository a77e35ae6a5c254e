"""One LLM client for every stage: any OpenAI-compatible endpoint, cached, retried, budgeted.

* **Endpoint**: ``base_url`` and ``model`` from settings; the API key from the
  environment variable the settings name (``OPENAI_API_KEY`` by default). The key
  is never written anywhere: not to logs, reports, caches or releases.
* **Cache**: every successful reply is stored in the catalog's ``llm_cache`` table,
  keyed by the SHA-256 of the request (model, messages, temperature, JSON mode). It is
  journaled the moment it arrives (warehouse.cache), so a rerun, or a rerun after a
  kill, pays for nothing twice.
* **Retries**: 429, 5xx, timeouts and connection errors are retried with jittered
  exponential backoff (the server's Retry-After when it sends one), at most
  ``max_retries`` times; a reply that is not the JSON asked for is asked again up
  to ``json_retries`` times, then recorded as a failure, never passed as a verdict.
* **Accounting**: tokens and cost per stage; a budget cap stops spending before a
  call that would start past it, with a message that says how much was spent.
* **Concurrency**: ``map`` runs requests on ``concurrency`` threads.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from warehouse.cache import LLM_CACHE, CatalogCache


class LLMError(RuntimeError):
    """The LLM endpoint cannot be used as configured; the message says what to fix."""


class BudgetExceeded(LLMError):
    pass


@dataclass
class LLMSettings:
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 60.0
    max_retries: int = 4
    json_retries: int = 2
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    concurrency: int = 4
    temperature: float = 0.0
    budget_usd: float | None = None
    usd_per_million_input: float = 0.0
    usd_per_million_output: float = 0.0


@dataclass
class Result:
    data: Any = None  # the parsed (and validated) JSON reply
    error: str = ""  # why there is no data: http_429, timeout, malformed_json, invalid: ... , budget
    cached: bool = False
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return not self.error


@dataclass
class Usage:
    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0

    def as_dict(self) -> dict:
        return {"calls": self.calls, "cache_hits": self.cache_hits, "failures": self.failures,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "usd": round(self.usd, 6)}


def request_key(model: str, messages: Sequence[dict], temperature: float, json_mode: bool) -> str:
    body = json.dumps({"model": model, "messages": list(messages), "temperature": temperature, "json": json_mode},
                      ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def parse_json(content: str) -> Any:
    """The JSON in a reply: the whole text, or a fenced ```json block in it."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[4:] if text.lower().startswith("json") else text
    return json.loads(text)


class LLMClient:
    def __init__(self, settings: LLMSettings, catalog_path: Path, sleep: Callable[[float], None] = time.sleep):
        """Replies are cached in the catalog at ``catalog_path`` (see warehouse.cache)."""
        import openai

        key = os.environ.get(settings.api_key_env, "")
        if not settings.base_url or not settings.model:
            raise LLMError("an LLM needs both llm.base_url and llm.model in the settings")
        self.settings = settings
        self.cache = CatalogCache(catalog_path, LLM_CACHE)
        self.usage: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self._sleep = sleep
        self._openai = openai
        # The key goes to the client only; "not-needed" lets local servers without auth work.
        self._client = openai.OpenAI(base_url=settings.base_url, api_key=key or "not-needed",
                                     timeout=settings.timeout_s, max_retries=0)

    @property
    def name(self) -> str:
        return f"{self.settings.model}@{self.settings.base_url}"

    def _usage(self, stage: str) -> Usage:
        with self._lock:
            return self.usage.setdefault(stage, Usage())

    def spent(self) -> float:
        with self._lock:
            return sum(u.usd for u in self.usage.values())

    def complete_json(self, stage: str, messages: Sequence[dict],
                      validate: Callable[[Any], str] | None = None) -> Result:
        """Ask for a JSON reply; validate returns "" when the parsed reply is acceptable, else why not."""
        s = self.settings
        key = request_key(s.model, messages, s.temperature, True)
        usage = self._usage(stage)
        cached = self.cache.get((key,))
        if cached is not None:
            with self._lock:
                usage.cache_hits += 1
            return Result(parse_json(cached[2]), cached=True)
        attempts, last_error = 0, ""
        for _ in range(s.json_retries + 1):
            content, error, tries, tokens = self._call(stage, messages)
            attempts += tries
            if error:
                with self._lock:
                    usage.failures += 1
                return Result(error=error, attempts=attempts)
            try:
                data = parse_json(content)
            except (json.JSONDecodeError, ValueError):
                last_error = "malformed_json"
                continue
            problem = validate(data) if validate else ""
            if problem:
                last_error = f"invalid: {problem}"
                continue
            self.cache.put((key,), (s.model, stage, content, *tokens))
            return Result(data, attempts=attempts)
        with self._lock:
            usage.failures += 1
        return Result(error=last_error, attempts=attempts)

    def _call(self, stage: str, messages: Sequence[dict]) -> tuple[str, str, int, tuple[int, int]]:
        """(content, error, attempts, (prompt tokens, completion tokens)) of one request with its retries."""
        s, oa = self.settings, self._openai
        usage = self._usage(stage)
        for attempt in range(s.max_retries + 1):
            if s.budget_usd is not None and self.spent() >= s.budget_usd:
                raise BudgetExceeded(f"LLM budget of ${s.budget_usd:.2f} reached (${self.spent():.4f} spent); "
                                     "raise llm.budget_usd to go on; replies so far are cached")
            retry_after = None
            try:
                response = self._client.chat.completions.create(
                    model=s.model, messages=list(messages), temperature=s.temperature,
                    response_format={"type": "json_object"})
            except oa.RateLimitError as exc:
                error, retry_after = "http_429", _retry_after(exc)
            except oa.APITimeoutError:
                error = "timeout"
            except oa.APIConnectionError:
                error = "connection"
            except oa.APIStatusError as exc:
                if exc.status_code < 500:
                    return "", f"http_{exc.status_code}", attempt + 1, (0, 0)  # a client error does not heal
                error, retry_after = f"http_{exc.status_code}", _retry_after(exc)
            else:
                prompt = getattr(response.usage, "prompt_tokens", 0) or 0
                completion = getattr(response.usage, "completion_tokens", 0) or 0
                with self._lock:
                    usage.calls += 1
                    usage.prompt_tokens += prompt
                    usage.completion_tokens += completion
                    usage.usd += (prompt * s.usd_per_million_input + completion * s.usd_per_million_output) / 1e6
                return response.choices[0].message.content or "", "", attempt + 1, (prompt, completion)
            if attempt == s.max_retries:
                return "", error, attempt + 1, (0, 0)
            wait = retry_after if retry_after is not None else min(
                s.backoff_max_s, s.backoff_base_s * 2 ** attempt * random.uniform(0.5, 1.5))
            self._sleep(wait)
        return "", "retries_exhausted", s.max_retries + 1, (0, 0)

    def map(self, stage: str, requests: Sequence[Sequence[dict]],
            validate: Callable[[Any], str] | None = None) -> list[Result]:
        """complete_json for each request, ``concurrency`` at a time, results in request order.

        Identical requests are sent once, so concurrent threads never pay twice for one reply."""
        s = self.settings
        keys = [request_key(s.model, messages, s.temperature, True) for messages in requests]
        unique = dict(zip(keys, requests, strict=True))
        self.cache.prefetch([(key,) for key in unique])
        with ThreadPoolExecutor(max_workers=s.concurrency) as pool:
            answers = dict(zip(unique, pool.map(lambda messages: self.complete_json(stage, messages, validate),
                                                unique.values()), strict=True))
        return [answers[key] for key in keys]

    def report(self) -> dict:
        with self._lock:
            return {"model": self.settings.model, "stages": {k: v.as_dict() for k, v in sorted(self.usage.items())}}

    def close(self) -> None:
        self.cache.close()
        self._client.close()


def _retry_after(exc: Any) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass
class Prompt:
    """A prompt template file: a system part and a user part separated by a line '---user---'."""

    system: str
    user: str
    name: str = ""

    @classmethod
    def load(cls, path: Path) -> "Prompt":
        text = Path(path).read_text(encoding="utf-8")
        if "\n---user---\n" not in text:
            raise LLMError(f"prompt {path} has no '---user---' line between its system and user parts")
        system, user = text.split("\n---user---\n", 1)
        return cls(system.strip(), user.strip(), Path(path).stem)

    def messages(self, **values: str) -> list[dict]:
        """Both parts with their {name} placeholders filled (JSON examples in braces are left alone)."""
        def fill(text: str) -> str:
            def one(match: re.Match) -> str:
                if match.group(1) not in values:
                    raise LLMError(f"prompt {self.name} needs a value for {match.group(1)!r}")
                return str(values[match.group(1)])
            return _PLACEHOLDER.sub(one, text)

        return [{"role": "system", "content": fill(self.system)}, {"role": "user", "content": fill(self.user)}]
