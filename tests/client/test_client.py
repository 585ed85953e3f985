"""headwater.client: the one door producers outside the server use, over real HTTP and embedded."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.stories.load import story
from headwater.api import create_app
from headwater.client import HttpClient, PrintClient, SendError, StoreClient, open_client
from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer

TOKEN = "client-write-token"
EMPLOYEES = parse_node_id("dataset:file:/data/hr/employees.csv")


@pytest.fixture
def served(store_url: str) -> Iterator[tuple[str, Store]]:
    store = Store.open(store_url)
    app = create_app(load_settings({"write_tokens": TOKEN}, environ={}), store)
    with ThreadServer(app) as server:
        yield server.url, store
    store.close()


def _stored(store: Store) -> int:
    return len(store.list_events(limit=1000)[0])


def test_http_sends_in_batches_and_reports_duplicates(served: tuple[str, Store]) -> None:
    url, store = served
    events = story()
    with HttpClient(url, token=TOKEN, batch_size=3) as client:
        first = client.send(events)
        again = client.send(events[:4])
    assert (first.sent, first.duplicates) == (len(events), 0)
    assert (again.sent, again.duplicates) == (4, 4)
    assert _stored(store) == len(events)
    assert GraphReader(store).node(EMPLOYEES)["name"] == "/data/hr/employees.csv"


def test_http_refusals_say_why_and_store_nothing(served: tuple[str, Store]) -> None:
    url, store = served
    bad = copy.deepcopy(story()[0])
    del bad["eventTime"]
    with HttpClient(url, token=TOKEN) as client, pytest.raises(SendError, match=r"422 .*eventTime"):
        client.send([story()[1], bad])
    with HttpClient(url, token="wrong") as client, pytest.raises(SendError, match="401"):
        client.send(story()[:1])
    with HttpClient("http://127.0.0.1:9", retries=1) as client, pytest.raises(SendError, match="cannot reach"):
        client.send(story()[:1])
    assert _stored(store) == 0


def test_embedded_store_validates_as_the_api_does(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'embedded.db'}"
    bad = copy.deepcopy(story()[0])
    bad["run"]["runId"] = "not-a-uuid"
    with open_client(database=url) as client:
        assert isinstance(client, StoreClient)
        with pytest.raises(SendError, match=r"\$\[0\]\.run\.runId"):
            client.send([bad])
        result = client.send(story())
        assert (result.sent, result.duplicates) == (len(story()), 0)
        assert client.send(story()[:2]).duplicates == 2
    with Store.open(url) as reopened:
        assert _stored(reopened) == len(story())
        assert GraphReader(reopened).node(EMPLOYEES)["name"] == "/data/hr/employees.csv"


def test_print_writes_one_json_line_per_event() -> None:
    out = io.StringIO()
    with open_client(stream=out) as client:
        assert isinstance(client, PrintClient)
        assert client.send(story()[:3]).sent == 3
    assert [json.loads(line) for line in out.getvalue().splitlines()] == story()[:3]
    with pytest.raises(ValueError, match="not both"):
        open_client(url="http://x", database="sqlite:///y")
