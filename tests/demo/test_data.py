"""The HR sample data generator: deterministic, the documented columns, consistent row counts."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

from headwater.demo.data import FILES, NEW_EMPLOYEE_COLUMN, add_email_column, generate


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*/*.csv"))}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_same_arguments_give_identical_files(tmp_path: Path) -> None:
    generate(tmp_path / "a", employees=300, days=4, seed=7)
    generate(tmp_path / "b", employees=300, days=4, seed=7)
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")
    assert len(_digests(tmp_path / "a")) == 4


def test_another_seed_gives_other_rows(tmp_path: Path) -> None:
    generate(tmp_path / "a", employees=50, seed=1)
    generate(tmp_path / "b", employees=50, seed=2)
    a, b = _digests(tmp_path / "a"), _digests(tmp_path / "b")
    assert all(a[name] != b[name] for name in a)


def test_more_employees_extend_the_same_rows(tmp_path: Path) -> None:
    generate(tmp_path / "small", employees=20, seed=3)
    generate(tmp_path / "big", employees=40, seed=3)
    small = (tmp_path / "small" / "employees" / "employees.csv").read_text().splitlines()
    big = (tmp_path / "big" / "employees" / "employees.csv").read_text().splitlines()
    assert big[: len(small)] == small


def test_columns_and_row_counts(tmp_path: Path) -> None:
    data = generate(tmp_path, employees=250, days=5, seed=42)
    assert set(data.files) == {"employees", "attendance", "salary_adjustments", "bonus_payments"}
    assert FILES["employees"] == (
        "EmployeeID",
        "Name",
        "Department",
        "Role",
        "HireDate",
        "Salary",
        "PerformanceRating",
        "Shift",
        "Location",
    )
    assert FILES["attendance"] == ("EmployeeID", "Date", "ShiftStart", "ShiftEnd", "Absent", "OvertimeHours")
    assert FILES["salary_adjustments"] == ("EmployeeID", "AdjustmentDate", "AdjustmentAmount", "Reason")
    assert FILES["bonus_payments"] == ("EmployeeID", "BonusDate", "BonusAmount", "BonusType")
    for name, info in data.files.items():
        assert info.path == tmp_path.resolve() / name / f"{name}.csv"  # one folder per table, as a crawler reads
        assert data.folder(name) == info.path.parent
        assert [p.name for p in data.folder(name).iterdir()] == [f"{name}.csv"]
        with info.path.open(newline="") as fh:
            header = next(csv.reader(fh))
        assert tuple(header) == FILES[name]
        assert len(_rows(info.path)) == info.rows

    employees = _rows(data.path("employees"))
    assert [int(r["EmployeeID"]) for r in employees] == list(range(1, 251))
    attendance = _rows(data.path("attendance"))
    assert data.files["attendance"].rows == 250 * 5
    assert {r["Date"] for r in attendance} == {"2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06"}
    # some employees have no adjustments or bonuses, none has more than two
    for name in ("salary_adjustments", "bonus_payments"):
        ids = [int(r["EmployeeID"]) for r in _rows(data.path(name))]
        assert 0 < len(set(ids)) < 250
        assert max(ids.count(i) for i in set(ids)) <= 2
        assert set(ids) <= set(range(1, 251))


def test_values_are_well_formed(tmp_path: Path) -> None:
    data = generate(tmp_path, employees=200, seed=5)
    shift_of = {}
    for r in _rows(data.path("employees")):
        assert float(r["Salary"]) > 30_000
        assert r["Salary"].count(".") == 1 and len(r["Salary"].split(".")[1]) == 2
        assert 1 <= int(r["PerformanceRating"]) <= 5
        assert r["Shift"] in ("Day", "Evening", "Night")
        assert r["HireDate"][:2] == "20"
        shift_of[r["EmployeeID"]] = r["Shift"]
    starts = {"Day": "08:00", "Evening": "16:00", "Night": "00:00"}
    absent = 0
    for r in _rows(data.path("attendance")):
        assert r["Absent"] in ("true", "false")
        if r["Absent"] == "true":
            absent += 1
            assert (r["ShiftStart"], r["ShiftEnd"], r["OvertimeHours"]) == ("", "", "0.0")
        else:
            assert r["ShiftStart"] == starts[shift_of[r["EmployeeID"]]]
            assert 0.0 <= float(r["OvertimeHours"]) <= 3.0
    assert 0 < absent < data.files["attendance"].rows / 5
    assert all(
        r["BonusType"] in ("Annual", "Spot", "Referral", "Retention") for r in _rows(data.path("bonus_payments"))
    )


def test_bad_sizes_are_refused_with_a_message(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="number of employees must be at least 1, got 0"):
        generate(tmp_path, employees=0)
    with pytest.raises(ValueError, match="attendance days must be at least 1, got -1"):
        generate(tmp_path, employees=5, days=-1)


def test_progress_is_reported_to_the_end(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    generate(tmp_path, employees=10, on_progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10)


def test_the_email_column_is_appended_to_every_employee(tmp_path: Path) -> None:
    data = generate(tmp_path, employees=30, seed=4)
    before = _rows(data.path("employees"))
    assert add_email_column(data.path("employees")) == 30
    after = _rows(data.path("employees"))
    assert NEW_EMPLOYEE_COLUMN == "Email"
    assert list(after[0]) == [*FILES["employees"], "Email"]
    for old, new in zip(before, after, strict=True):
        assert {k: new[k] for k in old} == old
        first, last = old["Name"].split(" ")
        assert new["Email"] == f"{first.lower()}.{last.lower()}.{old['EmployeeID']}@example.com"
    assert sorted(p.name for p in data.folder("employees").iterdir()) == ["employees.csv"]  # no temporary left
    with pytest.raises(ValueError, match="already has the column Email"):
        add_email_column(data.path("employees"))
    assert _rows(data.path("employees")) == after
