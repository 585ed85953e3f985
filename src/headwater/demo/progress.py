"""Progress of the demo's steps: on a terminal (rich) the running step shows a spinner and its
elapsed time, and each finished step stays above as a full line (✔, result, time); when the
output is a pipe or a file (CI logs) one plain line per step start and end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn


class Step:
    """The step being run; ``note(text)`` changes the text next to the spinner, ``done`` the final line."""

    def __init__(self, steps: Steps, title: str, task: TaskID | None) -> None:
        self._steps = steps
        self.title = title
        self._task = task
        self.done = ""

    def note(self, text: str) -> None:
        if self._task is not None and self._steps.progress is not None:
            self._steps.progress.update(self._task, description=f"{escape(self.title)} [dim]{escape(text)}")


class Steps:
    """Shows the demo's steps as they run. Use as a context manager around the whole run."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self._t0 = time.monotonic()

    def __enter__(self) -> Steps:
        if self.console.is_terminal:
            self.progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=self.console,
            )
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def elapsed(self) -> float:
        return time.monotonic() - self._t0

    @contextmanager
    def step(self, title: str) -> Iterator[Step]:
        """Run one step: spinner while it runs, ✔ + its result and time when done, ✘ when it raises."""
        started = time.monotonic()
        task = self.progress.add_task(escape(title), total=1) if self.progress is not None else None
        if task is None:
            self.console.print(f"… {title}", highlight=False, soft_wrap=True, markup=False)
        current = Step(self, title, task)
        try:
            yield current
        except BaseException:
            seconds = time.monotonic() - started
            if self.progress is not None and task is not None:
                self.progress.remove_task(task)
            self.console.print(f"[red]✘[/] {escape(title)} [dim]({seconds:.1f}s)[/]", highlight=False, soft_wrap=True)
            raise
        seconds = time.monotonic() - started
        text = f"{title}" + (f" — {current.done}" if current.done else "")
        if self.progress is not None and task is not None:
            # a finished step leaves the live display and stays above it as a full line (never truncated)
            self.progress.remove_task(task)
        self.console.print(f"[green]✔[/] {escape(text)} [dim]({seconds:.1f}s)[/]", highlight=False, soft_wrap=True)
