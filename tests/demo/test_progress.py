"""The demo's step display, on a terminal (rich live display) and on a pipe (plain lines)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from headwater.demo.progress import Steps


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=60, color_system=None), out


@pytest.mark.parametrize("terminal", [False, True])
def test_finished_steps_keep_their_full_result_line(terminal: bool) -> None:
    console, out = _console(terminal)
    with Steps(console) as steps:
        with steps.step("Generating [data]") as step:
            step.note("1/2")
            step.done = "a result far longer than the sixty columns of this console, kept whole on one line"
    text = out.getvalue()
    assert (
        "✔ Generating [data] — a result far longer than the sixty columns of this console, kept whole on one line ("
        in text
    )


@pytest.mark.parametrize("terminal", [False, True])
def test_a_failing_step_is_marked_and_the_error_propagates(terminal: bool) -> None:
    console, out = _console(terminal)
    with pytest.raises(RuntimeError, match="boom"):
        with Steps(console) as steps:
            with steps.step("Running job 1"):
                raise RuntimeError("boom")
    assert "✘ Running job 1 (" in out.getvalue()
    assert "✔" not in out.getvalue()


def test_pipe_output_announces_each_step() -> None:
    console, out = _console(False)
    with Steps(console) as steps:
        with steps.step("Checking Java"):
            pass
    assert out.getvalue().splitlines()[0] == "… Checking Java"
