"""JupyterLab in headless Chromium, as an attendee uses it (for tests/test_attendee_lab.py).

Needs Debian's ``chromium`` and ``chromium-driver`` (or Chrome and a matching chromedriver on
PATH) and the ``selenium`` package; :data:`MISSING` says what is missing, so tests can skip.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from agent_harness.interfaces.lab import lab_command
from tests.deadlines import PATIENCE_S, wait_for
from tests.ports import free_port as _free_port

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


class Lab:
    """A running JupyterLab: its URL, its log file, and the browser driving it."""

    def __init__(self, url: str, log: Path, driver) -> None:
        self.url, self.log, self.driver = url, log, driver

    def open(self, name: str, settle: float = 2.0) -> None:
        """Open notebook ``name`` and wait until its kernel is idle."""
        self.driver.get(f"{self.url}/lab/tree/{name}?token={TOKEN}")
        wait_for(self.idle, f"the kernel of {name} becoming idle", every=0.5)
        time.sleep(settle)

    def idle(self) -> bool:
        """Whether the status bar shows the kernel idle."""
        from selenium.webdriver.common.by import By

        status = self.driver.find_elements(By.CSS_SELECTOR, ".jp-StatusBar-Widget")
        return any("Idle" in s.text for s in status)

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

        cell = wait_for(lambda: self._code_cell(containing), f"a code cell holding {containing!r}")
        self.driver.execute_script("arguments[0].scrollIntoView();", cell)
        # JupyterLab draws a cell's editor when it comes into view, later on a busy machine
        editor = wait_for(
            lambda: cell.find_elements(By.CSS_SELECTOR, ".cm-content"),
            f"the editor of the cell holding {containing!r}",
        )
        editor[0].click()
        chain = ActionChains(self.driver)
        chain.key_down(Keys.CONTROL).send_keys(Keys.END).key_up(Keys.CONTROL)
        chain.send_keys(Keys.END, Keys.ENTER, text).perform()
        time.sleep(0.5)

    def _code_cell(self, containing: str):
        """The first code cell whose source holds ``containing`` (None while none does).

        Its text is read from the DOM (``textContent``), not as displayed: JupyterLab lays out
        cells outside the window lazily, and a cell not drawn yet shows no text to Selenium.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.by import By

        try:
            for cell in self.driver.find_elements(By.CSS_SELECTOR, ".jp-CodeCell"):
                if containing in (cell.get_attribute("textContent") or ""):
                    return cell
        except StaleElementReferenceException:  # redrawn meanwhile: look again
            pass
        return None

    def save(self) -> None:
        """Ctrl+S, then wait until the tab is no longer dirty."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("s").key_up(
            Keys.CONTROL
        ).perform()
        wait_for(lambda: not self.dirty(), "the notebook saved (its tab no longer dirty)")
        time.sleep(1)

    def run_all(self, wait: float = PATIENCE_S) -> None:
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
        wait_for(self.idle, "the kernel idle after Run All Cells", wait, every=0.5)
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
        deadline = time.monotonic() + PATIENCE_S
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
