"""The harness at scale: fail-fast only when the endpoint was never reached, a dead endpoint
stopped in seconds (one line), a server still starting kept, resume memory without transcripts,
the progress bar's running sums (issues 28 and 29)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time

import pytest
from fake_endpoint import LatencyEndpoint

from mtp_gym.agents.llm import async_endpoint
from mtp_gym.agents.llm.endpoint import Unreachable, error_text
from mtp_gym.eval import backends
from mtp_gym.eval.harness import AgentConfig, EndpointDown, _Done, _Progress, run_eval
from mtp_gym.eval.log import LOG_NAME, RunLog, read_episodes

HN = "MTP/HiddenNumber-v0"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_empty_error_text_names_the_error_type():
    assert error_text(asyncio.TimeoutError()) == "TimeoutError"
    assert error_text(OSError(111, "Connection refused")) == "[Errno 111] Connection refused"


def test_connect_timeouts_among_thousands_in_flight_do_not_stop_a_served_run(tmp_path, monkeypatch):
    """512 in flight; the first 24 connections time out (once the server has answered other
    requests: the endpoint is up, as when a backlog overflows) and their episodes end first, as
    ``infra_error``. The old rule (the first 3 finished episodes found no endpoint) stopped
    such a run."""
    connect = async_endpoint.AsyncConnection._connect
    failed = []

    async def times_out_first(self: async_endpoint.AsyncConnection, deadline: float) -> None:
        if len(failed) < 24:
            failed.append(time.monotonic())
            give_up = time.monotonic() + 30
            while (await asyncio.to_thread(ep.stats))["served"] == 0 and time.monotonic() < give_up:
                await asyncio.sleep(0.05)
            raise Unreachable(f"cannot connect to {self.sync.host}:{self.sync.port}: {error_text(TimeoutError())}")
        await connect(self, deadline)

    monkeypatch.setattr(async_endpoint.AsyncConnection, "_connect", times_out_first)
    with LatencyEndpoint(0.5) as ep:
        config = AgentConfig("openai:m", {"base_url": ep.url, "max_retries": 0})
        log = run_eval(
            [HN], config, tmp_path, workers=512, env_kwargs={HN: {"configs_per_level": 128}}, samples=8, progress=False
        )
        served = ep.stats()["served"]
    recs = read_episodes(log.path)[0]
    assert len(recs) == 1024  # the run went to its end
    infra = [r for r in recs if r["outcome"] == "infra_error"]
    assert 0 < len(infra) <= 24 and all("TimeoutError" in r["error"] for r in infra)
    assert all(r["outcome"] in ("infra_error", "failure", "success") for r in recs[:3])
    assert [r["outcome"] for r in recs[:3]] == ["infra_error"] * 3  # what used to stop the run
    assert served == 4 * (1024 - len(infra))


def test_a_refused_port_stops_the_run_in_seconds_with_one_line(tmp_path):
    """Default retries (about 47 s per episode before it gives up): the run used to take 3
    episodes of them (137 s); the event loop's own connection attempts stop it."""
    config = AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{_free_port()}/v1"})
    start = time.monotonic()
    with pytest.raises(EndpointDown) as err:
        run_eval([HN], config, tmp_path, workers=4, progress=False)
    assert time.monotonic() - start < 60
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"no endpoint reached in {backends.ENDPOINT_WAIT:g} s")
    assert "Connect call failed" in message or "refused" in message
    assert "Check --base-url" in message and str(tmp_path) in message
    # nothing finished, nothing logged: re-running plays every episode
    assert read_episodes(tmp_path / LOG_NAME)[0] == []


def test_an_unresolvable_host_stops_the_run_in_seconds(tmp_path):
    config = AgentConfig("openai:m", {"base_url": "http://no-such-host.invalid/v1"})
    start = time.monotonic()
    with pytest.raises(EndpointDown, match="no endpoint reached in .*no-such-host.invalid"):
        run_eval([HN], config, tmp_path, workers=2, split="4", progress=False)
    assert time.monotonic() - start < 60


def test_a_dead_endpoint_without_retries_still_stops_after_three_episodes(tmp_path):
    config = AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{_free_port()}/v1", "max_retries": 0})
    with pytest.raises(EndpointDown, match="^the first 3 episodes found no endpoint: endpoint unreachable") as err:
        run_eval([HN], config, tmp_path, workers=1, split="20", progress=False)
    assert "\n" not in str(err.value)
    assert [r["outcome"] for r in read_episodes(tmp_path / LOG_NAME)[0]] == ["infra_error"] * 3


