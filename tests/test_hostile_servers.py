"""The local servers (``serve``, ``view``, ``serve-env``) driven as a hostile client would.

Every server is started here on 127.0.0.1 on an ephemeral port and stopped after. Hostile
means: another site's page (foreign ``Host`` by DNS rebinding, foreign ``Origin``, cross-origin
``text/plain`` POSTs), a client that names modules, oversized or misspelled arguments, one
player finishing many games at once, hundreds of idle connections, symlinks out of a report.
"""

from __future__ import annotations

import fcntl
import http.client
import importlib
import inspect
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest
from helpers import cli, openenv_server

from mtp_gym.eval.log import read_episodes
from mtp_gym.web.server import HostPolicy, exposure_warning, is_loopback, make_play_server, make_view_server

HN = "MTP/HiddenNumber-v0"
EVIL = "evil.example"


# ------------------------------------------------------------------ helpers
def serving(server: Any) -> tuple[str, int]:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[:2]


def stop(server: Any) -> None:
    server.shutdown()
    server.server_close()


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> tuple[int, dict[str, str], Any]:
    """One request to 127.0.0.1:``port``; (status, headers, JSON body or bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sent = {"Host": f"127.0.0.1:{port}", **(headers or {})}
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    if data is not None and raw is None:
        sent.setdefault("Content-Type", "application/json")
    try:
        conn.request(method, path, data, sent)
        response = conn.getresponse()
        payload = response.read()
        try:
            payload = json.loads(payload)
        except ValueError:
            pass
        return response.status, dict(response.getheaders()), payload
    finally:
        conn.close()


def start_game(port: int, name: str, config_id: int, env_id: str = HN) -> str:
    code, _, state = request(port, "POST", "/api/start", {"env_id": env_id, "name": name, "config_id": config_id})
    assert code == 200, state
    return state["session"]


# ------------------------------------------------------------------ serve: Host and Origin
def test_play_server_refuses_other_sites_pages(tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    _, port = serving(server)
    try:
        game = {"env_id": HN, "name": "eve", "config_id": 0}
        # DNS rebinding: the attacker's name resolves to 127.0.0.1, the browser sends it as Host
        code, _, body = request(port, "POST", "/api/start", game, {"Host": f"{EVIL}:{port}"})
        assert code == 403 and body["error"].startswith(f"Host: '{EVIL}:{port}' does not name this server")
        assert f"127.0.0.1:{port}" in body["error"] and f"localhost:{port}" in body["error"]
        code, _, body = request(port, "GET", "/api/envs", headers={"Host": f"{EVIL}:{port}"})
        assert code == 403
        code, _, _ = request(port, "GET", "/", headers={"Host": f"127.0.0.1:{port + 1}"})  # another port
        assert code == 403
        # a cross-origin text/plain POST (a "simple" request: no preflight) from another site's page
        code, _, body = request(
            port,
            "POST",
            "/api/start",
            raw=json.dumps(game).encode(),
            headers={"Origin": f"http://{EVIL}", "Content-Type": "text/plain"},
        )
        assert code == 403 and body["error"].startswith(f"Origin: 'http://{EVIL}' is a page of another site")
        assert request(port, "POST", "/api/start", game, {"Origin": "null"})[0] == 403
        # without an Origin, text/plain is still no JSON request
        code, _, body = request(
            port, "POST", "/api/start", raw=json.dumps(game).encode(), headers={"Content-Type": "text/plain"}
        )
        assert code == 400 and body["error"] == "Content-Type: must be application/json, got 'text/plain'"
        assert not (tmp_path / "human_eve").exists()
        # the player's own page, under each loopback alias, works
        for host in ("127.0.0.1", "localhost"):
            code, _, state = request(
                port, "POST", "/api/start", game, {"Host": f"{host}:{port}", "Origin": f"http://{host}:{port}"}
            )
            assert code == 200 and state["env_id"] == HN
        assert request(port, "GET", "/", headers={"Host": f"[::1]:{port}"})[0] == 200
    finally:
        stop(server)


def test_play_api_answers_malformed_bodies_with_400(tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    _, port = serving(server)
    try:
        cases = {
            b"{not json": "body: not JSON",
            b"\xff\xfe{}": "body: not JSON",
            b"[1, 2]": "body: must be a JSON object",
            json.dumps({"env_id": ["a"], "name": "eve"}).encode(): "env_id: unknown ['a']",
            json.dumps({"env_id": {"a": 1}, "name": "eve"}).encode(): "env_id: unknown {'a': 1}",
        }
        for raw, error in cases.items():
            code, _, body = request(port, "POST", "/api/start", raw=raw, headers={"Content-Type": "application/json"})
            assert code == 400 and body["error"].startswith(error), (raw, body)
        code, _, body = request(
            port, "POST", "/api/step", raw=b"{}", headers={"Content-Type": "application/json", "Content-Length": "-1"}
        )
        assert code == 400 and body["error"].startswith("Content-Length: must be a non-negative int")
    finally:
        stop(server)


# ------------------------------------------------------------------ serve: finished games
def test_one_player_finishing_eight_games_at_once_logs_all_eight(tmp_path):
    """8 threads finish 8 games of one player at the same instant: 8 responses 200, 8 lines."""
    server = make_play_server("127.0.0.1", 0, tmp_path)
    _, port = serving(server)
    configs = [0, 0, 1, 1, 2, 2, 3, 3]  # each configuration twice: samples 0 and 1
    try:
        sessions = [start_game(port, "eve", c) for c in configs]
        barrier = threading.Barrier(len(sessions))
        answers: list[Any] = [None] * len(sessions)

        def finish(i: int) -> None:
            barrier.wait()
            answers[i] = request(port, "POST", "/api/step", {"session": sessions[i], "action": "<answer>3</answer>"})

        threads = [threading.Thread(target=finish, args=(i,)) for i in range(len(sessions))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        stop(server)
    assert [a[0] for a in answers] == [200] * 8, answers
    assert all(a[2]["done"] and a[2]["result"]["agent"] == "human:eve" for a in answers)
    records, _ = read_episodes(tmp_path / "human_eve" / "episodes.jsonl")
    assert sorted((r["config_id"], r["sample"]) for r in records) == [(c, s) for c in range(4) for s in (0, 1)]


def test_a_game_finished_while_the_log_is_busy_is_logged(tmp_path, monkeypatch):
    """Another process holds the player's log: the finish waits for it; past the wait it gets a
    503 naming the file, the game stays finished-not-logged, and the next step logs it."""
    import mtp_gym.eval.human as human

    server = make_play_server("127.0.0.1", 0, tmp_path)
    _, port = serving(server)
    directory = tmp_path / "human_eve"
    directory.mkdir()
    try:
        lock = open(directory / ".lock", "a+")  # noqa: SIM115 - the other writer, holding the lock
        fcntl.flock(lock, fcntl.LOCK_EX)
        threading.Timer(0.5, lambda: fcntl.flock(lock, fcntl.LOCK_UN)).start()
        started = time.monotonic()
        code, _, state = request(
            port, "POST", "/api/step", {"session": start_game(port, "eve", 0), "action": "<answer>3</answer>"}
        )
        assert code == 200 and state["result"]["sample"] == 0 and time.monotonic() - started >= 0.4

        monkeypatch.setattr(human, "LOG_WAIT_SECONDS", 0.2)
        fcntl.flock(lock, fcntl.LOCK_EX)
        sid = start_game(port, "eve", 1)
        code, headers, body = request(port, "POST", "/api/step", {"session": sid, "action": "<answer>3</answer>"})
        assert code == 503 and headers["Retry-After"] == "1"
        assert (
            body["error"].startswith("log: the game is over (")
            and "episodes.jsonl could not be written" in body["error"]
        )
        assert "send any move again to retry" in body["error"]
        fcntl.flock(lock, fcntl.LOCK_UN)
        code, _, state = request(port, "POST", "/api/step", {"session": sid, "action": "again"})
        assert code == 200 and state["done"] and state["result"]["sample"] == 0
        assert state["info"]["turn"] == 1  # the retry played no move
        code, _, body = request(port, "POST", "/api/step", {"session": sid, "action": "again"})
        assert code == 400 and body["error"] == "session: this game is over; start a new one"
        lock.close()
    finally:
        stop(server)
    records, _ = read_episodes(directory / "episodes.jsonl")
    assert sorted(r["config_id"] for r in records) == [0, 1]


# ------------------------------------------------------------------ serve: caps
def test_a_new_game_over_the_cap_is_refused_and_no_game_in_play_is_evicted(tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path, max_sessions=3)
    app = server.RequestHandlerClass.app
    _, port = serving(server)
    game = {"env_id": HN, "name": "eve", "config_id": 0}
    try:
        sessions = [start_game(port, "eve", c) for c in range(3)]
        code, headers, body = request(port, "POST", "/api/start", game, {"Origin": f"http://127.0.0.1:{port}"})
        assert code == 503 and headers["Retry-After"] == "1"
        assert body["error"].startswith("sessions: 3 games are in play, the server's cap; no game is evicted")
        for sid in sessions:  # every game in play still plays
            code, _, state = request(port, "POST", "/api/step", {"session": sid, "action": "<query_odd></query_odd>"})
            assert code == 200 and state["info"]["turn"] == 1
        code, _, state = request(port, "POST", "/api/step", {"session": sessions[0], "action": "<answer>3</answer>"})
        assert code == 200 and state["done"]
        assert request(port, "POST", "/api/start", game)[0] == 200  # the finished game made room
        assert (
            request(port, "POST", "/api/step", {"session": sessions[1], "action": "<query_odd></query_odd>"})[0] == 200
        )
        assert request(port, "POST", "/api/start", game)[0] == 503
        app.idle_seconds = 0.2  # games idle that long are dropped, and only they
        time.sleep(0.3)
        assert request(port, "POST", "/api/start", game)[0] == 200
        code, _, body = request(
            port, "POST", "/api/step", {"session": sessions[1], "action": "<query_odd></query_odd>"}
        )
        assert code == 400 and body["error"] == "session: unknown or expired; start a new game"
    finally:
        stop(server)


def test_idle_connections_take_no_thread_and_the_server_still_answers(tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    _, port = serving(server)
    assert request(port, "GET", "/api/envs")[0] == 200  # the pool is up
    before = threading.active_count()
    sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(400)]
    try:
        deadline = time.monotonic() + 10
        while server.open_connections < 400:
            assert time.monotonic() < deadline, server.open_connections
            time.sleep(0.05)
        assert threading.active_count() <= before + 1
        started = time.monotonic()
        code, _, envs = request(port, "GET", "/api/envs")
        assert code == 200 and len(envs) > 30 and time.monotonic() - started < 5
    finally:
        for s in sockets:
            s.close()
        stop(server)


def test_connections_past_the_cap_get_a_503_and_idle_ones_are_closed(tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path, max_connections=20, idle_seconds=0.5)
    _, port = serving(server)
    sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    try:
        deadline = time.monotonic() + 10
        while server.open_connections < 20:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as extra:
            reply = b""
            while chunk := extra.recv(4096):  # the server closes it after the 503
                reply += chunk
        assert reply.startswith(b"HTTP/1.0 503 ") and b"20 connections are open (the cap)" in reply
        for s in sockets:  # the server drops them once idle for idle_seconds
            s.settimeout(10)
            assert s.recv(1) == b""
        deadline = time.monotonic() + 10
        while server.open_connections:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert request(port, "GET", "/api/envs")[0] == 200
    finally:
        for s in sockets:
            s.close()
        stop(server)


# ------------------------------------------------------------------ view
def test_view_serves_the_report_but_no_symlink_out_and_no_other_site(tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (report / "report.html").write_text("<html>report</html>")
    (report / "scores.png").write_bytes(b"png")
    (tmp_path / "secret.txt").write_text("secret")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "key").write_text("key")
    (report / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (report / "leakdir").symlink_to(tmp_path / "private")
    (report / "figure.png").symlink_to(report / "scores.png")  # a link inside the report is fine
    server = make_view_server("127.0.0.1", 0, report)
    _, port = serving(server)
    try:
        code, _, body = request(port, "GET", "/")
        assert code == 200 and body == b"<html>report</html>"
        assert request(port, "GET", "/figure.png")[2] == b"png"
        for path in ("/leak.txt", "/leakdir/key", "/leakdir/", "/../secret.txt", "/%2e%2e/secret.txt"):
            code, _, body = request(port, "GET", path)
            assert code == 404 and b"secret" not in body, path
        assert request(port, "GET", "/", headers={"Host": f"{EVIL}:{port}"})[0] == 403
        assert request(port, "GET", "/report.html", headers={"Origin": f"http://{EVIL}"})[0] == 403
        assert request(port, "GET", "/", headers={"Host": f"localhost:{port}"})[0] == 200
    finally:
        stop(server)


# ------------------------------------------------------------------ the Host rule and the --host warning
def test_the_host_rule():
    loop = HostPolicy(["127.0.0.1"], 8765)
    assert loop.refusal(["127.0.0.1:8765"], []) is None
    assert loop.refusal(["LOCALHOST:8765"], ["http://localhost:8765"]) is None
    assert loop.refusal(["[::1]:8765"], []) is None
    assert loop.refusal([], []) is None  # no Host: not a browser
    for host in (f"{EVIL}:8765", "127.0.0.1:8766", "127.0.0.1", "10.0.0.5:8765", "[::1", "a b:8765"):
        assert loop.refusal([host], []) is not None, host
    for origin in (f"http://{EVIL}", "null", "file://", "http://127.0.0.1:9999", "http://10.0.0.5:8765"):
        assert loop.refusal(["127.0.0.1:8765"], [origin]) is not None, origin
    assert loop.refusal(["127.0.0.1:8765", "127.0.0.1:8765"], []) is not None  # two Host headers
    lan = HostPolicy(["10.0.0.5"], 8000)  # a non-loopback address: its Host is accepted too
    assert lan.refusal(["10.0.0.5:8000"], ["http://10.0.0.5:8000"]) is None
    assert lan.refusal(["10.0.0.6:8000"], []) is not None and lan.refusal([f"{EVIL}:8000"], []) is not None
    anywhere = HostPolicy(["0.0.0.0"], 8000)  # this machine's IPs and names; never a stranger's name
    assert anywhere.refusal(["192.168.1.20:8000"], ["http://192.168.1.20:8000"]) is None
    assert anywhere.refusal([f"{socket.gethostname()}:8000"], []) is None
    assert anywhere.refusal([f"{EVIL}:8000"], []) is not None
    assert anywhere.refusal(["192.168.1.20:8000"], ["http://192.168.1.99:8000"]) is not None
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.1.1"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.5", "example.org"))
    assert exposure_warning("127.0.0.1", "x") is None
    assert exposure_warning("0.0.0.0", "run envs on it").startswith(
        "warning: --host 0.0.0.0 is not a loopback address: anyone who can reach this machine can run envs on it"
    )


@pytest.mark.parametrize("command", ["serve", "view", "serve-env"])
def test_a_non_loopback_host_is_warned_about(command, tmp_path):
    """192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes first, then a
    clean error that it cannot listen; nothing binds beyond 127.0.0.1."""
    if command == "serve-env":
        pytest.importorskip("openenv")
    (tmp_path / "report.html").write_text("<html></html>")
    extra = {"serve": ["--out", str(tmp_path)], "view": [str(tmp_path), "--no-browser"], "serve-env": []}[command]
    res = cli(command, "--host", "192.0.2.1", "--port", "18999", *extra, timeout=60)
    assert res.returncode != 0
    assert res.stderr.startswith("warning: --host 192.0.2.1 is not a loopback address"), res.stderr
    assert "cannot" in res.stderr and "Traceback" not in res.stderr


# ------------------------------------------------------------------ serve-env
@pytest.fixture(scope="module")
def openenv_port() -> Iterator[int]:
    pytest.importorskip("openenv")
    with openenv_server() as port:
        yield port


def reset(port: int, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any, float]:
    started = time.monotonic()
    code, _, payload = request(port, "POST", "/reset", body, headers)
    return code, payload, time.monotonic() - started


def test_serve_env_imports_nothing_a_client_names(openenv_port):
    assert "this" not in sys.modules
    for body in (
        {"env_id": "MTP/HiddenSubset-v0", "env_kwargs": {"game": "this:Nope"}},
        {"env_id": "MTP/WordGuess-v0", "env_kwargs": {"game": "this:Nope"}},
        {"env_id": "MTP/HiddenSubset-v0", "env_kwargs": {"game": "mtp_gym.games.hidden_number:HiddenNumber"}},
    ):
        code, payload, _ = reset(openenv_port, body)
        assert code == 400 and payload["detail"].startswith("env_kwargs.game: not taken from clients"), payload
    assert "this" not in sys.modules  # the Zen was not printed
    for env_id in ("this:Nope", "mtp_gym.envs.word_guess:WordGuessEnv", "MTP/Nope-v0", ["MTP/WordGuess-v0"]):
        code, payload, _ = reset(openenv_port, {"env_id": env_id})
        assert code == 400 and payload["detail"].startswith(f"env_id: {env_id!r} is not registered; allowed: ['MTP/")


def test_serve_env_refuses_oversized_and_mistyped_kwargs_fast(openenv_port):
    noise = {
        "env_id": "MTP/HiddenSubset-v0",
        "env_kwargs": {"probe": "noise", "probe_kwargs": {"rule_sentences": 10**6}},
    }
    code, payload, seconds = reset(openenv_port, noise)
    assert code == 400 and seconds < 1
    assert payload == {"detail": "env_kwargs.probe_kwargs.rule_sentences: must be an int in [0, 100], got 1000000"}
    refused = {
        "MTP/HiddenNumber-v0": [
            ({"difficulty": "3"}, "env_kwargs.difficulty: must be an int in [1, 5], got '3'"),
            ({"difficulty": True}, "env_kwargs.difficulty: must be an int in [1, 5], got True"),
            ({"configs_per_level": 10**9}, "env_kwargs.configs_per_level: must be an int in [1, 1000]"),
            ({"max_turns": 10**7}, "env_kwargs.max_turns: must be an int in [1, 1000] or null"),
            ({"probe_kwargs": {"seed": 1}}, "env_kwargs.probe_kwargs: given without env_kwargs.probe"),
            (
                {"probe": "noise", "probe_kwargs": {"sentences": 3}},
                "env_kwargs.probe_kwargs: unknown key 'sentences'; allowed: ['reply_fragments', 'rule_sentences', 'seed']",
            ),
            (
                {"probe": "necessity", "probe_kwargs": {"exact_limit": 10**12}},
                "env_kwargs.probe_kwargs.exact_limit: must be an int in [1, 20000000]",
            ),
            (
                {"probe": "boundary", "probe_kwargs": {"games": ["this:Nope"]}},
                "env_kwargs.probe_kwargs.games: must be a list of at most",
            ),
            (
                {"probe": "mtp_gym.wrappers.probes:IntraGameNoise"},
                "env_kwargs.probe: must be one of ['isomorphic', 'noise', 'boundary', 'counterfactual', 'necessity'] or null",
            ),
            (
                {"wording": {"rules": "{budget.__class__.__init__.__globals__}"}},
                "env_kwargs.wording: must be an object",
            ),
            ({"wording": {"rules": "{budget:>999999999}"}}, "env_kwargs.wording: must be an object"),
            (
                {"vocabulary": {"number": "x" * 10_000}},
                "env_kwargs.vocabulary: must be an object of at most 64 strings",
            ),
            ({"render_mode": "human"}, "env_kwargs.render_mode: not taken from clients"),
            (
                {"rule_sentences": 3},
                "env_kwargs: unknown key 'rule_sentences'; allowed: ['configs', 'configs_per_level', 'difficulty'",
            ),
            ([1, 2], "env_kwargs: must be a JSON object of ['configs', "),
        ],
        "MTP/MovieRec-v0": [
            ({"tie_tolerance": "0"}, "env_kwargs.tie_tolerance: must be a number in [0, 1e+06], got '0'")
        ],
        "MTP/WordGuess-v0": [
            ({"vocab_size": 10**6}, "env_kwargs.vocab_size: must be an int in [2, 2000], got 1000000"),
            ({"word_length": 2.0}, "env_kwargs.word_length: must be an int in [3, 10], got 2.0"),
        ],
        "MTP/WordChain-v0": [
            ({"opponent": "mtp_gym.agents:make_agent"}, "env_kwargs.opponent: must be one of ['random']")
        ],
        "MTP/TuringMachine-v0": [({"setup_ids": ["A" * 100]}, "env_kwargs.setup_ids: must be a list of at most 300")],
    }
    for env_id, cases in refused.items():
        for kwargs, detail in cases:
            code, payload, seconds = reset(openenv_port, {"env_id": env_id, "env_kwargs": kwargs})
            assert code == 400 and payload["detail"].startswith(detail), (kwargs, payload)
            assert seconds < 2
    from mtp_gym.integrations.openenv_server import RequestRefused, check_env_kwargs

    for bad in (float("inf"), float("nan"), True):  # Python's JSON reads NaN and Infinity
        with pytest.raises(RequestRefused, match=r"env_kwargs\.base_budget: must be a number in \[0, 1e\+06\]"):
            check_env_kwargs("MTP/MovieRec-v0", {"base_budget": bad})
    # the env's own range checks come back as 400 too, with the env's message
    code, payload, _ = reset(openenv_port, {"env_id": "MTP/WordGuess-v0", "config_id": 400})
    assert code == 400 and payload["detail"] == "reset: config_id must be an int in [0, 399], got 400"
    code, payload, _ = reset(
        openenv_port, {"env_id": "MTP/HiddenNumber-v0", "env_kwargs": {"vocabulary": {"nope": "x"}}}
    )
    assert code == 400 and payload["detail"].startswith("reset: vocabulary keys ['nope'] unknown; allowed:")
    # and what a trainer legitimately passes still plays
    good = {"difficulty": 2, "probe": "noise", "probe_kwargs": {"rule_sentences": 5, "seed": 1}, "max_format_errors": 1}
    code, payload, _ = reset(openenv_port, {"env_id": "MTP/HiddenSubset-v0", "config_id": 3, "env_kwargs": good})
    assert code == 200 and payload["observation"]["config_id"] == 3
    code, payload, _ = reset(openenv_port, {"env_id": "MTP/HiddenNumber-v0", "env_kwargs": {"wording": {"rules": "Find it in {budget} turns.\n{query_formats}\n{answer_format}"}}, "config_id": 0})  # fmt: skip
    budget = gym.make("MTP/HiddenNumber-v0").unwrapped.max_turns
    assert code == 200 and payload["observation"]["text"].startswith(f"Find it in {budget} turns.")


def test_serve_env_refuses_unknown_reset_arguments_and_names_the_allowed_ones(openenv_port):
    code, payload, _ = reset(openenv_port, {"env_id": "MTP/WordGuess-v0", "configid": 3})
    assert code == 400
    assert payload["detail"] == (
        "reset: unknown argument(s) ['configid']; allowed: ['env_id', 'config_id', 'seed', 'env_kwargs', 'episode_id', "
        "'prompt_style', 'system_prompt', 'max_history']"
    )
    for body, detail in (
        ({"config_id": "3"}, "config_id: must be an int in [0, 2147483647] or null, got '3'"),
        ({"episode_id": "x" * 300}, None),  # OpenEnv's own model refuses it: 422
        ({"seed": -1}, None),
    ):
        code, payload, _ = reset(openenv_port, body)
        assert code in (400, 422) and (detail is None or payload["detail"] == detail), payload
    code, _, payload = request(openenv_port, "POST", "/reset", raw=b"[1]", headers={"Content-Type": "application/json"})
    assert code == 422
    code, _, payload = request(openenv_port, "POST", "/step", {"action": {"message": "hi"}})
    assert code == 409 and payload["detail"].startswith("step: no episode in this session; reset first")


def test_serve_env_refuses_other_sites_pages(openenv_port):
    port = openenv_port
    body = {"env_id": "MTP/WordGuess-v0"}
    code, payload, _ = reset(port, body, {"Host": f"{EVIL}:{port}"})
    assert code == 403 and payload["detail"].startswith(f"Host: '{EVIL}:{port}' does not name this server")
    code, payload, _ = reset(port, body, {"Origin": f"http://{EVIL}", "Content-Type": "text/plain"})
    assert code == 403 and payload["detail"].startswith(f"Origin: 'http://{EVIL}' is a page of another site")
    assert request(port, "GET", "/health", headers={"Host": f"{EVIL}:{port}"})[0] == 403
    assert reset(port, body, {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"})[0] == 200

    def handshake(origin: str) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n".encode()
            )
            return s.recv(200)

    assert handshake(f"http://{EVIL}").startswith(b"HTTP/1.1 403")
    assert handshake(f"http://127.0.0.1:{port}").startswith(b"HTTP/1.1 101")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:  # the head is enough to refuse
        s.sendall(
            f"POST /reset HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {5 << 20}\r\n\r\n{{".encode()
        )
        reply = b""
        while not reply.endswith(b"}"):  # the head and the body may come in two reads
            chunk = s.recv(4096)
            assert chunk, reply
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413 ") and reply.endswith(b'{"detail": "body: larger than 4194304 bytes"}')


def test_serve_env_websocket_sessions_get_the_error_and_stay_usable(openenv_port):
    from mtp_gym.integrations.openenv_server import MTPAction, MTPEnvClient

    with MTPEnvClient(base_url=f"http://127.0.0.1:{openenv_port}").sync() as client:
        with pytest.raises(Exception, match=r"env_kwargs\.game: not taken from clients .*\(code: EXECUTION_ERROR\)"):
            client.reset(env_id="MTP/HiddenSubset-v0", env_kwargs={"game": "this:Nope"})
        with pytest.raises(Exception, match=r"reset: unknown argument\(s\) \['configid'\]; allowed: \['env_id'"):
            client.reset(env_id="MTP/WordGuess-v0", configid=3)
        answer = f"<answer>{gym.make(HN).reset(options={'config_id': 0})[1]['hidden']['target']}</answer>"
        step = client.reset(env_id=HN, config_id=0)
        step = client.step(MTPAction(message=answer))
        assert step.done and step.observation.outcome == "success"
        with pytest.raises(Exception, match="has ended; start"):
            client.step(MTPAction(message=answer))
    assert "this" not in sys.modules


def test_serve_env_idle_connections_take_no_thread(openenv_port):
    before = threading.active_count()
    sockets = [socket.create_connection(("127.0.0.1", openenv_port)) for _ in range(400)]
    try:
        time.sleep(0.5)
        assert threading.active_count() <= before + 1
        assert request(openenv_port, "GET", "/health")[0] == 200
    finally:
        for s in sockets:
            s.close()


def test_every_env_and_probe_kwarg_is_listed_for_clients():
    """Every constructor argument of every registered env and probe is either checked for
    clients (type, bounds) or refused by name; each default passes its own check."""
    pytest.importorskip("openenv")
    from mtp_gym.games.env import GameEnv
    from mtp_gym.integrations.openenv_server import NETWORK_KWARGS, NOT_FROM_CLIENTS, PROBE_KWARGS
    from mtp_gym.registration import ENV_IDS, GAME_ENTRY_POINT
    from mtp_gym.wrappers.probes import PROBES

    def params(cls: Any, skip: str) -> dict[str, inspect.Parameter]:
        return {n: p for n, p in inspect.signature(cls).parameters.items() if n != skip}

    for entry in sorted(set(ENV_IDS.values())):
        if entry == GAME_ENTRY_POINT:
            found = params(GameEnv, "self") | {"probe": None, "probe_kwargs": None}
        else:
            module, _, name = entry.partition(":")
            found = params(getattr(importlib.import_module(module), name), "self")
        table = NETWORK_KWARGS[entry]
        assert set(table) == set(found) - set(NOT_FROM_CLIENTS), entry
        for key, param in found.items():
            if key in table and param is not None and param.default not in (inspect.Parameter.empty, None):
                table[key].check(key, param.default)
    for probe, cls in PROBES.items():
        found = params(cls, "env")
        assert set(PROBE_KWARGS[probe]) == set(found), probe
        for key, param in found.items():
            if param.default is not None:
                PROBE_KWARGS[probe][key].check(key, param.default)
