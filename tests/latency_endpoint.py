"""An OpenAI-compatible endpoint on 127.0.0.1 that answers Hidden Number after a fixed latency.

Run as a program (``python tests/latency_endpoint.py --latency 0.2``) it prints its port and
serves until killed; :class:`LatencyEndpoint` starts it in its own process, so its CPU is not
the measured harness's. Every reply is one move of a fixed 4-move Hidden Number game (three
queries, then an answer), chosen by the number of assistant messages sent, so every episode
is exactly 4 requests. ``GET /stats`` gives the requests served and the requests in flight
(mean over time while any was, and peak), and the window from the first request in to the
last answer out; ``POST /stats/reset`` starts a new count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from typing import Any

MOVES = ["<query_odd></query_odd>", "<query_greater>8</query_greater>", "<query_greater>4</query_greater>",
         "<answer>1</answer>"]  # fmt: skip


class Stats:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.served = 0
        self.inflight = 0
        self.peak = 0
        self.area = 0.0  # integral of in-flight requests over time
        self.busy = 0.0  # time with at least one request in flight
        self.last = time.perf_counter()
        self.first_in = self.last_out = None

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
        window = (self.last_out - self.first_in) if self.served else 0.0
        return {
            "served": self.served,
            "window": window,  # first request in to last answer out
            "mean_inflight": self.area / self.busy if self.busy else 0.0,
            "peak": self.peak,
        }


def completion(text: str) -> bytes:
    return json.dumps(
        {
            "id": "latency",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
        }
    ).encode()


async def serve(port: int, latency: float, ready: Any = None) -> None:
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
                        played = sum(m["role"] == "assistant" for m in messages)
                        await asyncio.sleep(latency)
                        out = completion(MOVES[min(played, len(MOVES) - 1)])
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
    """``with LatencyEndpoint(0.2) as ep:`` the server in its own process; ``ep.url``, ``ep.stats()``."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def __enter__(self) -> LatencyEndpoint:
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--latency", str(self.latency)],
            stdout=subprocess.PIPE,
            text=True,
        )
        port = int(self.proc.stdout.readline())
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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.latency))
