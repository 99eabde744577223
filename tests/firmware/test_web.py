"""The scoreboard page: read-only, pushed changes, a token off this machine, and a real browser."""

from __future__ import annotations

import json
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.app import RefereeLoop
from firmware.journal import Journal
from firmware.referee import Referee
from firmware.table import adapter
from firmware.web import WebError, WebServer, is_loopback, parse_address


def get(url: str, token: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


@pytest.fixture()
def server() -> Iterator[WebServer]:
    with WebServer("127.0.0.1", 0) as web:
        web.start()
        yield web


def base(web: WebServer) -> str:
    return f"http://127.0.0.1:{web.port}"


def served(web: WebServer, check: Callable[[dict[str, Any]], bool], timeout: float = 5.0) -> dict[str, Any]:
    """The state the page serves, once ``check`` holds (publishing reaches the server process a moment later)."""
    deadline = time.monotonic() + timeout
    while True:
        state: dict[str, Any] = json.loads(get(base(web) + "/state.json")[1])
        if check(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.02)


def test_addresses() -> None:
    assert parse_address("8080") == ("127.0.0.1", 8080)
    assert parse_address("[::1]:9000") == ("::1", 9000)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7")
    for bad in ("web", "0", "70000", "host:"):
        with pytest.raises(WebError):
            parse_address(bad)


def test_a_page_on_another_address_gets_a_token_of_its_own() -> None:
    assert WebServer("0.0.0.0", 8080).token  # generated, never None off this machine
    assert WebServer("127.0.0.1", 8080).token is None
    with pytest.raises(WebError, match="token is empty"):
        WebServer("0.0.0.0", 8080, token=" ")


def test_state_record_panels_and_camera_are_served_read_only(server: WebServer) -> None:
    server.publish({"game": "bigtop", "players": [{"name": "Ann", "score": 3}], "moves": ["Ann pass"]},
                   {"game": "bigtop", "moves": ["Ann pass"]}, {"Ann": b"\x89PNG-ann"}, b"jpeg-bytes")
    state = served(server, lambda s: bool(s.get("players")))
    assert state["players"][0]["score"] == 3 and state["camera_version"] == 1
    assert json.loads(get(base(server) + "/record.json")[1])["moves"] == ["Ann pass"]
    assert get(base(server) + "/panel/Ann.png") == (200, b"\x89PNG-ann")
    assert get(base(server) + "/camera.jpg") == (200, b"jpeg-bytes")
    assert get(base(server) + "/panel/Nobody.png")[0] == 404
    assert b"EventSource" in get(base(server) + "/")[1]
    for method in ("POST", "PUT", "DELETE"):
        request = urllib.request.Request(base(server) + "/state.json", method=method, data=b"{}")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=5)
        assert err.value.code == 405


def test_every_request_needs_the_token_when_there_is_one() -> None:
    with WebServer("127.0.0.1", 0, token="a-long-secret") as web:
        web.start()
        assert get(base(web) + "/state.json")[0] == 401
        assert get(base(web) + "/state.json?token=wrong")[0] == 401
        assert get(base(web) + "/state.json?token=a-long-secret")[0] == 200
        assert get(base(web) + "/state.json", token="a-long-secret")[0] == 200
        assert web.url.endswith("/?token=a-long-secret")


def test_changes_are_pushed_to_open_pages_within_a_second(server: WebServer) -> None:
    server.publish({"game": "bigtop", "moves": []})
    served(server, lambda s: s.get("game") == "bigtop")
    with urllib.request.urlopen(base(server) + "/events", timeout=5) as stream:
        first = stream.readline()
        assert first.startswith(b"data: ") and json.loads(first[len(b"data: "):])["moves"] == []
        stream.readline()
        started = time.monotonic()
        server.publish({"game": "bigtop", "moves": ["Ann play clowns-P"]})
        line = stream.readline()
        assert time.monotonic() - started < 1.0
        assert json.loads(line[len(b"data: "):])["moves"] == ["Ann play clowns-P"]


def test_the_referee_loop_feeds_the_page(tmp_path: Path, server: WebServer) -> None:
    table = adapter("fantan")
    night = table.simulated_night(["Ann", "Ben", "Cat"], 1, 3)
    camera = night.camera()
    with Journal.open(tmp_path / "j.db") as journal:
        referee = Referee.new_game(journal, ["Ann", "Ben", "Cat"], table=table, parts=1)
        loop = RefereeLoop(referee, lambda: camera, table.perceiver(), {}, still_frames=3, web=server)
        attach = camera.attach_buttons
        attach(loop.on_button)
        loop.run(max_frames=80)
        moves = referee.live.moves()
        state = served(server, lambda s: s.get("moves") == moves)
        assert state["game"] == "fantan" and state["moves"] == referee.live.moves()
        assert len(state["moves"]) > 0 and [p["name"] for p in state["players"]] == ["Ann", "Ben", "Cat"]
        assert get(base(server) + "/camera.jpg")[0] == 200
        assert get(base(server) + "/panel/centre.png")[1].startswith(b"\x89PNG")
        assert json.loads(get(base(server) + "/record.json")[1])["game"] == "fantan"


def _browser_available() -> bool:
    return shutil.which("chromium") is not None and shutil.which("chromedriver") is not None


@pytest.mark.skipif(not _browser_available() and not os.environ.get("RINGSIDE_REQUIRE_BROWSER"),
                    reason="headless Chromium is not installed (apt install chromium chromium-driver); CI installs it")
def test_a_real_browser_sees_a_score_change_at_phone_width(server: WebServer, tmp_path: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    players = [{"name": "Ann", "score": 3, "to_move": True}, {"name": "Ben", "score": 0, "to_move": False}]
    server.publish({"game": "bigtop", "title": "Big Top hand 1/4", "status": "playing", "players": players,
                    "moves": ["Ann play clowns-P"], "last_event": "Ann plays clowns-P.", "hint": ""})
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844,
                                                                          "pixelRatio": 2}})
    options.binary_location = shutil.which("chromium") or "chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)
    try:
        driver.get(base(server) + "/")
        wait = WebDriverWait(driver, 10)
        wait.until(lambda d: "Ann" in d.find_element(By.ID, "players").text)
        players[0] = {**players[0], "score": 23}
        server.publish({"game": "bigtop", "title": "Big Top hand 1/4", "status": "playing", "players": players,
                        "moves": ["Ann play clowns-P", "Ben call animals-D4"], "last_event": "Ann earned $20.",
                        "illegal": None, "hint": ""})
        wait.until(lambda d: "23" in d.find_element(By.ID, "players").text)
        assert "Ben call animals-D4" in driver.find_element(By.ID, "moves").text
        # phone width: nothing wider than the screen
        assert driver.execute_script("return window.innerWidth") == 390
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
        shot = tmp_path / "scoreboard-phone.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 1000
        keep = os.environ.get("RINGSIDE_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / shot.name)
    finally:
        driver.quit()
