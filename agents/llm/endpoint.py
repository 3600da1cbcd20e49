"""One HTTP POST to an OpenAI-compatible endpoint, with a total deadline, and what its answer means.

The transport is the standard library's ``http.client`` on one keep-alive connection per
agent, so a request has a deadline for the whole exchange (connect to last byte): a server
that trickles one byte at a time cannot hold it longer. :func:`classify` turns the answer
into a reply, a context overflow, a fault worth another try, or a fault that is not.

An endpoint is input like any other: a body is read up to :data:`MAX_BODY` bytes and cut off
there (a fault of the endpoint, never the model's), a reply's content may come as a list of
parts (joined), and token counts that are not counts are ignored (unknown), not trusted.
"""

from __future__ import annotations

import base64
import email.utils
import heapq
import http.client
import json
import re
import socket
import ssl
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

__all__ = [
    "REACHED",
    "MAX_BODY",
    "Answer",
    "Connection",
    "Dropped",
    "Fault",
    "Unreachable",
    "classify",
    "error_text",
    "is_context_overflow",
    "redact_url",
    "retry_after",
]

#: The most bytes of one response body read (16 MiB; a chat completion is a few KiB): a longer
#: body is cut off here and the answer is an endpoint fault, retried like a malformed one.
MAX_BODY = 16 * 1024 * 1024
#: Token counts at or above this are not counts (the largest integer a JSON double holds exactly).
_MAX_TOKENS = 2**53
#: HTTP statuses worth another try: request timeout, conflict, too early, rate limit, server errors.
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))

# The messages servers send when a prompt outgrows the context window: OpenAI (code
# context_length_exceeded, "maximum context length"), vLLM and llama-cpp-python ("This
# model's maximum context length is N tokens"), llama.cpp's server ("the request exceeds the
# available context size"), SGLang ("is longer than the model's context length"), TGI
# ("`inputs` tokens + `max_new_tokens` must be <= N"), and "prompt is too long" wordings.
_OVERFLOW_RE = re.compile(
    r"context_length_exceeded|maximum context length|exceed\w* (?:the )?(?:available )?context (?:size|window|length)"
    r"|longer than the (?:model's )?(?:maximum )?(?:context|model) length|tokens \+ `?max_new_tokens`? must be <="
    r"|prompt is too long|input is too long for the model|context window",
    re.IGNORECASE,
)
_SECONDS_RE = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")  # ASCII digits only: "²".isdigit() is true
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
_SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token", "auth", "password", "secret"})


class _Reached:
    """How often this process reached each endpoint: connections made and answers read."""

    def __init__(self) -> None:
        self.by_address: dict[tuple[str, int], int] = {}

    def add(self, host: str, port: int) -> None:
        key = (host, port)
        self.by_address[key] = self.by_address.get(key, 0) + 1

    def count(self, connections: list[Connection]) -> int:
        """How often the endpoints of ``connections`` were reached so far."""
        return sum(self.by_address.get((c.host, c.port), 0) for c in connections)


#: Every connection made to an endpoint and every whole HTTP answer (any status) one sent, by
#: its address (the blocking and the event-loop connection count into it): the harness's sign
#: that the endpoint of a run was ever reached (then it never stops the run for being down).
REACHED = _Reached()


def error_text(err: BaseException) -> str:
    """``str(err)``, or the error's type when its text is empty (``asyncio.TimeoutError()``)."""
    return str(err) or type(err).__name__


class Unreachable(ConnectionError):
    """No connection could be made (refused, unknown host, TLS handshake failed)."""


class Dropped(ConnectionError):
    """The connection broke or the deadline passed before the whole answer arrived."""


@dataclass
class Answer:
    """A whole HTTP answer (``truncated``: the body went past :data:`MAX_BODY` and was cut off)."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes
    truncated: bool = False

    def text(self, limit: int = 300) -> str:
        return self.body[:limit].decode("utf-8", errors="replace").strip()


@dataclass
class Fault:
    """A failed request: ``transient`` ones are worth another try (after ``wait`` seconds if the
    server said so)."""

    message: str
    transient: bool
    wait: float | None = None
    overflow: bool = False
    unreachable: bool = False


def redact_url(url: str | None) -> str | None:
    """``url`` without credentials: no ``user:password@``, secret query parameters masked."""
    if not url:
        return url
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = urlencode(
        [(k, "***" if k.lower() in _SECRET_PARAMS else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def is_context_overflow(status: int, body: str) -> bool:
    """Whether an error answer says the prompt does not fit the model's context window."""
    return status >= 400 and _OVERFLOW_RE.search(body) is not None


