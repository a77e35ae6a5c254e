"""One LLM client for every stage: any OpenAI-compatible endpoint, cached, retried, budgeted.

* **Endpoint**: ``base_url`` and ``model`` from settings; the API key from the
  environment variable the settings name (``OPENAI_API_KEY`` by default). The key
  is never written anywhere: not to logs, reports, caches or releases.
* **Cache**: every successful reply is stored in the catalog's ``llm_cache`` table,
  keyed by the SHA-256 of what the reply depends on: the model, the messages, the
  temperature, JSON mode and the version of the prompt the messages were filled from
  (its name and a hash of its template file, see :class:`Prompt`). It is journaled the
  moment it arrives (schemas.storage.cache), so a rerun, or a rerun after a kill, pays for
  nothing twice. An entry written under another key scheme, or one that no longer
  parses, is a miss: the request is sent again.
* **Retries**: 429, 5xx, timeouts, connection errors and answers that are not a chat
  completion (``bad_response``) are retried by tenacity with jittered exponential backoff
  (the server's Retry-After when it sends one), at most ``max_retries`` times. A reply
  without choices or with empty content (``empty_reply``), one that is not JSON
  (``malformed_json``, or ``truncated`` when it stopped at ``max_output_tokens``) or
  not the JSON asked for (``invalid: ...``) is asked again up to ``json_retries``
  times. Then the call is a failure with that error, never passed as a verdict and
  never raised: callers decide what an item without a verdict becomes.
* **Budget**: each request reserves an upper bound of its cost before it is sent
  (see :func:`cost_bound`); the reply then settles the reservation to its cost, counted
  from the larger of the usage the server reports and the tokens counted here of what
  was sent and received (:func:`count_tokens`), so a server that under-reports its usage
  is charged what it was sent and what it said. A request whose bound does not fit in
  what ``budget_usd`` leaves after the money spent and reserved by requests in flight is
  not sent, and no request after it: the calls in flight finish (their replies are
  cached) and :meth:`LLMClient.map` raises :class:`BudgetExceeded` saying what was spent
  and how to go on. So spending passes the budget by no more than what the requests in
  flight received beyond their ``max_tokens`` (one request at ``concurrency`` 1), each
  capped by the reply size limit. The budget is per client, i.e. per run.
* **Reply size**: a reply's HTTP body is read up to ``max_output_tokens`` worth of bytes
  (:func:`reply_byte_limit`) and no further: a longer one is the failure
  ``reply_too_large``, never parsed, never cached, charged at its bound, not retried
  (a server that ignores ``max_tokens`` would only do it again).
* **Accounting**: calls, cache hits, failures by error, tokens and cost per stage.
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
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from schemas.storage.cache import LLM_CACHE, CatalogCache


class LLMError(RuntimeError):
    """The LLM endpoint cannot be used as configured; the message says what to fix."""


class BudgetExceeded(LLMError):
    """The next request would have passed llm.budget_usd; nothing more was sent."""


class ReplyTooLarge(Exception):
    """A reply's body passed the reply size limit; it was read no further."""


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
    max_output_tokens: int = 1024


# The prompt-token bound: every token of a byte-level BPE or byte-fallback tokenizer covers at
# least one byte of UTF-8 text, so a message's text is at most its byte length in tokens; the
# chat template adds role markers and separators around each message and the request.
TOKENS_PER_MESSAGE = 32
TOKENS_PER_REQUEST = 64
# Settling compares sums of float dollars: a cent's millionth is no overspend.
_EPSILON_USD = 1e-9


# Tokens counted here, to charge a reply with when the server's usage says less. The endpoint's tokenizer is
# not known (an OpenAI-compatible server may run any model, and tiktoken downloads its encodings on first use,
# which an offline machine cannot), so text is counted by characters: one token per CJK character (ideographs,
# kana, hangul, CJK punctuation and fullwidth forms) and one per 4 other characters, about what BPE tokenizers
# give Chinese and English text. Chat templates add a few tokens per message and per request.
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]")
LOCAL_TOKENS_PER_MESSAGE = 4
LOCAL_TOKENS_PER_REQUEST = 3
# The reply size limit: a token of a BPE vocabulary spans at most about 16 bytes of UTF-8, twice that once JSON
# escapes it (\uXXXX for a 3-byte character), and the chat completion around the content (id, model, usage,
# finish reason) takes a few hundred bytes.
REPLY_BYTES_PER_TOKEN = 32
REPLY_ENVELOPE_BYTES = 16 * 1024


