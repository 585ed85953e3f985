"""Shared by the Spline tests (imported by name: ``conftest`` is ambiguous across test folders)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from headwater.store import Store

FIXTURES = Path(__file__).parent / "fixtures"
WRITE = "spline-write-token"
READ = "spline-read-token"
V12 = "application/vnd.absa.spline.producer.v1.2+json"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


@dataclass
class Served:
    url: str
    store: Store
    http: httpx.Client

    @property
    def producer(self) -> str:
        return f"{self.url}/spline/producer"
