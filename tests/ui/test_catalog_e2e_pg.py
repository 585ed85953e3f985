"""The catalog's browser tests (test_catalog_e2e.py) on a server whose store is PostgreSQL, in the same
order (the producer's test catalogs and publishes what the consumer's then finds)."""

from __future__ import annotations

from typing import Any

import pytest

from . import test_catalog_e2e as e2e
from .test_catalog_e2e import SERVER_ENV, tokens

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

SERVER_DB = "postgresql"
__all__ = ["SERVER_ENV", "tokens"]  # the server's environment and the module's users, as there


def test_producer_catalogs_curates_and_publishes(page: Any, tokens: dict[str, str]) -> None:
    e2e.test_producer_catalogs_curates_and_publishes(page, tokens)


def test_a_viewer_reads_the_inventory_but_cannot_change_it(browser: Any, server: str, tokens: dict[str, str]) -> None:
    e2e.test_a_viewer_reads_the_inventory_but_cannot_change_it(browser, server, tokens)


def test_consumer_finds_subscribes_is_approved_and_sees_the_target(
    page: Any, browser: Any, server: str, tokens: dict[str, str]
) -> None:
    e2e.test_consumer_finds_subscribes_is_approved_and_sees_the_target(page, browser, server, tokens)


def test_an_admin_may_pick_any_project(page: Any, tokens: dict[str, str]) -> None:
    e2e.test_an_admin_may_pick_any_project(page, tokens)