def test_a_server_that_starts_after_a_few_seconds_keeps_the_run(tmp_path):
    port = _free_port()
    box: dict = {}

    def start_later() -> None:
        time.sleep(3)
        box["ep"] = LatencyEndpoint(0.05, port=port).__enter__()

    starter = threading.Thread(target=start_later)
    starter.start()
    try:
        config = AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{port}/v1", "backoff": 0.5})
        log = run_eval([HN], config, tmp_path, workers=8, split="16", progress=False)
    finally:
        starter.join()
        box["ep"].__exit__(None, None, None)
    recs = read_episodes(log.path)[0]
    assert len(recs) == 16 and {r["outcome"] for r in recs} <= {"success", "failure"}


def test_the_watch_stops_once_a_connection_is_made():
    with LatencyEndpoint(0.05) as ep:
        connections = backends.endpoint_connections(AgentConfig("openai:m", {"base_url": ep.url}), HN)
        start = time.monotonic()
        asyncio.run(backends.watch_endpoint(connections, wait=30))
    assert time.monotonic() - start < 5


def _line(config_id: int, outcome: str = "success", score: float = 1.0, tokens: int = 5) -> bytes:
    record = {
        "agent": "oracle",
        "env_id": HN,
        "config_id": config_id,
        "sample": 0,
        "outcome": outcome,
        "score": score,
        "prompt_tokens": tokens,
        "completion_tokens": 1,
        "error": None,
        "actors": [],
        "transcript": [{"role": "user", "content": "x" * 2000}],
        "hidden": {"secret": 3},
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def test_resume_reads_no_transcript_and_keeps_the_latest_record_rule(tmp_path, monkeypatch):
    path = tmp_path / LOG_NAME
    lines = [_line(i, score=i / 10) for i in range(6)]
    lines += [_line(6, "infra_error", None), _line(1, "infra_error", None)]  # a real record wins over a later infra
    lines += [b'{"env_id":"' + HN.encode() + b'","config_id":7,"outcome":"success","score":0.5}\n']  # no transcript
    lines += [_line(2, score=0.9)]  # a replay: the latest real record wins
    path.write_bytes(b"".join(lines))
    parsed = []
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda data, *a, **k: parsed.append(len(data)) or loads(data, *a, **k))
    log = RunLog(tmp_path, {"agent": "oracle"}, {HN: {}})
    monkeypatch.undo()
    assert max(parsed) < 400  # the 2 KB transcripts were never parsed
    assert log.done() == {(HN, i, 0) for i in (0, 1, 2, 3, 4, 5, 7)}
    assert log.finished((HN, 6, 0)) is None and log.infra_errors == 1
    assert log.finished((HN, 2, 0))[:3] == (False, 0.9, 6) and log.finished((HN, 7, 0))[:3] == (False, 0.5, 0)
    # the records are still there for whoever asks: the kept line of each episode, read from the log
    records = log.records
    assert len(records) == 8 and len(list(records)) == 8
    assert {r.key: r.score for r in records} == {(HN, i, 0): s for i, s in [(0, 0.0), (1, 0.1), (2, 0.9), (3, 0.3),
        (4, 0.4), (5, 0.5), (6, None), (7, 0.5)]}  # fmt: skip
    assert all(r.transcript == [] and r.hidden is None for r in records)
    (two,) = [r for r in records if r.key == (HN, 2, 0)]
    log.append(two.replace(score=0.25))  # a later line of the same episode wins
    assert [r.score for r in log.records if r.key == (HN, 2, 0)] == [0.25] and len(log.records) == 8
    log.close()


def test_the_progress_sums_are_running_sums():
    done = _Done()
    for score, tokens in ((1.0, 3), (0.0, 2), (None, 4)):
        done.add(score, tokens)
    bar = _Progress(10, done, "x", enabled=False)
    assert (done.count, bar.scored, bar.score_sum, bar.tokens) == (3, 2, 1.0, 9)
    bar.update({"outcome": "success", "score": 0.5, "prompt_tokens": 1, "completion_tokens": 1})
    bar.update({"outcome": "infra_error", "score": None, "prompt_tokens": 0, "completion_tokens": 0})
    assert (bar.scored, bar.score_sum, bar.tokens, bar.infra) == (3, 1.5, 11, 1)


