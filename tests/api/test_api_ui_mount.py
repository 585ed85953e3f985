"""The web UI is served at / with single-page-app fallback, after (and never instead of) the API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_helpers import assert_error, client_for, make_settings

from headwater.api import create_app
from headwater.store import Store
from headwater.ui import static_dir

pytestmark = pytest.mark.anyio


@pytest.fixture
def sqlite_store(sqlite_url: str) -> Iterator[Store]:
    store = Store.open(sqlite_url)
    yield store
    store.close()


def built_ui(folder: Path) -> Path:
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text("<!doctype html><title>Headwater</title><div id=root></div>")
    (folder / "assets" / "app.js").write_text("console.log('headwater')")
    return folder


async def test_files_and_spa_fallback(tmp_path: Path, sqlite_store: Store) -> None:
    folder = built_ui(tmp_path / "static")
    (tmp_path / "secret.txt").write_text("outside the UI folder")
    async with client_for(create_app(make_settings(), sqlite_store, ui_folder=folder)) as client:
        index = await client.get("/")
        assert index.status_code == 200 and "<div id=root>" in index.text
        assert index.headers["content-type"].startswith("text/html")
        asset = await client.get("/assets/app.js")
        assert asset.status_code == 200 and asset.text == "console.log('headwater')"
        deep = await client.get("/lineage/dataset:file:/data/payroll")
        assert deep.status_code == 200 and deep.text == index.text
        escape = await client.get("/assets/../../secret.txt")
        assert "outside the UI folder" not in escape.text
        assert_error(await client.get("/api/v1/nothing-here"), 404, "not_found")
        assert (await client.get("/api/v1/events")).json() == {"events": [], "nextCursor": None}
        assert (await client.get("/openapi.json")).status_code == 200


async def test_without_a_built_ui_root_points_to_the_docs(tmp_path: Path, sqlite_store: Store) -> None:
    async with client_for(create_app(make_settings(), sqlite_store, ui_folder=tmp_path / "missing")) as client:
        root = await client.get("/")
        assert root.status_code == 200 and root.json()["docs"] == "/docs"
        assert_error(await client.get("/somewhere"), 404, "not_found")


async def test_the_packaged_ui_is_served_when_built(sqlite_store: Store) -> None:
    if not (static_dir() / "index.html").is_file():
        pytest.skip("the UI bundle is not built in this checkout")
    async with client_for(create_app(make_settings(), sqlite_store)) as client:
        index = await client.get("/")
        assert index.status_code == 200
        assert index.text == (static_dir() / "index.html").read_text()


async def test_api_docs_are_served_without_a_cdn(sqlite_store: Store) -> None:
    async with client_for(create_app(make_settings(), sqlite_store)) as client:
        docs = await client.get("/docs")
        assert docs.status_code == 200 and "swagger-ui" in docs.text
        assert "cdn." not in docs.text and "jsdelivr" not in docs.text
        scripts = re.findall(r'src="([^"]+\.js)"', docs.text)
        assert scripts
        for src in scripts:
            asset = await client.get(src)
            assert asset.status_code == 200 and len(asset.content) > 10_000
        assert (await client.get("/redoc")).status_code == 200
