"""The notebook helpers: a failing check shows the check cell's line and the message once.

Tracebacks are formatted by IPython's own machinery (what Jupyter shows in the notebook).
"""

from __future__ import annotations

import re

import pytest

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def shown_traceback():
    """Run a cell in an IPython shell and return the traceback it would show."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown: list[str] = []
    shell._showtraceback = lambda etype, value, stb: shown.extend(stb)  # ipykernel's hook

    def run(*cells: str) -> str:
        """Run the cells one after the other; the traceback the last one shows."""
        for source in cells:
            shown.clear()
            shell.run_cell(source)
        return ANSI.sub("", "\n".join(shown))

    yield run
    InteractiveShell.clear_instance()


TODO = """
from agent_harness.workshop import call_todo

def top_carriers_by_teu(n):
    # YOUR CODE HERE
    raise NotImplementedError()
"""


def test_an_unfinished_todo_shows_the_check_line_and_the_message_once(shown_traceback):
    text = shown_traceback(TODO, "_top3 = call_todo(top_carriers_by_teu, 3)\n")
    assert "_top3 = call_todo(top_carriers_by_teu, 3)" in text
    assert text.count("top_carriers_by_teu is not implemented yet") == 1, text
    assert "AssertionError" in text
    assert "agent_harness/workshop.py" not in text and "workshop.py" not in text, text
    assert text.count("NotImplementedError") == 1, text  # in the message, not as a frame
    assert len(text.strip().splitlines()) <= 10, text


def test_an_error_inside_the_attendees_function_still_shows_their_line(shown_traceback):
    source = (
        "from agent_harness.workshop import call_todo\n"
        "def scan_tables(owner):\n"
        "    return owner / 0\n"
        "call_todo(scan_tables, 7)\n"
    )
    text = shown_traceback(source)
    assert "ZeroDivisionError" in text and "return owner / 0" in text
    assert "workshop.py" not in text, text


def test_a_finished_todo_returns_its_value():
    from agent_harness.workshop import call_todo

    assert call_todo(lambda a, b=1: a + b, 2, b=3) == 5
    with pytest.raises(AssertionError, match="not implemented yet"):
        call_todo(lambda: (_ for _ in ()).throw(NotImplementedError()))