def test_a_ray_actor_tells_the_driver_its_process_reached_the_endpoint(tmp_path):
    """Ray actors play endpoint episodes in other processes, where the driver's fail-fast rule
    cannot see a connection: each result says whether the actor's process reached the endpoint,
    and once one did, episodes that found no endpoint no longer stop the run."""
    from mtp_gym.agents.llm.endpoint import REACHED
    from mtp_gym.eval.harness import _Recorder

    port = _free_port()
    REACHED.add("127.0.0.1", port)  # an earlier server of this process at the address: not this actor's
    refused = AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 0})
    record, reached = asyncio.run(backends._EndpointPlayer(refused, {HN: {}}, None).play((HN, 0, 0)))
    assert record["outcome"] == "infra_error" and record["error"].startswith("endpoint unreachable")
    assert reached is False
    with LatencyEndpoint(0.01) as ep:
        served = AgentConfig("openai:m", {"base_url": ep.url, "max_retries": 0})
        record_ok, reached = asyncio.run(backends._EndpointPlayer(served, {HN: {}}, None).play((HN, 1, 0)))
    assert record_ok["outcome"] != "infra_error" and reached is True

    def recorder() -> _Recorder:
        log = RunLog(tmp_path / f"run{len(list(tmp_path.iterdir()))}", refused.identity(), {HN: {}})
        return _Recorder(log, _Progress(3, _Done(), "x", False), 3, refused, [(HN, c, 0) for c in range(3)])

    stops = recorder()
    with pytest.raises(EndpointDown):
        for _ in range(3):
            stops(record)
    keeps = recorder()
    keeps.endpoint_reached()
    for _ in range(3):
        keeps(record)


def _spy_processes(monkeypatch: pytest.MonkeyPatch, slots: int) -> list[int]:
    """Event-loop processes of ``slots`` in flight each; the process counts the runs used."""
    used: list[int] = []
    run = backends._run_loops

    def spy(processes, *args):
        used.append(processes)
        return run(processes, *args)

    monkeypatch.setattr(backends, "ASYNC_SLOTS_PER_PROCESS", slots)
    monkeypatch.setattr(backends, "_run_loops", spy)
    return used


@pytest.mark.skipif(backends.async_processes(2 * 4096) < 2, reason="one core: one event loop")
def test_past_one_loops_slots_the_episodes_spread_over_processes_and_lose_nothing(tmp_path, monkeypatch):
    """More episodes in flight than one event loop takes: two processes, each its own loop, play
    every episode once; the log holds what one loop plays (same outcomes, turns and scores per
    episode, as the endpoint answers the same moves), and resuming plays nothing again."""
    used = _spy_processes(monkeypatch, 4)
    kwargs = {"env_kwargs": {HN: {"configs_per_level": 16}}, "samples": 2, "progress": False}
    with LatencyEndpoint(0.02) as ep:
        config = AgentConfig("openai:m", {"base_url": ep.url, "max_retries": 0})
        spread = run_eval([HN], config, tmp_path / "spread", workers=8, **kwargs)
        one = run_eval([HN], config, tmp_path / "one", workers=4, **kwargs)
        served = ep.stats()["served"]
        run_eval([HN], config, tmp_path / "spread", workers=8, **kwargs)
        assert ep.stats()["served"] == served  # resumed: nothing left to play
    assert used == [2]  # the 4-slot run plays on one loop; the resumed run has nothing to play

    def by_episode(path):
        recs = read_episodes(path)[0]
        return {(r["config_id"], r["sample"]): (r["outcome"], r["turns"], r["score"]) for r in recs}, len(recs)

    spread_recs, n = by_episode(spread.path)
    assert n == 32 and spread_recs == by_episode(one.path)[0]
    assert all(outcome != "infra_error" for outcome, _, _ in spread_recs.values())


@pytest.mark.skipif(backends.async_processes(2 * 4096) < 2, reason="one core: one event loop")
def test_spread_over_processes_a_refused_port_still_stops_the_run_in_seconds(tmp_path, monkeypatch):
    used = _spy_processes(monkeypatch, 2)
    config = AgentConfig("openai:m", {"base_url": f"http://127.0.0.1:{_free_port()}/v1"})
    start = time.monotonic()
    with pytest.raises(EndpointDown, match=f"^no endpoint reached in {backends.ENDPOINT_WAIT:g} s"):
        run_eval([HN], config, tmp_path, workers=4, progress=False)
    assert time.monotonic() - start < 60 and used == [2]
    assert read_episodes(tmp_path / LOG_NAME)[0] == []