def retry_after(headers: dict[str, str], now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delay seconds or an HTTP date), or ``None``."""
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if _SECONDS_RE.fullmatch(value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def classify(answer: Answer) -> tuple[str, dict[str, Any]] | Fault:
    """``("reply", message_and_usage)`` for a usable chat completion, else a :class:`Fault`.

    A 200 whose body is not a chat completion (malformed JSON, an HTML page from a proxy, no
    ``choices``, content that is neither text nor a list of parts, a body cut off at
    :data:`MAX_BODY`) is transient: the model has not answered yet. ``content`` given as a
    list of parts (``[{"type": "text", "text": ...}, ...]``) is their text, joined. A token
    count that is not a non-negative integer (a string, NaN, a missing ``usage``) is ``None``
    (unknown), and ``usage_note`` says what was odd.
    """
    if answer.status != 200:
        body = answer.text(2000)
        if is_context_overflow(answer.status, body):
            return Fault(f"HTTP {answer.status}: {answer.text()}", transient=False, overflow=True)
        return Fault(
            f"HTTP {answer.status} {answer.reason}: {answer.text()}",
            transient=answer.status in TRANSIENT_STATUSES,
            wait=retry_after(answer.headers),
        )
    if answer.truncated:
        return Fault(f"HTTP 200 with a body over the {MAX_BODY >> 20} MiB limit (cut off there)", transient=True)
    try:
        data = json.loads(answer.body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        kind = "an HTML page" if answer.body.lstrip()[:1] == b"<" else "malformed JSON"
        return Fault(f"HTTP 200 with {kind}: {answer.text(120)!r}", transient=True)
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return Fault(f"HTTP 200 without choices: {answer.text(200)!r}", transient=True)
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        return Fault(f"HTTP 200 with a choice without a message: {answer.text(200)!r}", transient=True)
    content = message.get("content")
    if content is None and choice.get("finish_reason") not in ("stop", "length", "content_filter", "tool_calls"):
        return Fault(f"HTTP 200 with no content (finish_reason={choice.get('finish_reason')!r})", transient=True)
    text = _content_text(content)
    if text is None:
        return Fault(f"HTTP 200 with content that is not text: {_short(content)}", transient=True)
    usage = data.get("usage")
    prompt, completion = (_token_count(usage, key) for key in ("prompt_tokens", "completion_tokens"))
    note = None
    if not isinstance(usage, dict):
        note = "no usage" if usage is None else f"usage={_short(usage)}"
    elif prompt is None or completion is None:
        note = ", ".join(
            f"usage.{k}={_short(usage.get(k))}"
            for k, v in (("prompt_tokens", prompt), ("completion_tokens", completion))
            if v is None
        )
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return "reply", {
        "content": text,
        "reasoning": reasoning if isinstance(reasoning, str) and reasoning else None,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "usage_note": note,
    }


def _content_text(content: Any) -> str | None:
    """A message's text: a string, ``None`` (empty), or the text of a list of content parts
    (parts of other types, e.g. images or refusals, add nothing); ``None`` if malformed."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("type"), str):
            if part["type"] == "text":
                if not isinstance(part.get("text"), str):
                    return None
                texts.append(part["text"])
        else:
            return None
    return "".join(texts)


