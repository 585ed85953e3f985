"""The HR sample data: four CSV files, generated deterministically and streamed to disk.

``generate(out_dir, employees=N, seed=S)`` writes each file into a folder of its own, as a landing zone
holds one folder per table (``<out_dir>/employees/employees.csv`` ...): the crawler registers each
folder as a table and the Spark jobs read the same folders, so both name one dataset per file.

- ``employees.csv``          EmployeeID, Name, Department, Role, HireDate, Salary, PerformanceRating, Shift, Location
- ``attendance.csv``         EmployeeID, Date, ShiftStart, ShiftEnd, Absent, OvertimeHours  (one row per employee per day)
- ``salary_adjustments.csv`` EmployeeID, AdjustmentDate, AdjustmentAmount, Reason        (0-2 rows per employee)
- ``bonus_payments.csv``     EmployeeID, BonusDate, BonusAmount, BonusType               (0-2 rows per employee)

The same ``(employees, days, seed)`` always gives byte-identical files: each file has its own
``random.Random`` seeded from ``seed`` and the file's name, and rows are produced in
EmployeeID order. Rows are written in chunks, so memory stays flat for millions of rows
(no pandas). Values never contain commas or quotes, so no CSV quoting is needed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import TextIO

DEFAULT_EMPLOYEES = 200
DEFAULT_DAYS = 5
DEFAULT_SEED = 42
_CHUNK = 5_000

EMPLOYEE_COLUMNS = (
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
ATTENDANCE_COLUMNS = ("EmployeeID", "Date", "ShiftStart", "ShiftEnd", "Absent", "OvertimeHours")
ADJUSTMENT_COLUMNS = ("EmployeeID", "AdjustmentDate", "AdjustmentAmount", "Reason")
BONUS_COLUMNS = ("EmployeeID", "BonusDate", "BonusAmount", "BonusType")

FILES: dict[str, tuple[str, ...]] = {
    "employees": EMPLOYEE_COLUMNS,
    "attendance": ATTENDANCE_COLUMNS,
    "salary_adjustments": ADJUSTMENT_COLUMNS,
    "bonus_payments": BONUS_COLUMNS,
}

_FIRST = (
    "Ada",
    "Ben",
    "Chloe",
    "Dmitri",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Liam",
    "Maya",
    "Nikhil",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Umar",
    "Vera",
    "Wei",
    "Ximena",
    "Yusuf",
    "Zoe",
)
_LAST = (
    "Abbott",
    "Berg",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ito",
    "Jensen",
    "Kowalski",
    "Lopez",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Patel",
    "Quispe",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Usman",
    "Varga",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhang",
)
# department -> (role, base salary)
_ROLES: dict[str, tuple[tuple[str, int], ...]] = {
    "Engineering": (("Software Engineer", 98_000), ("Senior Engineer", 128_000), ("Engineering Manager", 152_000)),
    "Sales": (("Account Executive", 72_000), ("Sales Manager", 105_000)),
    "Finance": (("Accountant", 68_000), ("Financial Analyst", 82_000), ("Controller", 121_000)),
    "Human Resources": (("HR Specialist", 61_000), ("Recruiter", 64_000), ("HR Manager", 96_000)),
    "Operations": (("Warehouse Associate", 41_000), ("Shift Supervisor", 55_000), ("Operations Manager", 89_000)),
    "Support": (("Support Agent", 46_000), ("Support Lead", 63_000)),
}
_DEPARTMENTS = tuple(_ROLES)
_SHIFTS = (("Day", "08:00", "16:00"), ("Evening", "16:00", "00:00"), ("Night", "00:00", "08:00"))
_LOCATIONS = ("Berlin", "Lisbon", "Toronto", "Austin", "Singapore", "Nairobi")
_REASONS = ("Promotion", "Cost of living", "Market adjustment", "Correction")
_BONUS_TYPES = ("Annual", "Spot", "Referral", "Retention")
_HIRE_START = date(2012, 1, 2)
_HIRE_SPAN_DAYS = 5_000
_PERIOD_START = date(2026, 11, 2)  # a Monday: the pay period the attendance covers


@dataclass(frozen=True)
class GeneratedFile:
    name: str
    path: Path
    columns: tuple[str, ...]
    rows: int


@dataclass(frozen=True)
class GeneratedData:
    out_dir: Path
    files: dict[str, GeneratedFile] = field(default_factory=dict)

    def path(self, name: str) -> Path:
        return self.files[name].path

    def folder(self, name: str) -> Path:
        """The table folder holding ``<name>.csv`` (what the crawler and the Spark jobs name as the dataset)."""
        return self.files[name].path.parent


def _workdays(days: int) -> list[str]:
    """ISO dates of ``days`` working days (Mon-Fri) from the start of the pay period."""
    out: list[str] = []
    d = _PERIOD_START
    while len(out) < days:
        if d.weekday() < 5:
            out.append(d.isoformat())
        d += timedelta(days=1)
    return out


def _rng(seed: int, name: str) -> random.Random:
    return random.Random(f"{seed}:{name}")


def _employee_row(emp_id: int, rng: random.Random) -> tuple[str, int]:
    """One employees.csv line and the index of the employee's shift (attendance needs it)."""
    dept = _DEPARTMENTS[rng.randrange(len(_DEPARTMENTS))]
    roles = _ROLES[dept]
    role, base = roles[rng.randrange(len(roles))]
    salary = base * (0.85 + 0.3 * rng.random())
    hired = _HIRE_START + timedelta(days=rng.randrange(_HIRE_SPAN_DAYS))
    shift = rng.randrange(len(_SHIFTS)) if dept in ("Operations", "Support") else 0
    name = f"{_FIRST[rng.randrange(len(_FIRST))]} {_LAST[rng.randrange(len(_LAST))]}"
    line = (
        f"{emp_id},{name},{dept},{role},{hired.isoformat()},{salary:.2f},"
        f"{rng.randint(1, 5)},{_SHIFTS[shift][0]},{_LOCATIONS[rng.randrange(len(_LOCATIONS))]}\n"
    )
    return line, shift


