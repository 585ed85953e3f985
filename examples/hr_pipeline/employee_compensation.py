"""HR pipeline, job 2: total compensation per employee, for payroll and budgeting.

A plain PySpark job: it knows nothing about lineage.

    python employee_compensation.py --data <csv folder> --warehouse <table folder>

Reads ``<data>/salary_adjustments.csv``, ``<data>/bonus_payments.csv`` and the Parquet table
``<warehouse>/employee_attendance`` (written by job 1) and writes ``<warehouse>/employee_compensation``:
one row per employee with

- BaseSalary         the yearly salary
- OvertimeHours      overtime hours in the pay period
- OvertimePay        OvertimeHours x hourly rate (BaseSalary / 2080) x 1.5
- TotalAdjustments   sum of the salary adjustments (0 when none)
- TotalBonuses       sum of the bonus payments (0 when none)
- TotalCompensation  BaseSalary + TotalAdjustments + TotalBonuses + OvertimePay
"""

import argparse
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from hr_schemas import BONUS_PAYMENTS, MONEY, SALARY_ADJUSTMENTS

WORK_HOURS_PER_YEAR = 2080
OVERTIME_FACTOR = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="folder holding salary_adjustments.csv and bonus_payments.csv")
    parser.add_argument("--warehouse", required=True, help="folder holding employee_attendance; the output goes there too")
    args = parser.parse_args()
    data = Path(args.data).resolve()
    warehouse = Path(args.warehouse).resolve()

    spark = SparkSession.builder.appName("hr_employee_compensation").getOrCreate()

    attendance = spark.read.parquet(str(warehouse / "employee_attendance"))
    adjustments = spark.read.csv(str(data / "salary_adjustments.csv"), header=True, schema=SALARY_ADJUSTMENTS)
    bonuses = spark.read.csv(str(data / "bonus_payments.csv"), header=True, schema=BONUS_PAYMENTS)

    worked = attendance.groupBy("EmployeeID", "Name", "Department", "Role", "Salary").agg(
        F.sum("OvertimeHours").alias("OvertimeHours"))
    adjusted = adjustments.groupBy("EmployeeID").agg(F.sum("AdjustmentAmount").alias("TotalAdjustments"))
    bonused = bonuses.groupBy("EmployeeID").agg(F.sum("BonusAmount").alias("TotalBonuses"))

    hourly_rate = F.col("Salary") / WORK_HOURS_PER_YEAR
    compensation = (
        worked.join(adjusted, "EmployeeID", "left")
        .join(bonused, "EmployeeID", "left")
        .withColumn("TotalAdjustments", F.coalesce(F.col("TotalAdjustments"), F.lit(0)).cast(MONEY))
        .withColumn("TotalBonuses", F.coalesce(F.col("TotalBonuses"), F.lit(0)).cast(MONEY))
        .withColumn("OvertimePay", F.round(F.col("OvertimeHours") * hourly_rate * OVERTIME_FACTOR, 2).cast(MONEY))
        .withColumn("TotalCompensation",
                    (F.col("Salary") + F.col("TotalAdjustments") + F.col("TotalBonuses") + F.col("OvertimePay"))
                    .cast(MONEY))
        .select("EmployeeID", "Name", "Department", "Role",
                F.col("Salary").alias("BaseSalary"), "OvertimeHours", "OvertimePay",
                "TotalAdjustments", "TotalBonuses", "TotalCompensation")
    )
    compensation.write.mode("overwrite").parquet(str(warehouse / "employee_compensation"))
    spark.stop()


if __name__ == "__main__":
    main()
