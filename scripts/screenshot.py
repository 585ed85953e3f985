"""Make the README's picture from the real demo, so that it cannot go stale.

    python scripts/screenshot.py [--out docs/img/lineage.png] [--size 1600x1000] [--employees 2000]

Runs ``headwater demo``'s steps (``headwater.demo.runner.run_demo``: its own server on a free port, a
throwaway data folder, the crawl, the two PySpark jobs under the lineage agent, the re-crawl), opens the
link the demo prints in headless Chromium (/usr/bin/chromium, or $CHROMIUM) at the given window size,
waits for the final layout, and saves a screenshot of the page. Needs Java and the ``spark`` extra, like
the demo. The demo's server is stopped afterwards, whatever happens.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from headwater.demo.runner import DemoConfig, run_demo

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def shoot(url: str, out: Path, width: int, height: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            page.locator('[data-testid="lineage-canvas"][data-ready="true"]').wait_for(timeout=60_000)
            page.wait_for_timeout(800)  # the fade-in of the nodes and the last viewport move
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out))
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "img" / "lineage.png")
    ap.add_argument("--size", default="1600x1000", help="browser window, WIDTHxHEIGHT")
    ap.add_argument(
        "--employees", type=int, default=2000, help="rows of the generated sample (the picture is the same)"
    )
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    console = Console(stderr=True)
    with tempfile.TemporaryDirectory(prefix="headwater-screenshot-") as tmp:
        result = run_demo(DemoConfig(data_dir=Path(tmp), port=free_port(), employees=args.employees), console)
        try:
            shoot(result.page_url, args.out, width, height)
        finally:
            result.server.stop()
    console.print(f"wrote {args.out} from {result.page_url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