def _attendance_rows(emp_id: int, shift: int, days: list[str], rng: random.Random) -> Iterator[str]:
    _, start, end = _SHIFTS[shift]
    for day in days:
        if rng.random() < 0.06:
            yield f"{emp_id},{day},,,true,0.0\n"
        else:
            overtime = rng.choice((0.0, 0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0))
            yield f"{emp_id},{day},{start},{end},false,{overtime:.1f}\n"


def _adjustment_rows(emp_id: int, rng: random.Random) -> Iterator[str]:
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        day = _PERIOD_START - timedelta(days=rng.randrange(1, 300))
        amount = rng.choice((-1, 1, 1, 1, 1)) * rng.randrange(100, 4_000) + rng.randrange(100) / 100
        yield f"{emp_id},{day.isoformat()},{amount:.2f},{rng.choice(_REASONS)}\n"


def _bonus_rows(emp_id: int, rng: random.Random) -> Iterator[str]:
    for _ in range(rng.choice((0, 1, 1, 2))):
        day = _PERIOD_START - timedelta(days=rng.randrange(1, 300))
        yield f"{emp_id},{day.isoformat()},{rng.randrange(250, 10_000)}.00,{rng.choice(_BONUS_TYPES)}\n"


class _ChunkWriter:
    """Buffers lines and writes them in chunks; counts rows."""

    def __init__(self, fh: TextIO, columns: tuple[str, ...]) -> None:
        self._fh = fh
        self._buf: list[str] = []
        self.rows = 0
        fh.write(",".join(columns) + "\n")

    def add(self, line: str) -> None:
        self._buf.append(line)
        self.rows += 1

    def extend(self, lines: Iterator[str]) -> None:
        for line in lines:
            self._buf.append(line)
            self.rows += 1
        if len(self._buf) >= _CHUNK:
            self.flush()

    def flush(self) -> None:
        self._fh.write("".join(self._buf))
        self._buf.clear()


