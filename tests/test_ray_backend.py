"""``mtp-gym eval --backend ray``: same episodes as the local backend, streamed into the same resumable log.

One new local Ray instance (``ray.init(address="local", num_cpus=2)``: never a cluster that
another run left on this node) serves the whole module; the tests that need
it skip when ``ray`` is not installed (``pip install ray``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fake_endpoint import FakeEndpoint, by_turn

from mtp_gym.cli import main
from mtp_gym.eval.harness import AgentConfig, benchmark_subset, run_eval
from mtp_gym.eval.log import RunLog, read_episodes

#: A fixed sample: the cheap-to-play envs, a few configurations each.
ENVS = ["MTP/WordGuess-v0", "MTP/CircuitDecoding-v0", "MTP/WordChain-v0", "MTP/TuringMachine-v0", "MTP/HiddenNumber-v0"]
SPLIT = "5"
#: What must not depend on where an episode was played.
SAME = (
    "agent",
    "seed",
    "outcome",
    "score",
    "turns",
    "format_errors",
    "prompt_tokens",
    "completion_tokens",
    "error",
    "actors",
    "transcript",
    "hidden",
)


@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray", reason="the Ray backend needs the optional 'ray' package (pip install ray)")
    if ray.is_initialized():  # someone else's instance: use it, leave it running
        yield ray
        return
    ray.init(address="local", num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def by_key(path: Path) -> dict[tuple[str, int], dict]:
    records, _ = read_episodes(path)
    keyed = {(r["env_id"], r["config_id"]): {k: r[k] for k in SAME} for r in records}
    assert len(keyed) == len(records), "an episode was logged twice"
    return keyed


def test_ray_backend_plays_the_same_episodes_as_the_local_one(ray, tmp_path, monkeypatch):
    local = run_eval(ENVS, AgentConfig("oracle"), tmp_path / "local", split=SPLIT, progress=False)
    in_flight = []
    real_wait = ray.wait

    def spy(refs, **kw):
        in_flight.append(len(refs))
        return real_wait(refs, **kw)

    monkeypatch.setattr(ray, "wait", spy)
    main(
        [
            "eval",
            "--env",
            ",".join(ENVS),
            "--agent",
            "oracle",
            "--split",
            SPLIT,
            "--workers",
            "3",
            "--backend",
            "ray",
            "--out",
            str(tmp_path / "ray"),
            "--no-progress",
            "--no-report",
        ]
    )
    want, got = by_key(local.path), by_key(tmp_path / "ray" / "oracle" / "episodes.jsonl")
    assert sorted(got) == sorted(want) == sorted((e, c) for e in ENVS for c in _subset(e, SPLIT))
    assert got == want
    assert sum(r["outcome"] == "success" for r in got.values()) >= len(got) - 2  # the oracles do win
    assert max(in_flight) == 3 and len(in_flight) == len(got)  # bounded by --workers, one wait per episode


def _subset(env_id: str, split: str) -> list[int]:
    import gymnasium as gym

    return benchmark_subset(gym.make(env_id), split)


def test_ray_run_resumes_after_a_crash_mid_run(ray, tmp_path, monkeypatch):
    out = tmp_path / "run"
    append = RunLog.append

    def crash_after_three(self, record):
        if len(self.records) == 3:
            raise KeyboardInterrupt  # as if the driver were stopped mid-run
        append(self, record)

    monkeypatch.setattr(RunLog, "append", crash_after_three)
    with pytest.raises(KeyboardInterrupt):
        run_eval(ENVS[:2], AgentConfig("oracle"), out, split="6", workers=2, backend="ray", progress=False)
    monkeypatch.setattr(RunLog, "append", append)
    head = (out / "episodes.jsonl").read_bytes()
    assert head.count(b"\n") == 3
    with (out / "episodes.jsonl").open("ab") as f:
        f.write(b'{"agent": "oracle", "env_id": "MTP/Wor')  # a line cut short by a kill
    run_eval(ENVS[:2], AgentConfig("oracle"), out, split="6", workers=2, backend="ray", progress=False)
    data = (out / "episodes.jsonl").read_bytes()
    assert data.startswith(head) and data.count(b"\n") == 12  # the 3 kept, 9 new, none twice
    local = run_eval(ENVS[:2], AgentConfig("oracle"), tmp_path / "local", split="6", progress=False)
    assert by_key(out / "episodes.jsonl") == by_key(local.path)
    # A finished run plays nothing more.
    run_eval(ENVS[:2], AgentConfig("oracle"), out, split="6", workers=2, backend="ray", progress=False)
    assert (out / "episodes.jsonl").read_bytes() == data


def test_an_error_on_a_worker_is_raised_as_the_local_backend_raises_it(ray, tmp_path):
    wg = ENVS[0]
    with pytest.raises(ValueError, match="config_id.*399"):
        run_eval([wg], AgentConfig("oracle"), tmp_path / "ray", config_ids={wg: [400]}, backend="ray", progress=False)
    with pytest.raises(ValueError, match="config_id.*399"):
        run_eval([wg], AgentConfig("oracle"), tmp_path / "local", config_ids={wg: [400]}, progress=False)


#: The fixed guesses of the endpoint's player (one per turn, from the start again after the last).
WORDS = ["crane", "slate", "moist", "pound", "lucky", "zebra"]


def test_endpoint_agent_is_built_on_the_worker_with_the_drivers_endpoint_and_key(ray, tmp_path, monkeypatch):
    # An endpoint that wants one API key (else 401) and answers deterministically.
    guesses = [f"My guess: <attempt>{w}</attempt>" for w in WORDS]
    with FakeEndpoint(default=by_turn(guesses, cycle=True, completion_tokens=7), api_key="sekret-123") as server:
        # Set after ray.init: the workers only see these if the backend forwards them.
        monkeypatch.setenv("MTP_TEST_KEY", "sekret-123")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        config = AgentConfig("openai:fake", {"api_key_env": "MTP_TEST_KEY", "max_retries": 0})
        wg, short = ["MTP/WordGuess-v0"], {"MTP/WordGuess-v0": {"max_turns": 4}}
        on_ray = run_eval(
            wg, config, tmp_path / "ray", split="4", workers=2, env_kwargs=short, backend="ray", progress=False
        )
        local = run_eval(wg, config, tmp_path / "local", split="4", env_kwargs=short, progress=False)
    got = by_key(on_ray.path)
    # No infra_error (a worker without the key gets 401): the games ran out of turns, as the fixed guesses must.
    assert [r["outcome"] for r in got.values()] == ["timeout"] * 4, [r["error"] for r in got.values()]
    assert all(
        r["turns"] == 4
        and r["completion_tokens"] == 7 * 4
        and r["prompt_tokens"] > 0
        and r["transcript"][1]["content"].endswith("<attempt>crane</attempt>")
        for r in got.values()
    )
    assert got == by_key(local.path)


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--backend", "spark"], ["--backend", "'spark'", "local", "ray"]),
        (["--address", "auto"], ["--address", "--backend ray"]),
        (["--backend", "ray", "--executor", "thread"], ["--executor", "--backend local"]),
    ],
)
def test_bad_backend_arguments_name_the_allowed_values(argv, names, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--env", ENVS[0], "--agent", "oracle", "--out", str(tmp_path), *argv])
    message = str(exc.value.code) + capsys.readouterr().err
    assert exc.value.code != 0 and all(n in message for n in names), message
    with pytest.raises(ValueError, match=r"--backend.*'local', 'ray'"):
        run_eval(ENVS[:1], AgentConfig("oracle"), tmp_path / "x", backend="dask")


def test_without_ray_installed_the_error_names_the_package_and_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--env", ENVS[0], "--agent", "oracle", "--backend", "ray", "--out", str(tmp_path / "out")])
    assert "'ray' package" in str(exc.value.code) and "pip install" in str(exc.value.code)
    assert not (tmp_path / "out").exists()  # refused before the run directory was made


@pytest.mark.parametrize(
    ("address", "env", "joins"),
    [
        (None, None, "local"),
        ("auto", None, "auto"),
        ("10.1.2.3:6379", None, "10.1.2.3:6379"),
        (None, "10.1.2.3:6379", None),
    ],
)
def test_no_address_starts_a_new_local_instance_even_beside_a_running_cluster(address, env, joins, monkeypatch):
    """Ray's own default joins whatever cluster runs on this node (one a killed run left behind
    too); without ``--address`` or ``$RAY_ADDRESS`` the run starts its own, as the help says."""
    from mtp_gym.eval import backends

    calls = []

    class FakeRay:
        def is_initialized(self):
            return False

        def init(self, **kwargs):
            calls.append(kwargs)

    monkeypatch.setattr(backends, "import_ray", FakeRay)
    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    backends._ray_connect(address)
    assert [c.get("address") for c in calls] == [joins]


def test_an_address_names_the_same_cluster_by_host_and_port():
    from mtp_gym.eval.backends import _same_address

    assert _same_address("127.0.0.1:6379", "127.0.0.1:6379")
    assert _same_address("localhost:6379", "127.0.0.1:6379")
    assert not _same_address("127.0.0.1:6380", "127.0.0.1:6379")
    assert not _same_address("10.9.9.9:6379", "127.0.0.1:6379")
