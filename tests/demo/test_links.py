"""The link the demo prints: the UI's asset route with the node, depth and the selected column by its bare name."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from headwater.demo.links import file_dataset_id, history_page_url, lineage_page_url


def test_page_url_uses_the_ui_route_and_round_trips() -> None:
    node = "dataset:file:/data/hr demo/warehouse/employee_compensation"
    url = lineage_page_url("http://127.0.0.1:5000/", node)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "127.0.0.1:5000", "/asset")
    assert parse_qsl(parts.query) == [("node", node), ("depth", "4"), ("col", "TotalCompensation")]
    assert " " not in url and "/asset?node=dataset%3Afile%3A%2Fdata%2Fhr" in url


def test_page_url_without_a_column() -> None:
    url = lineage_page_url("http://h:1", "dataset:file:/x", column=None)
    assert parse_qsl(urlsplit(url).query) == [("node", "dataset:file:/x"), ("depth", "4")]


def test_file_dataset_id_is_the_absolute_path(tmp_path: Path) -> None:
    assert file_dataset_id(tmp_path / "a" / ".." / "b") == f"dataset:file:{tmp_path.resolve() / 'b'}"


def test_deeper_page_and_history_tab() -> None:
    url = lineage_page_url("http://h:1", "dataset:file:/x", column=None, depth=8)
    assert parse_qsl(urlsplit(url).query) == [("node", "dataset:file:/x"), ("depth", "8")]
    history = history_page_url("http://h:1/", "dataset:headwater:hr.employees")
    assert history == "http://h:1/asset?node=dataset%3Aheadwater%3Ahr.employees&tab=history"