@pytest.mark.skipif(backends.async_processes(2 * 4096) < 2, reason="one core: one event loop")
@pytest.mark.parametrize("how", ["dies", "raises"])
def test_an_event_loop_process_that_dies_or_fails_stops_the_run_with_its_reason(tmp_path, monkeypatch, how):
    """A loop process killed (exit code 3) or failing (an exception) stops the run with the
    exit code or the traceback, instead of waiting forever for its episodes."""
    import os

    def broken(*args, **kwargs):
        if how == "dies":
            os._exit(3)
        raise ValueError("a bug in the loop")

    _spy_processes(monkeypatch, 2)
    monkeypatch.setattr(backends, "_run_async", broken)
    with LatencyEndpoint(0.01) as ep:
        config = AgentConfig("openai:m", {"base_url": ep.url, "max_retries": 0})
        expected = "died \\(exit code 3\\)" if how == "dies" else "failed:(.|\\n)*ValueError: a bug in the loop"
        with pytest.raises(RuntimeError, match=expected):
            run_eval([HN], config, tmp_path, workers=4, split="8", progress=False)


def _loop_0_fails_after_loop_1_finished(sentinel):
    """Fake event-loop processes: loop 0 fails (its message flushed to the pipe first); then
    loop 1 hands over five finished episodes and ends once told to stop."""

    def child(queue, stop, tasks, *args):
        if tasks == [0]:
            queue.put(("error", "a bug in loop 0", False))
            queue.close()
            queue.join_thread()
            sentinel.touch()
            return
        while not sentinel.exists():
            time.sleep(0.01)
        for k in range(5):
            queue.put(("record", k, False))
        stop.wait(60)
        queue.put(("stopped", None, False))

    return child


@pytest.mark.parametrize("log_fails_at", [None, 2])
def test_a_stopped_run_still_logs_the_episodes_the_other_loops_finished(tmp_path, monkeypatch, log_fails_at):
    """When one loop process stops the run, the episodes another one finished (their records
    still on the way) are handed over before the run stops with the first one's reason, so a
    resume does not play and pay for them again; a log that fails while they are handed over
    ends that at its failure."""
    monkeypatch.setattr(backends, "_async_child", _loop_0_fails_after_loop_1_finished(tmp_path / "failed"))
    got: list[int] = []

    def on_record(k: int) -> None:
        if k == log_fails_at:
            raise OSError("disk full")
        got.append(k)

    start = time.monotonic()
    with pytest.raises(RuntimeError, match="failed:\na bug in loop 0"):
        backends._run_loops(2, on_record, ([0, 1], None, {}, 2, None, None))
    assert got == ([0, 1, 2, 3, 4] if log_fails_at is None else [0, 1])
    assert time.monotonic() - start < 10


def test_an_interrupted_multi_process_run_logs_the_episodes_already_finished(tmp_path, monkeypatch):
    """Ctrl-C while this process logs a record (loop 0's): the records loop 1 had already sent
    are still logged, then the interrupt goes on (as one event loop logs each episode as it ends)."""
    first, sent = tmp_path / "first", tmp_path / "sent"

    def child(queue, stop, tasks, *args):
        if tasks == [0]:
            records, before, after = [100], None, first
        else:
            records, before, after = range(5), first, sent
        while before is not None and not before.exists():
            time.sleep(0.01)
        for k in records:
            queue.put(("record", k, False))
        queue.close()
        queue.join_thread()  # in the pipe, in this order: 100, then 0 to 4
        after.touch()
        stop.wait(60)

    monkeypatch.setattr(backends, "_async_child", child)
    got: list[int] = []

    def on_record(k: int) -> None:
        if k == 100:
            while not sent.exists():
                time.sleep(0.01)
            raise KeyboardInterrupt
        got.append(k)

    with pytest.raises(KeyboardInterrupt):
        backends._run_loops(2, on_record, ([0, 1], None, {}, 2, None, None))
    assert got == [0, 1, 2, 3, 4]


