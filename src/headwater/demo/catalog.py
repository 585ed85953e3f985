"""The demo's crawler steps: register the landing folder's CSV files as catalog tables, then show a schema change.

The landing folder holds one folder per table (``<landing>/employees/employees.csv`` ...), the layout a
data-lake crawler reads as tables: ``headwater.crawl.crawl`` registers each folder as the catalog table
``headwater`` / ``hr.<table>`` and records storage location → crawler run → catalog table. The Spark
jobs read the same folders, so the storage location the crawler names is the very dataset the jobs
read: the crawled tables and the jobs share one node per CSV folder.

After the jobs, the demo appends the column ``Email`` to ``employees.csv`` and crawls again: that run
makes a new version of ``hr.employees`` whose History entry says ``Email`` was added and which crawl
run made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from headwater.client import SendError, open_client
from headwater.crawl import CrawlResult, crawl
from headwater.demo.checks import DemoError
from headwater.model.naming import catalog_table_dataset
from headwater.model.nodeid import format_node_id

CRAWLER = "hr-landing"  # the crawler's job name (namespace headwater)
CATALOG_DATABASE = "hr"  # the catalog database its tables are registered in
CHANGED_TABLE = "employees"  # the table whose schema the demo changes between two crawls


def state_path(data_dir: Path) -> Path:
    """The crawler's re-crawl state, kept with the demo's data (a re-run compares with the last crawl)."""
    return data_dir / f"crawl-{CRAWLER}.json"


def catalog_table_id(table: str) -> str:
    """The node id of a crawled catalog table: ``dataset:headwater:hr.<table>``."""
    namespace, name = catalog_table_dataset(CATALOG_DATABASE, table)
    return format_node_id("dataset", namespace, name)


@dataclass(frozen=True)
class Crawled:
    result: CrawlResult

    def describe(self) -> str:
        s = self.result.summary
        parts = [
            f"{label}: {', '.join(sorted(names))}"
            for label, names in (("added", s.added), ("updated", s.updated), ("removed", s.removed))
            if names
        ]
        if s.unchanged:
            parts.append(f"{len(s.unchanged)} unchanged")
        return "; ".join(parts) or "no tables"

    @property
    def problems(self) -> list[str]:
        return [f"{s.path}: {s.reason}" for s in self.result.summary.failures]


def crawl_landing(landing: Path, data_dir: Path, server_url: str) -> Crawled:
    """Crawl ``landing`` once and send the crawl to the server; :class:`DemoError` when it cannot be done."""
    try:
        with open_client(url=server_url) as client:
            result = crawl(
                str(landing), client, name=CRAWLER, catalog_database=CATALOG_DATABASE, state_path=state_path(data_dir)
            )
    except SendError as exc:
        raise DemoError(f"the crawl of {landing} could not be sent to {server_url}: {exc}") from None
    if result.error:
        raise DemoError(f"the crawl of {landing} failed: {result.error}")
    return Crawled(result)
