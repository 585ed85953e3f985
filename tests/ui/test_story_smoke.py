"""Every asset of the store helper's HR payroll story (tests/fixtures/stories/hr_payroll.json) opens in
the browser with what the story says about it: the lineage drawn with the asset in it, its name, the
schema of a dataset, the runs of a job (states, newest first), and the events that touched it; no
JavaScript error (the page fixture fails the test on any).

The expectations below are written by hand from the story (make_stories.py's docstring tells it day by
day), not read from the server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser]

STORY = Path(__file__).resolve().parents[1] / "fixtures" / "stories" / "hr_payroll.json"
CANVAS = '[data-testid="lineage-canvas"]'


def EVENTS() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads(STORY.read_text())
    return events


PG = "postgres://db.hr.local:5432"
# (node id, name shown, schema columns (datasets) or run states newest first (jobs), events that touched it)
DATASETS = [
    ("dataset:file:/data/hr/employees.csv", "/data/hr/employees.csv",
     ["EmployeeID", "Name", "Department", "BaseSalary", "Email"], 8),   # job1 reads it, 4 days x START/COMPLETE
    ("dataset:file:/data/hr/attendance.csv", "/data/hr/attendance.csv", ["EmployeeID", "Date", "HoursWorked"], 8),
    ("dataset:file:/warehouse/hr/employee_attendance", "/warehouse/hr/employee_attendance",
     ["EmployeeID", "Name", "Department", "BaseSalary", "TotalHours", "Email"], 16),  # job1 writes, job2 reads
    ("dataset:file:/data/hr/salary_adjustments.csv", "/data/hr/salary_adjustments.csv",
     ["EmployeeID", "AdjustmentAmount"], 8),
    ("dataset:file:/data/hr/bonus_payments.csv", "/data/hr/bonus_payments.csv", ["EmployeeID", "BonusAmount"], 8),
    ("dataset:file:/data/hr/tax_rates.csv", "/data/hr/tax_rates.csv", ["Department", "TaxRate"], 4),  # days 3-4
    # job2 writes it on days 1-4 (7 events: the FAIL names no output), the crawler's DatasetEvent, report_export's JobEvent
    ("dataset:file:/warehouse/hr/employee_compensation", "/warehouse/hr/employee_compensation",
     ["EmployeeID", "Name", "TotalCompensation"], 9),
    # report_export's JobEvent, then the DROP
    (f"dataset:{PG}:hr.public.compensation_report", "hr.public.compensation_report",
     ["EmployeeID", "TotalCompensation"], 2),
]
JOBS = [
    ("job:hr_payroll:job1", "job1", ["COMPLETE"] * 4, 8),
    ("job:hr_payroll:job2", "job2", ["FAIL", "COMPLETE", "COMPLETE", "COMPLETE"], 8),  # day 4 failed
    ("job:hr_payroll:report_export", "report_export", [], 1),  # defined by a JobEvent, never ran
    ("job:airflow:hr_payroll_dag", "hr_payroll_dag", ["FAIL", "COMPLETE", "COMPLETE", "COMPLETE"], 8),
]


def open_asset(page: Any, node_id: str, name: str) -> None:
    page.goto("/asset?" + urlencode({"node": node_id}))
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    expect(page.locator(f"[data-node-id='{node_id}']")).to_be_visible()
    expect(page.get_by_test_id("asset-name")).to_have_text(name)


def expect_events(page: Any, count: int) -> None:
    page.get_by_test_id("tab-events").click()
    expect(page.get_by_test_id("event-item")).to_have_count(count)


@pytest.mark.parametrize("node_id, name, columns, events", DATASETS, ids=[d[1] for d in DATASETS])
def test_every_story_dataset_opens(page: Any, node_id: str, name: str, columns: list[str], events: int) -> None:
    open_asset(page, node_id, name)
    page.get_by_test_id("tab-schema").click()
    expect(page.get_by_test_id("schema-table").locator("tbody tr td:first-child")).to_have_text(columns)
    expect_events(page, events)


@pytest.mark.parametrize("node_id, name, states, events", JOBS, ids=[j[1] for j in JOBS])
def test_every_story_job_opens(page: Any, node_id: str, name: str, states: list[str], events: int) -> None:
    open_asset(page, node_id, name)
    page.get_by_test_id("tab-runs").click()
    if states:
        expect(page.get_by_test_id("runs-table").get_by_test_id("run-state")).to_have_text(states)
    else:
        expect(page.get_by_text("No runs recorded.")).to_be_visible()
        expect(page.get_by_test_id("run-row")).to_have_count(0)
    expect_events(page, events)