def generate(
    out_dir: Path,
    *,
    employees: int = DEFAULT_EMPLOYEES,
    days: int = DEFAULT_DAYS,
    seed: int = DEFAULT_SEED,
    on_progress: Callable[[int, int], None] | None = None,
) -> GeneratedData:
    """Write the four CSV files into ``out_dir`` (created if missing) and return their paths and row counts.

    ``on_progress(done, total)`` is called every few thousand employees.
    """
    if employees < 1:
        raise ValueError(f"the number of employees must be at least 1, got {employees}")
    if days < 1:
        raise ValueError(f"the number of attendance days must be at least 1, got {days}")
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    workdays = _workdays(days)
    paths = {name: out_dir / name / f"{name}.csv" for name in FILES}
    for path in paths.values():
        path.parent.mkdir(exist_ok=True)
    handles = {
        name: open(paths[name], "w", encoding="utf-8", newline="")  # noqa: SIM115 - closed in the finally below
        for name in FILES
    }
    try:
        writers = {name: _ChunkWriter(handles[name], cols) for name, cols in FILES.items()}
        att_rng, adj_rng, bonus_rng = (_rng(seed, n) for n in ("attendance", "salary_adjustments", "bonus_payments"))
        emp_rng = _rng(seed, "employees")
        for emp_id in range(1, employees + 1):
            line, shift = _employee_row(emp_id, emp_rng)
            writers["employees"].add(line)
            writers["attendance"].extend(_attendance_rows(emp_id, shift, workdays, att_rng))
            writers["salary_adjustments"].extend(_adjustment_rows(emp_id, adj_rng))
            writers["bonus_payments"].extend(_bonus_rows(emp_id, bonus_rng))
            if on_progress is not None and emp_id % 50_000 == 0:
                on_progress(emp_id, employees)
        for w in writers.values():
            w.flush()
    finally:
        for fh in handles.values():
            fh.close()
    if on_progress is not None:
        on_progress(employees, employees)
    return GeneratedData(
        out_dir,
        {name: GeneratedFile(name, paths[name], FILES[name], writers[name].rows) for name in FILES},
    )


NEW_EMPLOYEE_COLUMN = "Email"


def add_email_column(employees_csv: Path) -> int:
    """Append the column ``Email`` (first.last.<id>@example.com) to every row of ``employees.csv``.

    The schema change the demo makes between two crawls; rewritten through a temporary file in
    chunks (memory stays flat), then moved over the original. Returns the number of data rows.
    """
    employees_csv = Path(employees_csv)
    tmp = employees_csv.with_name("." + employees_csv.name + ".tmp")  # a hidden name: crawlers skip it
    rows = 0
    with employees_csv.open(encoding="utf-8", newline="") as src, tmp.open("w", encoding="utf-8", newline="") as dst:
        header = src.readline().rstrip("\n")
        if header.split(",")[-1] == NEW_EMPLOYEE_COLUMN:
            tmp.unlink()
            raise ValueError(f"{employees_csv} already has the column {NEW_EMPLOYEE_COLUMN}")
        dst.write(f"{header},{NEW_EMPLOYEE_COLUMN}\n")
        buf: list[str] = []
        for line in src:
            fields = line.rstrip("\n").split(",")
            first, _, last = fields[1].partition(" ")
            buf.append(f"{line.rstrip(chr(10))},{first.lower()}.{last.lower()}.{fields[0]}@example.com\n")
            rows += 1
            if len(buf) >= _CHUNK:
                dst.write("".join(buf))
                buf.clear()
        dst.write("".join(buf))
    tmp.replace(employees_csv)
    return rows
