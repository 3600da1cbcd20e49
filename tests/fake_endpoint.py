"""The one fake OpenAI-compatible endpoint of the tests and benchmarks (127.0.0.1 only).

Two servers, one reply format (:func:`completion`) and one rule for scripted games
(:func:`move_for`):

**FakeEndpoint**, in this process (fault injection, scripted replies)::

    with FakeEndpoint([status(503), reply("<attempt>CRANE</attempt>")]) as ep:
        ...  # ep.url is "http://127.0.0.1:PORT/v1"; ep.requests what each request carried

It serves ``POST /v1/chat/completions`` (any POST path) on an ephemeral port; each request
takes the next step of the script, and when the script is spent the ``default`` step (a good
reply) answers. With ``api_key="..."`` a request without ``Authorization: Bearer <key>``
gets a 401 instead (the script is not consumed). A step is one of:

* ``reply(text, reasoning=None)``: a chat completion;
* ``by_turn(texts, cycle=False, completion_tokens=3)``: a chat completion chosen by the
  conversation (``texts[n]`` after ``n`` assistant messages), with the prompt counted as
  ``len(JSON of the messages) // 4`` tokens: a deterministic player for whole episodes;
* ``status(code, body=..., headers=...)``: an error answer (``Retry-After`` etc.);
* ``context_overflow()``: the 400 ``context_length_exceeded`` answer of a prompt over the
  context window, the body as OpenAI sends it;
* ``raw(body, content_type)``: a 200 with any body (malformed JSON, an HTML page, no choices);
* ``trickle(delay)``: a reply sent one byte every ``delay`` seconds;
* ``drop()``: the connection closed without an answer;
* ``shaped(content=..., usage=..., choices=...)``: a 200 chat completion with odd fields
  (``MISSING`` leaves a field out);
* ``endless(...)``: a 200 whose body never ends (chunked, or a huge ``Content-Length``, or
  none at all), sent as fast as the client reads, up to ``limit`` bytes; ``step.sent`` counts
  the bytes it wrote;
* ``forward(base_url)``: the request relayed to a real server and its answer sent back (with
  a script of ``status`` steps first: a flaky proxy in front of that server).

``ep.requests`` records what each request carried (``time``, ``path``, ``headers``, parsed
``json``, raw ``body``) and the ``status`` it was answered with; at most ``max_requests`` are
served, then the server answers 503 (bounded, never a loop).

**LatencyEndpoint**, in its own process (so its CPU is not the measured harness's)::

    with LatencyEndpoint(0.2) as ep:
        ...  # ep.url; ep.stats(), ep.stats(reset=True)

Every reply is one move of a fixed 4-move Hidden Number game (:data:`MOVES`: three queries,
then an answer), chosen by :func:`move_for`, after ``latency`` seconds, so every episode is
exactly 4 requests; an asyncio server, for thousands of requests in flight. ``GET /stats``
gives the requests served and the requests in flight (mean over time while any was, and
peak), and the window from the first request in to the last answer out; ``POST /stats/reset``
starts a new count. Run as a program (``python tests/fake_endpoint.py --latency 0.2``) it
prints its port and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any

#: What the replies count when a test does not say (prompt, completion, total).
USAGE = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
#: The latency endpoint's Hidden Number game: three queries, then the answer.
MOVES = ["<query_odd></query_odd>", "<query_greater>8</query_greater>", "<query_greater>4</query_greater>",
         "<answer>1</answer>"]  # fmt: skip
LATENCY_USAGE = {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}


def completion(text: str, reasoning: str | None = None, usage: dict[str, Any] | None = None, id: str = "fake") -> bytes:
    """The body of a chat completion with one choice saying ``text``."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return json.dumps(
        {
            "id": id,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": USAGE if usage is None else usage,
        }
    ).encode()


def move_for(messages: list[dict[str, Any]], texts: Sequence[str], cycle: bool = False) -> str:
    """``texts[n]`` for a request carrying ``n`` assistant messages: past the end, the last one
    again (or from the start with ``cycle=True``)."""
    played = sum(m["role"] == "assistant" for m in messages)
    return texts[played % len(texts)] if cycle else texts[min(played, len(texts) - 1)]


