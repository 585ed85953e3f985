"""The agent's pause of the cyclic garbage collector (headwater.capture.gcpause): counted across threads, never
switching on a collector the user switched off, ended exactly once per section."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from headwater.capture.gcpause import hold, paused


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_a_section_pauses_an_enabled_collector_and_its_end_restores_it() -> None:
    gc.enable()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_sections_from_two_threads_end_the_pause_with_the_last() -> None:
    gc.enable()
    listener = hold()  # the listener's snapshot, handed to the worker
    assert not gc.isenabled()
    seen: list[bool] = []

    def worker() -> None:
        with paused():
            seen.append(gc.isenabled())
        seen.append(gc.isenabled())  # the listener's section is still open

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [False, False]
    listener.release()
    assert gc.isenabled()


def test_release_is_idempotent() -> None:
    gc.enable()
    first, second = hold(), hold()
    first.release()
    first.release()  # must not end the other section
    assert not gc.isenabled()
    second.release()
    assert gc.isenabled()
    second.release()
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_user_stays_off() -> None:
    gc.disable()
    with paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_sections_own_exception_passes_through_and_the_pause_ends() -> None:
    gc.enable()
    with pytest.raises(KeyError, match="boom"), paused():
        raise KeyError("boom")
    assert gc.isenabled()
