"""HR pipeline, job 1: join employees with their attendance into ``employee_attendance``.

A plain PySpark job: it knows nothing about lineage. Run it as it is, or with lineage captured:

    python employee_attendance.py --data <landing folder> --warehouse <output folder>
    headwater run -- python employee_attendance.py --data <landing folder> --warehouse <output folder>

Reads the CSV folders ``<data>/employees`` and ``<data>/attendance`` (a landing zone: one folder per
table, every CSV file in it); writes the Parquet table
``<warehouse>/employee_attendance`` (one row per employee per day, with the hours worked).
"""

import argparse
from pathlib import Path

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from hr_schemas import ATTENDANCE, EMPLOYEES


def minutes(hhmm: Column) -> Column:
    """'16:30' -> 990 (minutes since midnight)."""
    return F.substring(hhmm, 1, 2).cast("int") * 60 + F.substring(hhmm, 4, 2).cast("int")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", required=True, help="landing folder holding the employees/ and attendance/ CSV folders"
    )
    parser.add_argument("--warehouse", required=True, help="folder the employee_attendance table is written to")
    args = parser.parse_args()
    data = Path(args.data).resolve()
    output = Path(args.warehouse).resolve() / "employee_attendance"

    spark = SparkSession.builder.appName("hr_employee_attendance").getOrCreate()

    employees = spark.read.csv(str(data / "employees"), header=True, schema=EMPLOYEES)
    attendance = spark.read.csv(str(data / "attendance"), header=True, schema=ATTENDANCE)

    # a shift that ends past midnight (16:00-00:00) wraps around the day
    scheduled_hours = ((minutes(F.col("ShiftEnd")) - minutes(F.col("ShiftStart")) + 1440) % 1440) / 60
    employee_attendance = (
        attendance.join(employees, "EmployeeID")
        .withColumn(
            "HoursWorked", F.when(F.col("Absent"), F.lit(0.0)).otherwise(scheduled_hours + F.col("OvertimeHours"))
        )
        .select(
            "EmployeeID",
            "Name",
            "Department",
            "Role",
            "Salary",
            "Location",
            "Date",
            "Shift",
            "Absent",
            "HoursWorked",
            "OvertimeHours",
        )
    )
    employee_attendance.write.mode("overwrite").parquet(str(output))
    spark.stop()


if __name__ == "__main__":
    main()