# ------------------------------------------------------------------ FakeEndpoint (in process)
class Handler(BaseHTTPRequestHandler):
    """One connection to a :class:`FakeEndpoint`; ``record`` is what the current request carried."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    endpoint: FakeEndpoint
    record: dict[str, Any]

    def log_message(self, *args: Any) -> None:
        pass

    def send_response(self, code: int, message: str | None = None) -> None:
        if hasattr(self, "record"):
            self.record["status"] = code
        super().send_response(code, message)

    def do_POST(self) -> None:
        endpoint = self.endpoint
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length)
        self.record = {
            "time": time.monotonic(),
            "path": self.path,
            "headers": dict(self.headers),
            "json": json.loads(body or b"{}"),
            "body": body,
        }
        with endpoint.lock:
            n = len(endpoint.requests)
            endpoint.requests.append(self.record)
            if endpoint.api_key is not None and self.headers.get("Authorization") != f"Bearer {endpoint.api_key}":
                step = status(401, '{"error": {"message": "bad key", "type": "invalid_request_error"}}')
            else:
                step = endpoint.script.pop(0) if endpoint.script else endpoint.default
        if n >= endpoint.max_requests:
            step = status(503)
        try:
            step(self)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            del self.record  # the next request on this connection gets its own


Step = Callable[[Handler], None]


def _send(handler: BaseHTTPRequestHandler, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    handler.send_response(code)
    handler.send_header("Content-Type", (headers or {}).pop("Content-Type", "application/json"))
    handler.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


def reply(text: str = "<attempt>STARE</attempt>", reasoning: str | None = None) -> Step:
    return lambda h: _send(h, 200, completion(text, reasoning))


def by_turn(texts: Sequence[str], cycle: bool = False, completion_tokens: int = 3) -> Step:
    """A chat completion chosen by :func:`move_for`; usage: the prompt as ``len(JSON of the
    messages) // 4`` tokens, ``completion_tokens`` for the reply."""

    def step(h: Handler) -> None:
        messages = h.record["json"]["messages"]
        prompt = len(json.dumps(messages)) // 4
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + completion_tokens,
        }
        _send(h, 200, completion(move_for(messages, texts, cycle), usage=usage))

    return step


def status(code: int, body: str = '{"error": {"message": "injected"}}', headers: dict[str, str] | None = None) -> Step:
    return lambda h: _send(h, code, body.encode(), dict(headers or {}))


def raw(body: bytes, content_type: str = "application/json") -> Step:
    return lambda h: _send(h, 200, body, {"Content-Type": content_type})


def trickle(delay: float, text: str = "<attempt>STARE</attempt>") -> Step:
    def step(h: BaseHTTPRequestHandler) -> None:
        body = completion(text)
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        for i in range(len(body)):
            h.wfile.write(body[i : i + 1])
            h.wfile.flush()
            time.sleep(delay)

    return step


#: Leaves a field out of :func:`shaped`'s completion.
MISSING: Any = object()


def shaped(content: Any = "<attempt>STARE</attempt>", usage: Any = USAGE, choices: Any = None) -> Step:
    """A 200 chat completion whose ``content``, ``usage`` or ``choices`` may be odd (``MISSING``:
    absent; ``choices=None``: one choice holding ``content``)."""
    data: dict[str, Any] = {"id": "fake", "object": "chat.completion"}
    if choices is None:
        message = {"role": "assistant"} | ({} if content is MISSING else {"content": content})
        choices = [{"index": 0, "message": message, "finish_reason": "stop"}]
    if choices is not MISSING:
        data["choices"] = choices
    if usage is not MISSING:
        data["usage"] = usage
    body = json.dumps(data).encode()  # NaN and Infinity go out as the bare tokens some servers send
    return lambda h: _send(h, 200, body)