def _token_count(usage: Any, key: str) -> int | None:
    """``usage[key]`` if it is a count of tokens (a non-negative whole number), else ``None``."""
    value = usage.get(key) if isinstance(usage, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():  # NaN and infinities included
        return None
    return int(value) if 0 <= value < _MAX_TOKENS else None


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (what an endpoint sent, for a message)."""
    try:
        text = repr(value)
    except RecursionError:
        return "<nested too deep>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Connection:
    """A keep-alive connection to one endpoint; :meth:`post` sends one JSON request.

    The ``http_proxy`` / ``https_proxy`` / ``no_proxy`` environment variables are honoured
    (an https endpoint is reached through a ``CONNECT`` tunnel); loopback never goes through a proxy.
    A response body is read up to :data:`MAX_BODY` bytes; past it the answer is ``truncated``
    and the connection closed.
    """

    def __init__(self, base_url: str, connect_timeout: float = 10.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http(s) URL, got {redact_url(base_url)!r}")
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname, parts.port or (443 if self.https else 80)
        self.path = parts.path.rstrip("/")
        self.query = f"?{parts.query}" if parts.query else ""
        self.userinfo = parts.netloc.rsplit("@", 1)[0] if "@" in parts.netloc else None
        self.connect_timeout = connect_timeout
        bypass = self.host in _LOOPBACK or urllib.request.proxy_bypass(self.host)
        proxy = None if bypass else urllib.request.getproxies().get(parts.scheme)
        self.proxy = urlsplit(proxy if "://" in proxy else f"http://{proxy}") if proxy else None
        self._conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def post(self, path: str, payload: dict[str, Any], headers: dict[str, str], deadline: float) -> Answer:
        """POST ``payload`` to ``base_url + path``; the whole exchange ends by ``deadline``
        (``time.monotonic()``), else :class:`Dropped`. :class:`Unreachable` if no connection
        can be made."""
        body = json.dumps(payload).encode()
        fresh = self._conn is None
        if fresh:
            self._connect(deadline)
        try:
            return self._exchange(path, body, headers, deadline)
        except Dropped:
            self.close()
            if fresh or time.monotonic() >= deadline:
                raise
        # A kept-alive connection the server had closed: one more try on a new one.
        self._connect(deadline)
        try:
            return self._exchange(path, body, headers, deadline)
        except Dropped:
            self.close()
            raise

    def _connect(self, deadline: float) -> None:
        timeout = max(0.001, min(self.connect_timeout, deadline - time.monotonic()))
        host, port = self.host, self.port
        if self.proxy is not None:
            host, port = self.proxy.hostname or "", self.proxy.port or 80
        if self.https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                host, port, timeout=timeout, context=ssl.create_default_context()
            )
            if self.proxy is not None:
                conn.set_tunnel(self.host, self.port, headers=self._proxy_auth())
        else:
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as err:
            conn.close()
            via = f" through proxy {host}:{port}" if self.proxy is not None else ""
            raise Unreachable(f"cannot connect to {self.host}:{self.port}{via}: {error_text(err)}") from err
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._conn = conn
        REACHED.add(self.host, self.port)

    def _proxy_auth(self) -> dict[str, str]:
        if self.proxy is None or not self.proxy.username:
            return {}
        user = f"{unquote(self.proxy.username)}:{unquote(self.proxy.password or '')}"
        return {"Proxy-Authorization": "Basic " + base64.b64encode(user.encode()).decode()}

    def target(self, path: str) -> str:
        """The request target: the path, or the absolute URL when a plain-http proxy forwards it."""
        target = self.path + path + self.query
        if self.proxy is not None and not self.https:
            return f"http://{self.host}:{self.port}{target}"
        return target

    def _exchange(self, path: str, body: bytes, headers: dict[str, str], deadline: float) -> Answer:
        conn = self._conn
        assert conn is not None and conn.sock is not None
        sock = conn.sock
        # At the deadline the socket is shut down, so no trickle of bytes can hold the request.
        token = _WATCHDOG.arm(deadline, sock)
        try:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
            if self.proxy is not None and not self.https:
                headers = {**headers, **self._proxy_auth()}
            conn.request("POST", self.target(path), body=body, headers=headers)
            response = conn.getresponse()
            chunks, size, limit = [], 0, MAX_BODY
            truncated = response.length is not None and response.length > limit  # no need to read it
            while not truncated:
                chunk = response.read1(min(65536, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                truncated = size > limit
                if time.monotonic() >= deadline:
                    raise TimeoutError("deadline")
            if not truncated and (time.monotonic() >= deadline or response.length):
                raise http.client.IncompleteRead(b"".join(chunks), response.length)  # the deadline, or short
            headers = {k.lower(): v for k, v in response.getheaders()}
            answer = Answer(response.status, response.reason, headers, b"".join(chunks)[:limit], truncated)
            if truncated or response.will_close:
                self.close()  # a body left unread: the connection cannot carry another request
            else:
                response.close()  # read to the end: the connection is ready for the next request
            REACHED.add(self.host, self.port)
            return answer
        except (OSError, http.client.HTTPException) as err:
            late = time.monotonic() >= deadline
            raise Dropped(
                "deadline passed before the answer was complete" if late else f"connection lost: {err}"
            ) from err
        finally:
            _WATCHDOG.disarm(token)


class _Watchdog:
    """One thread for the whole process that shuts down sockets whose deadline has passed."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, socket.socket] = {}
        self._next = 0
        self._thread: threading.Thread | None = None

    def arm(self, deadline: float, sock: socket.socket) -> int:
        with self._cond:
            self._next += 1
            token = self._next
            self._armed[token] = sock
            heapq.heappush(self._heap, (deadline, token))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mtp-gym-deadlines", daemon=True)
                self._thread.start()
            if self._heap[0][1] == token:
                self._cond.notify()
        return token

    def disarm(self, token: int) -> None:
        with self._cond:
            self._armed.pop(token, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                _, token = heapq.heappop(self._heap)
                sock = self._armed.pop(token, None)
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


_WATCHDOG = _Watchdog()
