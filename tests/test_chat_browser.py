"""`workshop chat` in a real browser: headless Chromium (Debian's chromium and chromium-driver)
driven by selenium opens the page Voilà serves, types a question, sends it, waits for the
answer, and checks that the trail shows the memory hits, the tool call and the offload
handle, and that the browser console has no errors and no warning that the page's front-end
packages disagree (version skew); the page of ``--identity`` says whom it acts for and its
trail starts with the identity event. It saves screenshots (in the test's folder, and in
``GLASS_BOX_SCREENSHOT_DIR`` when set).

``.ci/run`` installs Chromium when it is missing; elsewhere the test skips, saying what is
missing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.deadlines import PATIENCE_S
from tests.ports import free_port as _free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1100",
)


def _missing() -> str | None:
    if sys.platform != "linux":
        return "the browser test runs on Linux (Debian's chromium and chromium-driver)"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} is missing: apt-get install -y {package} (.ci/run does it in CI)"
    for module, package in (("selenium", "selenium"), ("voila", "voila")):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (pip install {package})"
    return None


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(_missing() is not None, reason=str(_missing())),
]


def _wait_for_page(
    url: str, server: subprocess.Popen, log: Path, seconds: float = PATIENCE_S
) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"workshop chat exited ({server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"no page at {url} after {seconds} s:\n{log.read_text()}")


@contextlib.contextmanager
def _serve(template, tmp_path, *options: str):
    """`workshop chat [OPTIONS]` on a free port, on a copy of the prepared database; yields
    the page's URL and the demo question that asks for a container's manifest."""
    data = tmp_path / "data"
    shutil.copytree(template, data)
    import agent_harness
    from agent_harness.agent.strategy_eval import demo_questions

    with agent_harness.connect(data_dir=data) as h:
        manifest = next(q.question for q in demo_questions(h) if "manifest" in q.question)
    port = _free_port()
    env = {**os.environ, "WORKSHOP_DATA_DIR": str(data), "WORKSHOP_LLM": "offline"}
    log = tmp_path / "chat.log"
    command = [sys.executable, "-m", "agent_harness.interfaces.cli", "chat", "--port", str(port)]
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [*command, "--no-browser", *options],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its kernel too: the group is stopped at the end
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for_page(url, server, log)
        yield url, manifest, log
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=PATIENCE_S)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


@pytest.fixture
def chat_server(template, tmp_path):
    """`workshop chat` on a free port, on a copy of the prepared database."""
    with _serve(template, tmp_path) as served:
        yield served


#: Console messages that say the page's front-end packages do not agree (issue 28, item 6):
#: Voilà's JupyterLab core against widget code built for another JupyterLab release.
VERSION_SKEW = re.compile(r"Unsatisfied version|No satisfying version|shared (singleton )?module")


def _console_problems(driver) -> list[dict]:
    """Errors, and warnings of front-end packages whose versions do not agree."""
    return [
        entry
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" or VERSION_SKEW.search(entry.get("message", ""))
    ]


def _screenshot(driver, tmp_path: Path, name: str) -> None:
    driver.save_screenshot(str(tmp_path / name))
    if os.environ.get("GLASS_BOX_SCREENSHOT_DIR"):
        folder = Path(os.environ["GLASS_BOX_SCREENSHOT_DIR"])
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / name, folder / name)


def _browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingOptions", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def _text(driver, css: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def test_workshop_chat_answers_in_the_browser_and_shows_the_trail(chat_server, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    url, question, log = chat_server
    driver = _browser(tmp_path / "profile")
    try:
        driver.get(url)
        wait = WebDriverWait(driver, 180)
        box = wait.until(ready.element_to_be_clickable((By.CSS_SELECTOR, ".gb-input input")))
        box.send_keys(question)
        driver.find_element(By.CSS_SELECTOR, "button.gb-send").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".gb-trail .gb-event.gb-answer"))
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".gb-chat .gb-pending"))
        _screenshot(driver, tmp_path, "glass_box.png")
        answers = _text(driver, ".gb-chat .gb-answer")
        assert answers and "[offline replay]" in answers[-1], answers
        hits = _text(driver, ".gb-trail .gb-memory_hit")
        assert hits and all("score" in h for h in hits), hits
        calls = _text(driver, ".gb-trail .gb-tool_call")
        assert any(c.startswith("container_manifest") and " ok " in f"{c} " for c in calls), calls
        offloads = _text(driver, ".gb-trail .gb-offload")
        assert offloads and "fetch_tool_output(tool_call_id='call_" in offloads[0], offloads
        assert "tokens" in " ".join(_text(driver, ".gb-meter")), "the context meter is empty"
        problems = _console_problems(driver)
        assert not problems, json.dumps(problems, indent=1)
    finally:
        driver.quit()


def test_workshop_chat_for_an_identity_says_whom_it_acts_for(template, tmp_path):
    """Issue 28, item 6: the page of `workshop chat --identity ana:analyst:ATLANTIC` says whom
    it acts for, the trail starts with the identity event, the answer has the Atlantic only
    and its value unknown (masked), and the console has no error and no version skew."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    with _serve(template, tmp_path, "--identity", "ana:analyst:ATLANTIC") as (url, _, log):
        driver = _browser(tmp_path / "profile")
        try:
            driver.get(url)
            wait = WebDriverWait(driver, 180)
            box = wait.until(ready.element_to_be_clickable((By.CSS_SELECTOR, ".gb-input input")))
            who = _text(driver, ".gb-identity")
            assert who and who[0].startswith("acts for ana (roles: analyst; voyages of ATLANTIC"), (
                who
            )
            box.send_keys("What is the declared cargo value per ocean region?")
            driver.find_element(By.CSS_SELECTOR, "button.gb-send").click()
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".gb-trail .gb-event.gb-answer"))
            wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".gb-chat .gb-pending"))
            _screenshot(driver, tmp_path, "glass_box_identity.png")
            events = driver.find_elements(By.CSS_SELECTOR, ".gb-trail .gb-event")
            assert events and "gb-identity" in events[0].get_attribute("class").split(), [
                e.get_attribute("class") for e in events[:3]
            ]
            assert events[0].text.startswith("acting for ana"), events[0].text
            answer = _text(driver, ".gb-chat .gb-answer")[-1]
            assert '"ATLANTIC"' in answer and "PACIFIC" not in answer and "null" in answer, answer
            problems = _console_problems(driver)
            assert not problems, json.dumps(problems, indent=1)
        finally:
            driver.quit()
        assert "acting for ana" in log.read_text(), log.read_text()
