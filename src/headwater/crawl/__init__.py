"""Crawlers: catalog tables found in file locations and databases, as OpenLineage events.

``crawl(source, client, ...)`` looks at a folder (local or any fsspec URL) or a database
(SQLAlchemy URL), infers tables and schemas, compares them with its last crawl and sends the
crawl as one run of the crawler's job through :mod:`headwater.client` (storage location →
crawler → catalog table). docs/crawl.md describes the rules, limits and events.
"""

from __future__ import annotations

from headwater.crawl.crawler import CrawlResult, crawl, default_job_name
from headwater.crawl.limits import Limits
from headwater.crawl.schedule import crawl_every, parse_interval

__all__ = ["CrawlResult", "Limits", "crawl", "crawl_every", "default_job_name", "parse_interval"]