def count_tokens(text: str) -> int:
    """Tokens counted here: one per CJK character, one per 4 other characters (rounded up)."""
    cjk = _CJK.subn("", text)[1]
    return cjk + -(-(len(text) - cjk) // 4)


def prompt_tokens_counted(messages: Sequence[dict]) -> int:
    """The prompt's tokens counted here: :func:`count_tokens` of each message's content and the template's."""
    return LOCAL_TOKENS_PER_REQUEST + sum(LOCAL_TOKENS_PER_MESSAGE + count_tokens(str(m.get("content") or ""))
                                          for m in messages)


def reply_byte_limit(max_output_tokens: int) -> int:
    """The most bytes of a reply's HTTP body read: ``max_output_tokens`` worth, and the envelope."""
    return REPLY_ENVELOPE_BYTES + REPLY_BYTES_PER_TOKEN * max_output_tokens


def prompt_token_bound(messages: Sequence[dict]) -> int:
    """At most this many prompt tokens: UTF-8 bytes of every message's content, plus
    TOKENS_PER_MESSAGE per message and TOKENS_PER_REQUEST for the request."""
    return TOKENS_PER_REQUEST + sum(TOKENS_PER_MESSAGE + len(str(m.get("content") or "").encode("utf-8"))
                                    for m in messages)


def cost_bound(settings: LLMSettings, messages: Sequence[dict]) -> float:
    """The most one request can cost: the prompt-token bound at the input price plus
    ``max_output_tokens`` (sent as ``max_tokens``, so the reply cannot be longer) at the output price."""
    return (prompt_token_bound(messages) * settings.usd_per_million_input
            + settings.max_output_tokens * settings.usd_per_million_output) / 1e6


@dataclass
class Result:
    data: Any = None  # the parsed (and validated) JSON reply
    error: str = ""  # why there is no data: http_429, timeout, empty_reply, malformed_json, reply_too_large, invalid: ...
    cached: bool = False
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return not self.error


def error_code(error: str) -> str:
    """The short form of a Result error: ``invalid: missing ...`` is ``invalid``."""
    return error.split(":", 1)[0].strip()


@dataclass
class Usage:
    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0  # charged: the larger of the reported and the counted, per reply
    completion_tokens: int = 0
    underreported: int = 0  # replies whose reported usage was below the tokens counted here
    usd: float = 0.0  # from the usage the replies reported
    usd_unconfirmed: float = 0.0  # at their bound: requests cut off (timeout, lost connection) or without usage
    errors: Counter = field(default_factory=Counter)  # failed calls by error code

    def as_dict(self) -> dict:
        return {"calls": self.calls, "cache_hits": self.cache_hits, "failures": self.failures,
                "errors": dict(sorted(self.errors.items())),
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "underreported": self.underreported,
                "usd": round(self.usd, 6), "usd_unconfirmed": round(self.usd_unconfirmed, 6)}


def request_key(model: str, messages: Sequence[dict], temperature: float, json_mode: bool, prompt: str = "") -> str:
    """The cache key of a request; ``prompt``: the version of the prompt the messages came from."""
    body = json.dumps({"model": model, "messages": [dict(m) for m in messages], "temperature": temperature,
                       "json": json_mode, "prompt": prompt}, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def parse_json(content: str) -> Any:
    """The JSON in a reply: the whole text, or a fenced ```json block in it."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[4:] if text.lower().startswith("json") else text
    return json.loads(text)


@dataclass
class _Reply:
    """One request's outcome after its transport retries."""

    content: str = ""
    error: str = ""
    attempts: int = 0
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retryable: bool = False  # a transport error another attempt may get past (429, 5xx, timeout …)
    retry_after: float | None = None  # the server's Retry-After, seconds


_MISS = object()


class LLMClient:
    def __init__(self, settings: LLMSettings, catalog_path: Path, sleep: Callable[[float], None] = time.sleep):
        """Replies are cached in the catalog at ``catalog_path`` (see schemas.storage.cache)."""
        import openai

        key = os.environ.get(settings.api_key_env, "")
        if not settings.base_url or not settings.model:
            raise LLMError("an LLM needs both llm.base_url and llm.model in the settings")
        if settings.max_output_tokens < 1:
            raise ValueError(f"max_output_tokens must be at least 1, got {settings.max_output_tokens}")
        self.settings = settings
        self.cache = CatalogCache(catalog_path, LLM_CACHE)
        self.usage: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self._reserved = 0.0  # cost bounds of the requests in flight
        self._refused = 0.0  # the bound of the request the budget refused; 0 while none was
        self._sleep = sleep
        self._openai = openai
        # The key goes to the client only; "not-needed" lets local servers without auth work.
        self._client = openai.OpenAI(base_url=settings.base_url, api_key=key or "not-needed",
                                     timeout=settings.timeout_s, max_retries=0,
                                     http_client=_bounded_http_client(reply_byte_limit(settings.max_output_tokens)))

    @property
    def name(self) -> str:
        return f"{self.settings.model}@{self.settings.base_url}"

    def _usage(self, stage: str) -> Usage:
        with self._lock:
            return self.usage.setdefault(stage, Usage())

    def _spent(self) -> float:
        return sum(u.usd + u.usd_unconfirmed for u in self.usage.values())

    def spent(self) -> float:
        """Dollars settled so far: reported costs, and the bounds of requests whose cost is unknown."""
        with self._lock:
            return self._spent()

    def _key(self, messages: Sequence[dict]) -> str:
        s = self.settings
        return request_key(s.model, messages, s.temperature, True, getattr(messages, "prompt", ""))

    def _cached(self, key: str, validate: Callable[[Any], str] | None) -> Any:
        """The cached reply's data, or _MISS (nothing cached, or an entry that no longer parses or validates)."""
        row = self.cache.get((key,))
        if row is None:
            return _MISS
        try:
            data = parse_json(row[2])
        except (ValueError, TypeError, IndexError):
            return _MISS
        return _MISS if validate is not None and validate(data) else data

    def complete_json(self, stage: str, messages: Sequence[dict],
                      validate: Callable[[Any], str] | None = None) -> Result:
        """Ask for a JSON reply; validate returns "" when the parsed reply is acceptable, else why not.

        Raises BudgetExceeded when the budget leaves no room for the request; every other problem
        is returned as a failed Result."""
        s = self.settings
        key = self._key(messages)
        usage = self._usage(stage)
        data = self._cached(key, validate)
        if data is not _MISS:
            with self._lock:
                usage.cache_hits += 1
            return Result(data, cached=True)
        attempts, last_error = 0, ""
        for _ in range(s.json_retries + 1):
            reply = self._call(stage, messages)
            attempts += reply.attempts
            if reply.error:  # the transport retries are spent
                last_error = reply.error
                break
            if not reply.content.strip():
                last_error = "empty_reply"
                continue
            try:
                data = parse_json(reply.content)
            except ValueError:
                last_error = "truncated" if reply.finish_reason == "length" else "malformed_json"
                continue
            problem = validate(data) if validate else ""
            if problem:
                last_error = f"invalid: {problem}"
                continue
            self.cache.put((key,), (s.model, stage, reply.content, reply.prompt_tokens, reply.completion_tokens))
            return Result(data, attempts=attempts)
        with self._lock:
            usage.failures += 1
            usage.errors[error_code(last_error)] += 1
        return Result(error=last_error, attempts=attempts)

    def _reserve(self, messages: Sequence[dict]) -> float:
        """Reserve the request's cost bound, or raise BudgetExceeded (and refuse every later request)."""
        s = self.settings
        bound = cost_bound(s, messages)
        with self._lock:
            if self._refused:
                raise BudgetExceeded(self._budget_message())
            if s.budget_usd is not None and self._spent() + self._reserved + bound > s.budget_usd + _EPSILON_USD:
                self._refused = max(bound, _EPSILON_USD)
                raise BudgetExceeded(self._budget_message())
            self._reserved += bound
        return bound

    def _settle(self, usage: Usage, bound: float, cost: float, confirmed: bool) -> None:
        with self._lock:
            self._reserved = max(0.0, self._reserved - bound)
            if confirmed:
                usage.usd += cost
            else:
                usage.usd_unconfirmed += cost

    def _budget_message(self) -> str:
        s = self.settings
        calls = sum(u.calls for u in self.usage.values())
        return (f"LLM budget reached: ${self._spent():.4f} of llm.budget_usd ${s.budget_usd:.2f} spent on {calls} "
                f"requests, and the next request could cost up to ${self._refused:.4f}, so it was not sent. "
                "Every reply received is cached: rerun to go on (cached replies cost nothing), "
                "or raise llm.budget_usd")

    def budget_message(self) -> str:
        with self._lock:
            return self._budget_message()

    def _call(self, stage: str, messages: Sequence[dict]) -> _Reply:
        """One request with its transport retries (tenacity's loop), each attempt reserved against the budget
        and settled. The openai client's own retries stay off (``max_retries=0``): an attempt it retried inside
        would be billed without a reservation."""
        from tenacity import Retrying, retry_if_result, stop_after_attempt

        s = self.settings
        usage = self._usage(stage)

        def wait(state) -> float:  # the server's Retry-After, else jittered exponential backoff
            retry_after = state.outcome.result().retry_after
            return retry_after if retry_after is not None else min(
                s.backoff_max_s, s.backoff_base_s * 2 ** (state.attempt_number - 1) * random.uniform(0.5, 1.5))

        def gave_up(state) -> _Reply:
            return _Reply(error=state.outcome.result().error, attempts=state.attempt_number)

        retrying = Retrying(stop=stop_after_attempt(s.max_retries + 1), wait=wait, sleep=self._sleep,
                            retry=retry_if_result(lambda reply: reply.retryable), retry_error_callback=gave_up)
        attempts = iter(range(1, s.max_retries + 2))
        return retrying(lambda: self._attempt(usage, messages, next(attempts)))

    def _attempt(self, usage: "Usage", messages: Sequence[dict], attempt: int) -> _Reply:
        """One request: its reply, or its error, retryable or not."""
        s, oa = self.settings, self._openai
        bound = self._reserve(messages)
        # Until the outcome is known the request may have been billed: an exception that escapes
        # settles it at its bound.
        cost, confirmed, retry_after = bound, False, None
        try:
            response = self._client.chat.completions.create(
                model=s.model, messages=[dict(m) for m in messages], temperature=s.temperature,
                max_tokens=s.max_output_tokens, response_format={"type": "json_object"})
        except ReplyTooLarge:  # never parsed; the server may have billed it: it stays at its bound
            return _Reply(error="reply_too_large", attempts=attempt)
        except oa.RateLimitError as exc:
            error, retry_after, cost, confirmed = "http_429", _retry_after(exc), 0.0, True
        except oa.APITimeoutError:
            error = "timeout"  # the server may have billed it: it stays at its bound
        except oa.APIConnectionError:
            error = "connection"
        except oa.APIStatusError as exc:
            cost, confirmed = 0.0, True
            if exc.status_code < 500:  # a client error does not heal
                return _Reply(error=f"http_{exc.status_code}", attempts=attempt)
            error, retry_after = f"http_{exc.status_code}", _retry_after(exc)
        except (oa.APIError, ValueError, AttributeError, TypeError):
            error = "bad_response"  # a 200 whose body is not a chat completion (not JSON, or null)
        else:
            reply = _read(response, attempt)
            reported = getattr(response, "usage", None) is not None
            counted = (prompt_tokens_counted(messages), count_tokens(reply.content))
            under = reported and (reply.prompt_tokens < counted[0] or reply.completion_tokens < counted[1])
            reply.prompt_tokens = max(reply.prompt_tokens, counted[0])
            reply.completion_tokens = max(reply.completion_tokens, counted[1])
            charged = (reply.prompt_tokens * s.usd_per_million_input
                       + reply.completion_tokens * s.usd_per_million_output) / 1e6
            # Without reported usage the reply stays at its bound, or more when it said more than that.
            cost = charged if reported else max(bound, charged)
            confirmed = reported
            with self._lock:
                usage.calls += 1
                usage.prompt_tokens += reply.prompt_tokens
                usage.completion_tokens += reply.completion_tokens
                usage.underreported += under
            return reply
        finally:
            self._settle(usage, bound, cost, confirmed)
        return _Reply(error=error, attempts=attempt, retryable=True, retry_after=retry_after)

    def map(self, stage: str, requests: Sequence[Sequence[dict]],
            validate: Callable[[Any], str] | None = None) -> list[Result]:
        """complete_json for each request, ``concurrency`` at a time, results in request order.

        Identical requests are sent once, so concurrent threads never pay twice for one reply. When
        the budget refuses a request, the requests in flight finish and are cached, then this raises
        BudgetExceeded with what was spent."""
        keys = [self._key(messages) for messages in requests]
        unique = dict(zip(keys, requests, strict=True))
        self.cache.prefetch([(key,) for key in unique])
        answers: dict[str, Result] = {}
        refused = False
        with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
            futures = {key: pool.submit(self.complete_json, stage, messages, validate)
                       for key, messages in unique.items()}
            for key, future in futures.items():
                try:
                    answers[key] = future.result()
                except BudgetExceeded:
                    refused = True
        if refused:
            self.cache.flush()
            raise BudgetExceeded(self.budget_message())
        return [answers[key] for key in keys]

    def report(self) -> dict:
        with self._lock:
            return {"model": self.settings.model, "budget_usd": self.settings.budget_usd,
                    "usd": round(self._spent(), 6),
                    "stages": {k: v.as_dict() for k, v in sorted(self.usage.items())}}

    def close(self) -> None:
        self.cache.close()
        self._client.close()


def _read(response: Any, attempts: int) -> _Reply:
    """The content and usage of a chat completion; no choices, no message or no content read as ""."""
    choices = getattr(response, "choices", None) or []
    choice = choices[0] if choices else None
    message = getattr(choice, "message", None)
    used = getattr(response, "usage", None)
    return _Reply(content=str(getattr(message, "content", None) or ""), attempts=attempts,
                  finish_reason=str(getattr(choice, "finish_reason", None) or ""),
                  prompt_tokens=int(getattr(used, "prompt_tokens", 0) or 0),
                  completion_tokens=int(getattr(used, "completion_tokens", 0) or 0))


def _bounded_http_client(limit: int) -> Any:
    """The openai client's HTTP client, with the SDK's defaults, reading a reply's body up to ``limit`` bytes.

    The limit is applied to the response as it arrives (a response hook, so proxies from the environment are
    bounded too): a Content-Length above it is refused before the body is read, and a body without one is
    read chunk by chunk until it passes the limit. The limit counts bytes as they arrive; the body is asked
    for uncompressed (``Accept-Encoding: identity``), so from a server that honours that they are the bytes held."""
    import httpx2
    import openai

    class LimitedStream(httpx2.SyncByteStream):
        def __init__(self, stream: Any):
            self._stream = stream

        def __iter__(self):
            read = 0
            for chunk in self._stream:
                read += len(chunk)
                if read > limit:
                    raise ReplyTooLarge(f"a reply of more than {limit} bytes")
                yield chunk

        def close(self) -> None:
            self._stream.close()

    def bound(response: Any) -> None:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise ReplyTooLarge(f"a reply of {length} bytes, above the limit of {limit}")
        response.stream = LimitedStream(response.stream)

    return openai.DefaultHttpxClient(event_hooks={"response": [bound]}, headers={"Accept-Encoding": "identity"})


def _retry_after(exc: Any) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


class Messages(list):
    """Chat messages filled from a prompt, carrying that prompt's version (part of the cache key)."""

    def __init__(self, messages: Sequence[dict] = (), prompt: str = ""):
        super().__init__(messages)
        self.prompt = prompt


@dataclass
class Prompt:
    """A prompt template file: a system part and a user part separated by a line '---user---'.

    ``version`` is the prompt's name and a hash of its template file: editing the file makes every
    cached reply to it a miss."""

    system: str
    user: str
    name: str = ""
    version: str = ""

    def __post_init__(self) -> None:
        if not self.version:
            digest = hashlib.sha256(f"{self.system}\n---user---\n{self.user}".encode("utf-8")).hexdigest()
            self.version = f"{self.name}:{digest[:16]}"

    @classmethod
    def load(cls, path: Path) -> "Prompt":
        raw = Path(path).read_bytes()
        text = raw.decode("utf-8")
        if "\n---user---\n" not in text:
            raise LLMError(f"prompt {path} has no '---user---' line between its system and user parts")
        system, user = text.split("\n---user---\n", 1)
        name = Path(path).stem
        return cls(system.strip(), user.strip(), name, f"{name}:{hashlib.sha256(raw).hexdigest()[:16]}")

    def messages(self, **values: str) -> Messages:
        """Both parts with their {name} placeholders filled (JSON examples in braces are left alone)."""
        def fill(text: str) -> str:
            def one(match: re.Match) -> str:
                if match.group(1) not in values:
                    raise LLMError(f"prompt {self.name} needs a value for {match.group(1)!r}")
                return str(values[match.group(1)])
            return _PLACEHOLDER.sub(one, text)

        return Messages([{"role": "system", "content": fill(self.system)},
                         {"role": "user", "content": fill(self.user)}], self.version)
