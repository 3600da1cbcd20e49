"""report.html and `mtp-gym serve` in a real browser (headless Chromium through Playwright).

Chromium comes from Debian's package (.ci/run installs it); Playwright's own browser download
is not reachable here. Outside CI, the browser tests skip when either is missing.
"""

from __future__ import annotations

import io
import json
import threading
import urllib.error
import urllib.request

import gymnasium as gym
from helpers import cli
from PIL import Image

from mtp_gym.eval.log import read_episodes
from mtp_gym.web.server import make_play_server, make_view_server
from mtp_gym.wrappers.probes import PROBES

WG = "MTP/WordGuess-v0"


def serving(server):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


def post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def check_screenshot(png: bytes, min_width: int = 800) -> None:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size[0] >= min_width and image.size[1] >= 500
    assert len(image.getcolors(1 << 22)) > 30  # text and colours, not a blank page


def test_play_api_refuses_bad_requests_by_name(tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    url = serving(server)
    try:
        assert post(url + "/api/start", {"env_id": "MTP/Nope-v0", "name": "a"})[1]["error"].startswith(
            "env_id: unknown"
        )
        code, body = post(url + "/api/start", {"env_id": WG, "name": "a b"})
        assert code == 400 and body["error"].startswith("name must be")
        code, body = post(url + "/api/start", {"env_id": WG, "name": "a", "config_id": 400})
        assert code == 400 and "config_id: must be an int in [0, 399]" in body["error"]
        code, body = post(url + "/api/step", {"session": "x", "action": "hi"})
        assert code == 400 and body["error"].startswith("session: unknown")
        code, state = post(url + "/api/start", {"env_id": WG, "name": "a", "config_id": 5})
        assert code == 200 and state["config_id"] == 5 and state["controls"][0]["label"] == "Guess"
        assert "hidden" not in state["info"]
        code, state = post(url + "/api/step", {"session": state["session"], "action": "no tags here"})
        assert code == 200 and state["info"]["turn"] == 0 and state["info"]["format_errors"] == 1
        assert state["transcript"][-1]["content"].startswith("Invalid action:")
    finally:
        server.shutdown()


def test_a_person_plays_word_guess_in_the_browser_and_the_report_shows_it(browser, tmp_path):
    out = tmp_path / "runs"
    server = make_play_server("127.0.0.1", 0, out)
    url = serving(server)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.fill("#name", "alice")
        page.select_option("#env", WG)
        page.fill("#config", "3")
        page.click("#start")
        page.wait_for_selector("#controls button[data-control='Guess']")
        vocabulary = page.eval_on_selector_all("#controls datalist option", "os => os.map(o => o.value)")
        assert len(vocabulary) == 40
        page.fill("#free", "I think it is a word")  # free text without the tag: re-prompted, no turn spent
        page.click("#send")
        page.wait_for_selector(".msg.reprompt")
        assert "turn 0/40" in page.inner_text("#status")
        for turn, word in enumerate(vocabulary, start=1):  # one word per turn until the game ends
            page.fill("#controls input[name='word']", word)
            page.click("#controls button[data-control='Guess']")
            page.wait_for_function(
                "document.body.dataset.finished === '1' || "
                f"document.querySelector('#status').textContent.includes('turn {turn}/40')"
            )
            if page.evaluate("document.body.dataset.finished === '1'"):
                break
        assert page.evaluate("document.body.dataset.finished") == "1"
        result = page.inner_text("#result")
        assert "Game over: success" in result and "human:alice" in result
        check_screenshot(page.screenshot(path=str(tmp_path / "play.png"), full_page=True))
    finally:
        page.close()
        server.shutdown()
    (record,) = read_episodes(out / "human_alice" / "episodes.jsonl")[0]
    assert (record["agent"], record["env_id"], record["config_id"], record["outcome"]) == (
        "human:alice",
        WG,
        3,
        "success",
    )
    assert record["format_errors"] == 1 and record["transcript"][0]["role"] == "user"

    res = cli("report", str(out), "--out", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    assert "| WordGuess | human:alice | 1 |" in res.stdout  # beside the random and oracle rows
    assert "| WordGuess | oracle | 1 |" in res.stdout
    html_page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        html_page.goto((tmp_path / "rep" / "report.html").as_uri())  # offline: a file, no server
        html_page.wait_for_selector("body[data-ready='1']")
        tables = html_page.inner_text("#tables")
        assert "human:alice" in tables and tables.index("Macro averages") < tables.index("Per task and agent")
        agents = html_page.eval_on_selector_all("#f-agent option", "os => os.map(o => o.textContent)")
        assert set(agents) == {"all", "human:alice", "random", "oracle"}
        sizes = html_page.eval_on_selector_all("figure img", "is => is.map(i => i.naturalWidth)")
        assert len(sizes) == 2 and min(sizes) > 300  # scores.png and turns.png, embedded
        html_page.select_option("#f-agent", label="human:alice")
        assert html_page.inner_text("#f-count") == "1 of 3 episodes"
        html_page.click("#list tbody tr")
        html_page.wait_for_selector("#episode .msg")
        assert html_page.locator("#episode .msg.reprompt").count() == 1  # the re-prompt, marked
        assert "Hidden state" in html_page.inner_text("#episode")
        check_screenshot(html_page.screenshot(path=str(tmp_path / "report.png"), full_page=True))
    finally:
        html_page.close()


def test_report_html_filters_episodes_and_view_serves_it(browser, tmp_path):
    res = cli(
        "eval",
        "--env",
        "MTP/HiddenNumber-v0,MTP/TuringMachine-v0",
        "--agent",
        "oracle,random",
        "--split",
        "4",
        "--out",
        str(tmp_path),
        "--no-progress",
    )
    assert res.returncode == 0, res.stderr
    server = make_view_server("127.0.0.1", 0, tmp_path / "report")
    url = serving(server)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert page.inner_text("#f-count") == "16 of 16 episodes"
        page.select_option("#f-task", label="TuringMachine")
        page.select_option("#f-agent", label="oracle")
        assert page.inner_text("#f-count") == "4 of 16 episodes"
        first = page.inner_text("#list tbody tr td:nth-child(3)")  # a configuration the split holds
        page.fill("#f-config", first)
        assert page.inner_text("#f-count") == "1 of 16 episodes"
        page.click("#list tbody tr")
        text = page.inner_text("#episode")
        assert "outcome success" in text and '"answer":' in text  # the secret code, revealed at the end
        assert page.locator("#episode .msg.agent").count() >= 4
        page.fill("#f-config", "")
        page.select_option("#f-outcome", "failure")
        assert page.locator("#list tbody tr").count() == int(page.inner_text("#f-count").split()[0])
    finally:
        page.close()
        server.shutdown()


def test_terminal_play_logs_the_game_for_the_report(tmp_path):
    from mtp_gym.web.controls import controls

    obs, _ = gym.make(WG).reset(options={"config_id": 3})
    words = controls(WG, [obs])[0]["fields"][0]["options"]
    moves = "hello\n" + "".join(f"<attempt>{w}</attempt>\n" for w in words)
    res = cli("play", WG, "--config-id", "3", "--out", str(tmp_path), "--name", "bob", input=moves, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "[format] Reply with one word from the vocabulary as <attempt>WORD</attempt>." in res.stdout
    assert "Logged as human:bob" in res.stdout
    (record,) = read_episodes(tmp_path / "human_bob" / "episodes.jsonl")[0]
    assert (record["outcome"], record["config_id"], record["format_errors"]) == ("success", 3, 1)
    res = cli("play", WG, "--out", str(tmp_path), "--name", "no spaces")
    assert res.returncode != 0 and "--name: name must be" in res.stderr


def fill(control: dict, *values: str) -> str:
    text = control["template"]
    for field, value in zip(control["fields"], values):
        text = text.replace("{" + field["name"] + "}", value)
    return text


def test_the_play_controls_write_moves_the_env_accepts():
    from mtp_gym.web.controls import controls

    def run(env_id: str, choose) -> dict:
        env = gym.make(env_id)
        obs, info = env.reset(options={"config_id": 0})
        seen = [obs]
        for turn in range(40):
            obs, _, terminated, truncated, info = env.step(
                choose(turn, {c["label"]: c for c in controls(env_id, seen)})
            )
            seen.append(obs)
            assert info["format_errors"] == 0, (env_id, turn, obs)
            if terminated or truncated:
                break
        return info

    def movie(turn, cs):
        if "Recommend" in cs:
            return fill(cs["Recommend"], cs["Recommend"]["fields"][0]["options"][-1])
        titles = cs["Ask"]["fields"][0]["options"]
        return fill(cs["Ask"], titles[turn], titles[turn + 1])

    assert run("MTP/MovieRec-v0", movie)["outcome"] in ("success", "failure")

    def tm(turn, cs):  # each round: propose, test one verifier, end the tests, next round
        if "Propose code" in cs:
            return fill(cs["Propose code"], "1", "2", "3")
        if "Test verifier" in cs and turn % 4 == 1:
            return fill(cs["Test verifier"], cs["Test verifier"]["fields"][0]["options"][0])
        return fill(cs["Stop testing (SKIP)"] if "Test verifier" in cs else cs["Next round (SKIP)"])

    info = run("MTP/TuringMachine-v0", tm)
    assert info["turn"] >= 8
    info = run("MTP/WordGuess-v0", lambda turn, cs: fill(cs["Guess"], cs["Guess"]["fields"][0]["options"][turn]))
    assert info["outcome"] == "success"
    assert run("MTP/TwentyQuestions-v0", lambda turn, cs: fill(cs["No"]))["turn"] >= 1


def start_game(page, env_id: str, config: str = "0", name: str = "alice", **choices: str) -> None:
    page.fill("#name", name)
    page.select_option("#env", env_id)
    page.fill("#config", config)
    for field, value in choices.items():  # a query game's level and probe
        page.select_option(f"#{field}", value)
    page.click("#start")
    page.wait_for_selector(f"#status:has-text('{env_id}')")


def labels(page) -> list[str]:
    return page.eval_on_selector_all("#controls button", "bs => bs.map(b => b.textContent)")


def wait_turn(page, turn: int, turns: int) -> None:
    page.wait_for_function(f"document.querySelector('#status').textContent.includes('turn {turn}/{turns}')")


def test_enter_in_a_control_plays_that_control_not_the_free_text(browser, tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    url = serving(server)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if r.url.endswith("/api/step") else None)
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        start_game(page, WG, "3")
        words = page.eval_on_selector_all("#controls datalist option", "os => os.map(o => o.value)")
        page.fill("#controls input[name='word']", words[0])
        page.press("#controls input[name='word']", "Enter")
        wait_turn(page, 1, 40)
        assert page.inner_text("#error") == "" and "format errors 0" in page.inner_text("#status")
        assert page.locator(".msg.you").last.inner_text().endswith(f"<attempt>{words[0]}</attempt>")
        assert page.eval_on_selector("label.field-word", "l => l.firstChild.textContent") == "word"  # labelled
        page.press("#free", "Enter")  # an empty free-text box is not sent
        assert "free-text box is empty" in page.inner_text("#error") and len(requests) == 1
    finally:
        page.close()
        server.shutdown()


def test_turing_machine_offers_only_the_stage_controls_with_labelled_digits(browser, tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    url = serving(server)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        start_game(page, "MTP/TuringMachine-v0")
        assert labels(page) == ["Propose code"]
        names = page.eval_on_selector_all("#controls label.field", "ls => ls.map(l => l.firstChild.textContent)")
        assert names == ["BLUE", "YELLOW", "PURPLE"]  # each digit list is labelled with its colour
        for colour, digit in (("BLUE", "1"), ("YELLOW", "2"), ("PURPLE", "3")):
            page.select_option(f"#controls label.field-{colour} select", digit)
        page.click("#controls button[data-control='Propose code']")
        wait_turn(page, 1, 100)
        assert page.locator(".msg.you").last.inner_text().endswith("<CHOICE>: BLUE=1, YELLOW=2, PURPLE=3")
        assert labels(page) == ["Test verifier", "Stop testing (SKIP)"]
        page.select_option("#controls label.field-verifier select", "1")
        page.click("#controls button[data-control='Test verifier']")
        wait_turn(page, 2, 100)
        assert "You chose Verifier <1>" in page.locator(".msg.env").last.inner_text()
        page.click("#controls button[data-control='Stop testing (SKIP)']")
        wait_turn(page, 3, 100)
        assert labels(page) == ["Next round (SKIP)", "Submit final code"]
        page.click("#controls button[data-control='Next round (SKIP)']")
        wait_turn(page, 4, 100)
        assert labels(page) == ["Propose code"]
        assert "format errors 0" in page.inner_text("#status") and page.locator(".msg.reprompt").count() == 0
    finally:
        page.close()
        server.shutdown()


def test_a_query_game_starts_at_the_chosen_level_with_a_probe_and_the_record_says_so(browser, tmp_path):
    hn = "MTP/HiddenNumber-v0"
    server = make_play_server("127.0.0.1", 0, tmp_path)
    url = serving(server)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#env", WG)
        assert not page.is_visible("#level") and not page.is_visible("#probe")  # no levels, no probes
        page.select_option("#env", hn)
        assert page.input_value("#level") == "3"  # the default level
        assert page.eval_on_selector_all("#level option", "os => os.map(o => o.value)") == list("12345")
        probes = page.eval_on_selector_all("#probe option", "os => os.map(o => o.value)")
        assert probes == ["", *sorted(PROBES)]
        start_game(page, hn, "4", level="2", probe="noise")
        assert "level 2 · probe noise · configuration 4" in page.inner_text("#status")
        budget = gym.make(hn, difficulty=2).unwrapped.max_turns
        assert f"/{budget} " in page.inner_text("#status") and budget != gym.make(hn).unwrapped.max_turns
        page.fill("#free", "<answer>1</answer>")
        page.click("#send")
        page.wait_for_selector("body[data-finished='1']")
    finally:
        page.close()
    (record,) = read_episodes(tmp_path / "human_alice" / "episodes.jsonl")[0]
    assert (record["env_id"], record["config_id"], record["level"], record["probe"]) == (hn, 4, 2, "noise")
    try:  # the same player at another level: refused before the game, naming the logged setting
        code, body = post(url + "/api/start", {"env_id": hn, "name": "alice", "level": 3})
        assert code == 400 and body["error"].startswith("level/probe: alice has played") and "'noise'" in body["error"]
        code, body = post(url + "/api/start", {"env_id": hn, "name": "bob", "level": 6})
        assert code == 400 and "level: must be one of [1, 2, 3, 4, 5]" in body["error"]
        code, body = post(url + "/api/start", {"env_id": WG, "name": "bob", "probe": "noise"})
        assert code == 400 and body["error"].startswith("probe: must be one of none")
        code, state = post(url + "/api/start", {"env_id": hn, "name": "bob", "level": "3", "probe": ""})
        assert code == 200 and state["env_kwargs"] == {}  # the default level, as earlier logs have it
    finally:
        server.shutdown()


def test_the_play_page_fits_a_390px_phone(browser, tmp_path):
    server = make_play_server("127.0.0.1", 0, tmp_path)
    url = serving(server)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    width = "document.documentElement.scrollWidth"
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate(width) <= 390
        for env_id in (WG, "MTP/TuringMachine-v0", "MTP/MovieRec-v0", "MTP/HiddenNumber-v0"):
            start_game(page, env_id)
            page.wait_for_selector("#controls button")
            assert page.evaluate(width) <= 390, env_id
        assert page.is_visible("#level") and page.is_visible("#probe")
        page.fill("#free", "<answer>1</answer>")
        page.click("#send")
        page.wait_for_selector("body[data-finished='1']")
        assert page.evaluate(width) <= 390
        check_screenshot(page.screenshot(full_page=True), min_width=390)
    finally:
        page.close()
        server.shutdown()


def test_every_probe_starts_a_query_game_whose_answer_control_plays(tmp_path):
    from mtp_gym.web.server import PlayApp

    app = PlayApp(tmp_path)
    for probe in sorted(PROBES):
        state = app.start({"env_id": "MTP/HiddenSubset-v0", "name": probe, "level": 2, "probe": probe})
        assert state["env_kwargs"] == {"difficulty": 2, "probe": probe}
        answer = state["controls"][-1]
        assert answer["label"] == "Answer"
        state = app.step({"session": state["session"], "action": fill(answer, *["1"] * len(answer["fields"]))})
        assert state["info"]["format_errors"] == 0 and state["info"]["turn"] == 1, probe