class endless:  # noqa: N801  (a step, named like the others)
    """A 200 whose body never ends: ``mode`` ``"chunked"``, ``"length"`` (a ``Content-Length`` of
    1 TB) or ``"close"`` (no length: the body runs until the connection closes). It stops
    after ``limit`` bytes or when the client hangs up; ``sent`` counts the bytes written."""

    def __init__(self, mode: str = "chunked", limit: int = 1 << 30, block: int = 1 << 16) -> None:
        self.mode, self.limit, self.block, self.sent = mode, limit, block, 0

    def __call__(self, h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        if self.mode == "chunked":
            h.send_header("Transfer-Encoding", "chunked")
        elif self.mode == "length":
            h.send_header("Content-Length", str(10**12))
        else:
            h.send_header("Connection", "close")
            h.close_connection = True
        h.end_headers()
        data = b'{"choices": [{"message": {"content": "' + b"A" * (self.block - 40)
        frame = f"{len(data):x}\r\n".encode() + data + b"\r\n" if self.mode == "chunked" else data
        while self.sent < self.limit:
            h.wfile.write(frame)
            self.sent += len(frame)
            data = b"A" * self.block
            frame = f"{len(data):x}\r\n".encode() + data + b"\r\n" if self.mode == "chunked" else data
        h.close_connection = True


#: OpenAI's answer to a prompt longer than the context window (HTTP 400), as it sends it.
CONTEXT_OVERFLOW_BODY = (
    '{"error": {"message": "This model\'s maximum context length is 8192 tokens. However, your messages '
    'resulted in 9000 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", '
    '"param": "messages", "code": "context_length_exceeded"}}'
)


def context_overflow() -> Step:
    """The real 400 ``context_length_exceeded`` answer (:data:`CONTEXT_OVERFLOW_BODY`)."""
    return status(400, CONTEXT_OVERFLOW_BODY)


def drop() -> Step:
    def step(h: BaseHTTPRequestHandler) -> None:
        h.close_connection = True
        h.connection.shutdown(2)

    return step


def forward(base_url: str, timeout: float = 120) -> Step:
    """The request relayed to ``base_url`` (the path after ``/v1`` appended to it) and the
    server's answer sent back with its status."""

    def step(h: Handler) -> None:
        req = urllib.request.Request(
            base_url + h.path.removeprefix("/v1"), data=h.record["body"], headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                code, data = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            code, data = err.code, err.read()
        _send(h, code, data)

    return step


class FakeEndpoint:
    """The scripted server (see the module docstring)."""

    def __init__(
        self,
        script: list[Step] | None = None,
        default: Step | None = None,
        max_requests: int = 200,
        api_key: str | None = None,
    ) -> None:
        self.script = list(script or [])
        self.default = default or reply()
        self.max_requests = max_requests
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        handler = type("Handler", (Handler,), {"endpoint": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ------------------------------------------------------------------ LatencyEndpoint (own process)
class Stats:
    """The latency server's counts (see the module docstring)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.served = 0
        self.inflight = 0
        self.peak = 0
        self.area = 0.0  # integral of in-flight requests over time
        self.busy = 0.0  # time with at least one request in flight
        self.last = time.perf_counter()
        self.first_in: float | None = None
        self.last_out: float | None = None

    def _tick(self) -> None:
        now = time.perf_counter()
        if self.inflight:
            self.area += self.inflight * (now - self.last)
            self.busy += now - self.last
        self.last = now

    def enter(self) -> None:
        self._tick()
        if self.first_in is None:
            self.first_in = self.last
        self.inflight += 1
        self.peak = max(self.peak, self.inflight)

    def leave(self) -> None:
        self._tick()
        self.inflight -= 1
        self.served += 1
        self.last_out = self.last

    def as_dict(self) -> dict[str, Any]:
        self._tick()
        window = 0.0
        if self.served and self.first_in is not None and self.last_out is not None:
            window = self.last_out - self.first_in
        return {
            "served": self.served,
            "window": window,  # first request in to last answer out
            "mean_inflight": self.area / self.busy if self.busy else 0.0,
            "peak": self.peak,
        }


async def serve(port: int, latency: float) -> None:
    """The latency server on 127.0.0.1:``port`` (0: any free port, printed first)."""
    stats = Stats()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path, _ = line.decode("latin-1").split(" ", 2)
                length = 0
                while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = header.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                body = await reader.readexactly(length) if length else b""
                if path.startswith("/stats"):
                    if method == "POST":
                        stats.reset()
                    out = json.dumps(stats.as_dict()).encode()
                else:
                    stats.enter()
                    try:
                        messages = json.loads(body)["messages"]
                        await asyncio.sleep(latency)
                        out = completion(move_for(messages, MOVES), usage=LATENCY_USAGE, id="latency")
                    finally:
                        stats.leave()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(out)}\r\n\r\n".encode()
                    + out
                )
                await writer.drain()
        except (ConnectionError, ValueError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


class LatencyEndpoint:
    """``with LatencyEndpoint(0.2) as ep:`` the latency server in its own process; ``ep.url``, ``ep.stats()``
    (``port``: listen there, e.g. a port a run already tries to reach; default any free port)."""

    def __init__(self, latency: float, port: int = 0) -> None:
        self.latency, self.port = latency, port

    def __enter__(self) -> LatencyEndpoint:
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--latency", str(self.latency), "--port", str(self.port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        port = int(stdout.readline())
        self.base = f"http://127.0.0.1:{port}"
        self.url = self.base + "/v1"
        return self

    def stats(self, reset: bool = False) -> dict[str, Any]:
        req = urllib.request.Request(
            self.base + "/stats", data=b"" if reset else None, method="POST" if reset else "GET"
        )
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The latency endpoint (see tests/fake_endpoint.py).")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.latency))
