"""The server's bound on glibc's kept memory (headwater.cli._memory), each in a fresh interpreter (arenas and
the trimming thread are per process, and glibc makes arenas only once)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from headwater.cli._memory import glibc

pytestmark = pytest.mark.skipif(glibc() is None, reason="glibc's malloc only (musl and macOS: nothing to bound)")

# glibc's own report of its arenas (malloc_info writes XML, one <heap nr="..."> per arena) after 8 threads each
# allocated while the others were alive: without a limit each gets an arena of its own.
_COUNT_ARENAS = """
import ctypes, os, sys, tempfile, threading
from headwater.cli import _memory as memory
if sys.argv[1] == "limit":
    assert memory.limit_arenas(), "mallopt refused"
libc = memory.glibc()
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.fclose.argtypes = [ctypes.c_void_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
started, done = threading.Barrier(9), threading.Event()
def work():
    kept = [bytearray(4096) for _ in range(50)]  # malloc in this thread: it takes an arena
    started.wait()
    done.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
started.wait()
path = os.path.join(tempfile.mkdtemp(), "info.xml")
fp = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, fp)
libc.fclose(fp)
done.set()
print(open(path).read().count("<heap nr="))
"""

# 150 MB in 64 kB blocks (below glibc's mmap threshold, so from the heap), each 20th followed by a small block
# that stays: freeing the big ones leaves free memory between live blocks, which free() keeps.
_TRIM = """
import sys
from headwater.cli import _memory as memory
def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) // 1024
blocks = []
for i in range(2400):
    blocks.append(bytes(64 * 1024))
    if i % 20 == 0:
        blocks.append(bytes(1024))
blocks = [b for b in blocks if len(b) == 1024]
kept = rss_mb()
assert memory.trim()
print(kept, rss_mb())
"""


def _run(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in {**os.environ, **(env or {})}.items() if k != "MALLOC_ARENA_MAX"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_arenas_are_limited_to_two() -> None:
    # 9 threads allocate at once: unlimited, glibc gives them several arenas (up to 8 per core); limited, 2.
    assert int(_run(_COUNT_ARENAS, "free")) > 2
    assert int(_run(_COUNT_ARENAS, "limit")) == 2


def test_trim_hands_freed_heap_memory_back() -> None:
    kept, after = map(int, _run(_TRIM).split())
    # ~150 MB was freed; free() keeps what lies between the live small blocks (85 MB here), the trim returns it
    assert kept >= 60, f"the freed blocks were not kept resident ({kept} MB): the test shows nothing"
    assert kept - after >= 60, f"RssAnon {kept} MB before the trim, {after} MB after"


def test_an_operators_arena_setting_is_left_alone() -> None:
    code = "import os; from headwater.cli import _memory as memory; print(memory.limit_arenas())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MALLOC_ARENA_MAX": "4"},
    )
    assert done.stdout.strip() == "False", done.stderr