def test_a_loop_told_to_stop_records_no_cancelled_episode():
    """A loop whose stop event is set mid-run cancels its episodes in flight: none of them comes
    back as a record (no infra_error, no loss), only those that ended before; then it raises."""
    stop = threading.Event()
    got = []
    with LatencyEndpoint(0.1) as ep:
        config = AgentConfig("openai:m", {"base_url": ep.url, "max_retries": 0})
        tasks = [(HN, c % 20, c // 20) for c in range(40)]
        threading.Timer(1.5, stop.set).start()
        with pytest.raises(backends._Stopped):
            backends._run_async(tasks, config, {HN: {}}, 8, got.append, stop=stop)
    assert 0 < len(got) < 40, len(got)
    assert all(r.outcome != "infra_error" and r.turns > 0 for r in got), [r.outcome for r in got]


_BODY = b'{"choices": [{"message": {"content": "ok"}}]}'
_CRLF_HEADS = [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Dup: 1\r\nx-dup:  2 \r\n"
    b"X-Colon: a:b\r\n\r\n" % len(_BODY) + _BODY,
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 4\r\n\r\nbusy",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n",
    b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi",
]

_FIRST_HEADERS = {"content-type": "application/json", "content-length": str(len(_BODY)), "x-dup": "2", "x-colon": "a:b"}


def _read(data: bytes, crlf: bool, times: int = 1) -> list[tuple]:
    """``async_endpoint._read_response`` ``times`` over ``data``, then what is left unread."""

    async def main() -> list[tuple]:
        reader = asyncio.StreamReader(limit=1 << 20)
        reader.feed_data(data)
        reader.feed_eof()
        out = []
        for _ in range(times):
            answer, keep, seen = await async_endpoint._read_response(reader, 1 << 20, crlf)
            out.append(((answer.status, answer.reason, answer.headers, answer.body, answer.truncated), keep, seen))
        out.append((await reader.read(),))
        return out

    return asyncio.run(main())


@pytest.mark.parametrize("response", _CRLF_HEADS)
def test_a_crlf_head_read_in_one_call_reads_as_line_by_line(response):
    """A connection whose server ended its heads in CRLF reads the next head in one call: the
    same status, headers (the last of a name kept), body and keep-alive, and the same bytes left
    for the response after it."""
    follow = _CRLF_HEADS[0]
    slow, fast = _read(response + follow, False, 2), _read(response + follow, True, 2)
    assert slow == fast and slow[0][2] is True and slow[-1] == (b"",)
    assert slow[1][0][2] == _FIRST_HEADERS  # the response after it, read from where this one ended
    if response == _CRLF_HEADS[0]:
        assert slow[0][0][:2] == (200, "OK") and slow[0][0][2] == _FIRST_HEADERS and slow[0][0][3] == _BODY


def test_a_head_with_bare_line_feeds_is_read_line_by_line_and_not_taken_for_crlf():
    lf = b"HTTP/1.1 200 OK\nContent-Length: 2\n\nhi"
    mixed = b"HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\nhi"
    for response in (lf, mixed):
        (answer, keep, seen), rest = _read(response, False)
        assert answer[0] == 200 and answer[3] == b"hi" and keep and seen is False and rest == (b"",)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", "connection closed before the status line"),
        (b"HTTP/1.1 200 OK\r\nContent-Len", "connection closed inside the headers"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP status line"),
        (b"HTTP/1.1 200 OK\r\n" + b"X: " + b"y" * 70_000 + b"\r\n\r\n", "too large"),
    ],
)
def test_a_head_read_in_one_call_fails_as_line_by_line_does(data, error):
    for crlf in (False, True):
        with pytest.raises(ConnectionError, match=error):
            _read(data, crlf)


def test_a_kept_alive_connection_reads_later_heads_in_one_call(monkeypatch):
    """Against a real server: the first answer on a connection is read line by line, the next
    ones in one call, and every reply is the server's."""
    from fake_endpoint import FakeEndpoint, reply

    from mtp_gym.agents.llm.endpoint import Connection, classify

    calls = []
    line_by_line = async_endpoint._read_headers

    async def counted(reader: asyncio.StreamReader, what: str) -> tuple:
        calls.append(what)
        return await line_by_line(reader, what)

    monkeypatch.setattr(async_endpoint, "_read_headers", counted)
    with FakeEndpoint([reply(f"<attempt>W{i}</attempt>") for i in range(4)]) as ep:

        async def main() -> list[str]:
            conn = async_endpoint.AsyncConnection(Connection(ep.url))
            texts = []
            for _ in range(4):
                answer = await conn.post("/chat/completions", {"model": "m", "messages": []}, {}, time.monotonic() + 10)
                texts.append(classify(answer)[1]["content"])
            conn.close()
            return texts

        assert asyncio.run(main()) == [f"<attempt>W{i}</attempt>" for i in range(4)]
    assert calls == ["the headers"]  # the first answer only
