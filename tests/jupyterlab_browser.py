"""JupyterLab in headless Chromium, as an attendee uses it (for tests/test_attendee_lab.py).

Needs Debian's ``chromium`` and ``chromium-driver`` (or Chrome and a matching chromedriver on
PATH) and the ``selenium`` package; :data:`MISSING` says what is missing, so tests can skip.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from agent_harness.lab import lab_command

__all__ = ["MISSING", "Lab", "browser", "running_lab"]

CHROMIUM = shutil.which("chromium") or shutil.which("google-chrome") or shutil.which("chrome")
DRIVER = shutil.which("chromedriver")
MISSING = [
    what
    for what, there in (
        ("chromium", CHROMIUM),
        ("chromedriver (apt-get install chromium-driver)", DRIVER),
        ("selenium (pip install selenium)", importlib.util.find_spec("selenium")),
    )
    if not there
]
TOKEN = "attendee-test-token"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running JupyterLab: its URL, its log file, and the browser driving it."""

    def __init__(self, url: str, log: Path, driver) -> None:
        self.url, self.log, self.driver = url, log, driver

    def open(self, name: str, settle: float = 2.0) -> None:
        """Open notebook ``name`` and wait until its kernel is idle."""
        from selenium.webdriver.common.by import By

        self.driver.get(f"{self.url}/lab/tree/{name}?token={TOKEN}")
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            status = self.driver.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-Widget")
            if any("Idle" in s.text for s in status):
                break
            time.sleep(0.5)
        else:
            raise TimeoutError(f"the kernel of {name} did not become idle")
        time.sleep(settle)

    def dirty(self) -> bool:
        """Whether the current notebook's tab shows unsaved changes."""
        from selenium.webdriver.common.by import By

        return bool(
            self.driver.find_elements(
                By.CSS_SELECTOR, "#jp-main-dock-panel .lm-TabBar-tab.jp-mod-dirty"
            )
        )

    def type_at_end_of_cell(self, containing: str, text: str) -> None:
        """Click into the first code cell whose text holds ``containing`` and type a new last
        line ``text`` (with the keyboard, as a person would)."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        cells = self.driver.find_elements(By.CSS_SELECTOR, ".jp-CodeCell")
        cell = next(c for c in cells if containing in c.text)
        self.driver.execute_script("arguments[0].scrollIntoView();", cell)
        cell.find_element(By.CSS_SELECTOR, ".cm-content").click()
        chain = ActionChains(self.driver)
        chain.key_down(Keys.CONTROL).send_keys(Keys.END).key_up(Keys.CONTROL)
        chain.send_keys(Keys.END, Keys.ENTER, text).perform()
        time.sleep(0.5)

    def save(self) -> None:
        """Ctrl+S, then wait until the tab is no longer dirty."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("s").key_up(
            Keys.CONTROL
        ).perform()
        deadline = time.monotonic() + 20
        while self.dirty() and time.monotonic() < deadline:
            time.sleep(0.3)
        time.sleep(1)

    def run_all(self, wait: float = 60.0) -> None:
        """Run > Run All Cells, then wait until the kernel is idle again."""
        from selenium.webdriver.common.by import By

        self.driver.execute_script("document.querySelector('.jp-Notebook').focus();")
        menu = self.driver.find_element(
            By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') and text()='Run']"
        )
        menu.click()
        item = self.driver.find_element(
            By.XPATH, "//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']"
        )
        item.click()
        time.sleep(2)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            status = self.driver.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-Widget")
            if any("Idle" in s.text for s in status):
                break
            time.sleep(0.5)
        time.sleep(1)

    def screenshot(self, path: Path) -> Path:
        self.driver.save_screenshot(str(path))
        return path


@contextlib.contextmanager
def browser(width: int = 1400, height: int = 1000) -> Iterator:
    """A headless Chromium driven by selenium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@contextlib.contextmanager
def running_lab(
    notebook_dir: Path,
    log: Path,
    *,
    instructor: bool = False,
    env=None,
    course=None,
    with_browser: bool = True,
) -> Iterator[Lab]:
    """JupyterLab as ``workshop lab`` starts it (attendee settings unless ``instructor``), on a
    free port, with a known token, and a browser on it."""
    port = _free_port()
    # the runtime folder is given to lab_command, which picks the kernels' transport by it
    env = {
        **(os.environ if env is None else env),
        "JUPYTER_RUNTIME_DIR": str(log.parent / "runtime"),
    }
    command, environment = lab_command(
        port,
        instructor=instructor,
        no_browser=True,
        notebook_dir=notebook_dir,
        env=env,
        course=course,
    )
    command.append(f"--IdentityProvider.token={TOKEN}")
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(command, env=environment, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log.read_text(encoding="utf-8")[-3000:]) from None
                time.sleep(0.5)
        if not with_browser:
            yield Lab(url, log, None)
            return
        with browser() as driver:
            yield Lab(url, log, driver)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
