"""A scripted OpenAI-compatible endpoint on 127.0.0.1 for fault-injection tests.

``with FakeEndpoint([...]) as ep:`` serves ``POST /v1/chat/completions`` on an ephemeral
port; each request takes the next step of the script, and when the script is spent the
``default`` step (a good reply) answers. A step is one of:

* ``reply(text, reasoning=None)``: a chat completion;
* ``status(code, body=..., headers=...)``: an error answer (``Retry-After`` etc.);
* ``raw(body, content_type)``: a 200 with any body (malformed JSON, an HTML page, no choices);
* ``trickle(delay)``: a reply sent one byte every ``delay`` seconds;
* ``drop()``: the connection closed without an answer;
* ``shaped(content=..., usage=..., choices=...)``: a 200 chat completion with odd fields
  (``MISSING`` leaves a field out);
* ``endless(...)``: a 200 whose body never ends (chunked, or a huge ``Content-Length``, or
  none at all), sent as fast as the client reads, up to ``limit`` bytes; ``step.sent`` counts
  the bytes it wrote.

``ep.requests`` records what each request carried (parsed JSON body, time); at most
``max_requests`` are served, then the server answers 503 (bounded, never a loop).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = Callable[[BaseHTTPRequestHandler], None]


def completion(text: str, reasoning: str | None = None) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return json.dumps(
        {
            "id": "fake",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
        }
    ).encode()


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
USAGE = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}


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


def drop() -> Step:
    def step(h: BaseHTTPRequestHandler) -> None:
        h.close_connection = True
        h.connection.shutdown(2)

    return step


class FakeEndpoint:
    """The scripted server (see the module docstring)."""

    def __init__(self, script: list[Step] | None = None, default: Step | None = None, max_requests: int = 200) -> None:
        self.script = list(script or [])
        self.default = default or reply()
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                with endpoint.lock:
                    n = len(endpoint.requests)
                    endpoint.requests.append(
                        {
                            "time": time.monotonic(),
                            "path": self.path,
                            "headers": dict(self.headers),
                            "json": json.loads(body or b"{}"),
                        }
                    )
                    step = endpoint.script.pop(0) if endpoint.script else endpoint.default
                if n >= endpoint.max_requests:
                    step = status(503)
                try:
                    step(self)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
