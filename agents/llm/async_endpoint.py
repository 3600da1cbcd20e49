"""The asyncio twin of :class:`~mtp_gym.agents.llm.endpoint.Connection`: one keep-alive
HTTP/1.1 connection driven by the event loop, with the same total deadline per exchange.

Many episodes in flight then cost one event loop and one socket each, not one thread each:
the harness's ``async`` executor plays every in-flight episode of a run on one loop. What an
answer means is decided by the same :func:`~mtp_gym.agents.llm.endpoint.classify`. Through a
proxy, the exchange falls back to the blocking connection in a worker thread. A body is read
up to :data:`~mtp_gym.agents.llm.endpoint.MAX_BODY` bytes and cut off there, as the blocking
connection does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from mtp_gym.agents.llm.endpoint import MAX_BODY, REACHED, Answer, Connection, Dropped, Unreachable, error_text

__all__ = ["AsyncConnection", "can_connect", "read_response"]

_MAX_HEADER = 65536

if sys.version_info >= (3, 11):
    _timeout = asyncio.timeout  # a deadline on the running task: no task of its own per request
else:  # pragma: no cover (Python 3.10)

    @contextlib.asynccontextmanager
    async def _timeout(seconds: float) -> AsyncIterator[None]:
        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        handle = asyncio.get_running_loop().call_later(seconds, expire)
        try:
            yield
        except asyncio.CancelledError:
            if expired:
                raise asyncio.TimeoutError from None
            raise
        finally:
            handle.cancel()


async def read_response(reader: asyncio.StreamReader, max_body: int = MAX_BODY) -> tuple[Answer, bool]:
    """One HTTP/1.1 response from ``reader`` and whether the server keeps the connection open.

    At most ``max_body`` bytes of the body are read: a longer one is cut off there (the answer
    is ``truncated``, and the connection cannot be kept).
    """
    answer, keep, _ = await _read_response(reader, max_body, False)
    return answer, keep


async def _read_response(reader: asyncio.StreamReader, max_body: int, crlf: bool) -> tuple[Answer, bool, bool]:
    """:func:`read_response`, and whether every line of the head ended in CRLF. ``crlf``: the
    server is known to end them so (an earlier response on the connection did): the head is
    then read in one call up to its blank line, instead of line by line."""
    if crlf:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            raise ConnectionError("response the headers too large") from None
        except asyncio.IncompleteReadError as err:
            where = "inside the headers" if err.partial else "before the status line"
            raise ConnectionError(f"connection closed {where}") from None
        status_line, _, rest = head.partition(b"\n")
        version, code, reason = _status(status_line)
        if len(rest) > _MAX_HEADER:
            raise ConnectionError("response the headers too large")
        headers = _header_fields(rest.split(b"\n")[:-2])
    else:
        status_line = await reader.readline()
        if not status_line:
            raise ConnectionError("connection closed before the status line")
        version, code, reason = _status(status_line)
        headers, crlf = await _read_headers(reader, "the headers")
        crlf = crlf and status_line.endswith(b"\r\n")
    keep = headers.get("connection", "").lower() != "close" and version != "HTTP/1.0"
    chunks: list[bytes] = []
    size = 0
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size_line = await reader.readline()
            length = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if length == 0:
                await _read_headers(reader, "the trailers")
                break
            take = min(length, max_body + 1 - size)
            chunks.append(await reader.readexactly(take))
            size += take
            if size > max_body:
                break
            await reader.readexactly(2)
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if length < 0:
            raise ValueError(f"negative Content-Length {length}")
        if length <= max_body:
            chunks.append(await reader.readexactly(length))
        else:
            size = length  # no need to read it
    else:
        keep = False
        while size <= max_body:
            chunk = await reader.read(min(65536, max_body + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    truncated = size > max_body
    body = b"".join(chunks)[:max_body]
    return Answer(code, reason, headers, body, truncated), keep and not truncated, crlf


def _status(line: bytes) -> tuple[str, int, str]:
    """The HTTP version, status code and reason of a status line."""
    version, _, rest = line.decode("latin-1").strip().partition(" ")
    code, _, reason = rest.partition(" ")
    if not version.startswith("HTTP/") or not (code.isascii() and code.isdigit()):
        raise ConnectionError(f"not an HTTP status line: {line[:80]!r}")
    return version, int(code), reason


async def _read_headers(reader: asyncio.StreamReader, what: str) -> tuple[dict[str, str], bool]:
    """Header lines up to the blank line (at most :data:`_MAX_HEADER` bytes of them), and whether
    every line ended in CRLF."""
    lines: list[bytes] = []
    size = 0
    while True:
        line = await reader.readline()
        size += len(line)
        if size > _MAX_HEADER:
            raise ConnectionError(f"response {what} too large")
        if line in (b"\r\n", b"\n"):
            return _header_fields(lines), all(x.endswith(b"\r\n") for x in (*lines, line))
        if not line:
            raise ConnectionError(f"connection closed inside {what}")
        lines.append(line)


def _header_fields(lines: list[bytes]) -> dict[str, str]:
    """``name: value`` lines as a dict (names in lower case, the last of a name kept)."""
    headers: dict[str, str] = {}
    for line in lines:
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return headers


class AsyncConnection:
    """A keep-alive connection to one endpoint on the running event loop.

    Built from a (blocking) :class:`Connection`, whose URL, TLS and proxy decisions it shares.
    """

    def __init__(self, connection: Connection) -> None:
        self.sync = connection
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._crlf = False  # the server ends the lines of its heads with CRLF (seen on this connection)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None
        self._crlf = False

    async def post(self, path: str, payload: dict[str, Any], headers: dict[str, str], deadline: float) -> Answer:
        """POST ``payload``; the whole exchange ends by ``deadline`` (``time.monotonic()``), else
        :class:`Dropped`; :class:`Unreachable` if no connection can be made."""
        if self.sync.proxy is not None:
            return await asyncio.to_thread(self.sync.post, path, payload, headers, deadline)
        body = json.dumps(payload).encode()
        fresh = self._writer is None
        if fresh:
            await self._connect(deadline)
        try:
            return await self._exchange(path, body, headers, deadline)
        except Dropped:
            self.close()
            if fresh or time.monotonic() >= deadline:
                raise
        await self._connect(deadline)  # a kept-alive connection the server had closed
        try:
            return await self._exchange(path, body, headers, deadline)
        except Dropped:
            self.close()
            raise

    async def _connect(self, deadline: float) -> None:
        c = self.sync
        timeout = max(0.001, min(c.connect_timeout, deadline - time.monotonic()))
        context = ssl.create_default_context() if c.https else None
        try:
            async with _timeout(timeout):
                reader, writer = await asyncio.open_connection(c.host, c.port, ssl=context, limit=1 << 20)
        except (OSError, ssl.SSLError, asyncio.TimeoutError) as err:
            raise Unreachable(f"cannot connect to {c.host}:{c.port}: {error_text(err)}") from err
        self._reader, self._writer = reader, writer
        REACHED.add(c.host, c.port)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def _exchange(self, path: str, body: bytes, headers: dict[str, str], deadline: float) -> Answer:
        reader, writer = self._reader, self._writer
        assert reader is not None and writer is not None
        c = self.sync
        host = c.host if c.port in (80, 443) else f"{c.host}:{c.port}"
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (
            f"POST {c.target(path)} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n{head}\r\n"
        ).encode("latin-1") + body
        try:
            writer.write(request)
            async with _timeout(max(0.001, deadline - time.monotonic())):
                await writer.drain()
                answer, keep, self._crlf = await _read_response(reader, MAX_BODY, self._crlf)
        except (OSError, ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError) as err:
            late = time.monotonic() >= deadline
            raise Dropped(
                "deadline passed before the answer was complete" if late else f"connection lost: {err}"
            ) from err
        if not keep:
            self.close()
        REACHED.add(c.host, c.port)
        return answer


async def can_connect(connection: Connection, timeout: float) -> str | None:
    """``None`` when a connection to ``connection``'s endpoint (through its proxy, TLS included)
    can be made now, else why not (the :class:`Unreachable` message). Nothing is sent."""
    deadline = time.monotonic() + timeout
    try:
        if connection.proxy is not None:
            sync = Connection.__new__(Connection)
            sync.__dict__.update(connection.__dict__, _conn=None)
            await asyncio.to_thread(sync._connect, deadline)
            sync.close()
        else:
            probe = AsyncConnection(connection)
            await probe._connect(deadline)
            probe.close()
    except Unreachable as err:
        return str(err)
    return None
