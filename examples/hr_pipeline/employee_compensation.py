"""HR pipeline, job 2: total compensation per employee, for payroll and budgeting.

A plain PySpark job: it knows nothing about lineage.

    python employee_compensation.py --data <landing folder> --warehouse <table folder>

Reads the CSV folders ``<data>/salary_adjustments`` and ``<data>/bonus_payments`` and the Parquet table
``<warehouse>/employee_attendance`` (written by job 1) and writes ``<warehouse>/employee_compensation``:
one row per employee with

- BaseSalary         the yearly salary
- OvertimeHours      overtime hours in the pay period
- OvertimePay        OvertimeHours x hourly rate (BaseSalary / 2080) x 1.5
- TotalAdjustments   sum of the salary adjustments (0 when none)
- TotalBonuses       sum of the bonus payments (0 when none)
- TotalCompensation  BaseSalary + TotalAdjustments + TotalBonuses + OvertimePay

With ``--jdbc-url jdbc:postgresql://host:5432/db`` the table is then published to a database
warehouse: read back from ``<warehouse>/employee_compensation`` and written over JDBC to
``--jdbc-table`` (default ``hr.employee_compensation``, replaced). User and password come from
``HR_JDBC_USER`` / ``HR_JDBC_PASSWORD``; the driver jar from Debian's libpostgresql-jdbc-java
(``/usr/share/java/postgresql.jar``, ``--jdbc-jar`` points elsewhere).
"""

import argparse
import os
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from hr_schemas import BONUS_PAYMENTS, MONEY, SALARY_ADJUSTMENTS

WORK_HOURS_PER_YEAR = 2080
OVERTIME_FACTOR = 1.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", required=True, help="landing folder holding the salary_adjustments/ and bonus_payments/ CSV folders"
    )
    parser.add_argument(
        "--warehouse", required=True, help="folder holding employee_attendance; the output goes there too"
    )
    parser.add_argument(
        "--jdbc-url", help="also publish the table to this database, e.g. jdbc:postgresql://host:5432/db"
    )
    parser.add_argument("--jdbc-table", default="hr.employee_compensation", help="the table written over JDBC")
    parser.add_argument("--jdbc-jar", default="/usr/share/java/postgresql.jar", help="the JDBC driver jar")
    args = parser.parse_args()
    data = Path(args.data).resolve()
    warehouse = Path(args.warehouse).resolve()

    builder = SparkSession.builder.appName("hr_employee_compensation")
    if args.jdbc_url:
        builder = builder.config("spark.jars", args.jdbc_jar)
    spark = builder.getOrCreate()

    attendance = spark.read.parquet(str(warehouse / "employee_attendance"))
    adjustments = spark.read.csv(str(data / "salary_adjustments"), header=True, schema=SALARY_ADJUSTMENTS)
    bonuses = spark.read.csv(str(data / "bonus_payments"), header=True, schema=BONUS_PAYMENTS)

    worked = attendance.groupBy("EmployeeID", "Name", "Department", "Role", "Salary").agg(
        F.sum("OvertimeHours").alias("OvertimeHours")
    )
    adjusted = adjustments.groupBy("EmployeeID").agg(F.sum("AdjustmentAmount").alias("TotalAdjustments"))
    bonused = bonuses.groupBy("EmployeeID").agg(F.sum("BonusAmount").alias("TotalBonuses"))

    hourly_rate = F.col("Salary") / WORK_HOURS_PER_YEAR
    compensation = (
        worked.join(adjusted, "EmployeeID", "left")
        .join(bonused, "EmployeeID", "left")
        .withColumn("TotalAdjustments", F.coalesce(F.col("TotalAdjustments"), F.lit(0)).cast(MONEY))
        .withColumn("TotalBonuses", F.coalesce(F.col("TotalBonuses"), F.lit(0)).cast(MONEY))
        .withColumn("OvertimePay", F.round(F.col("OvertimeHours") * hourly_rate * OVERTIME_FACTOR, 2).cast(MONEY))
        .withColumn(
            "TotalCompensation",
            (F.col("Salary") + F.col("TotalAdjustments") + F.col("TotalBonuses") + F.col("OvertimePay")).cast(MONEY),
        )
        .select(
            "EmployeeID",
            "Name",
            "Department",
            "Role",
            F.col("Salary").alias("BaseSalary"),
            "OvertimeHours",
            "OvertimePay",
            "TotalAdjustments",
            "TotalBonuses",
            "TotalCompensation",
        )
    )
    output = str(warehouse / "employee_compensation")
    compensation.write.mode("overwrite").parquet(output)

    if args.jdbc_url:  # publish the written table to the warehouse database
        (
            spark.read.parquet(output)
            .write.format("jdbc")
            .mode("overwrite")
            .option("url", args.jdbc_url)
            .option("driver", "org.postgresql.Driver")
            .option("dbtable", args.jdbc_table)
            .option("user", os.environ.get("HR_JDBC_USER", ""))
            .option("password", os.environ.get("HR_JDBC_PASSWORD", ""))
            .save()
        )
    spark.stop()


if __name__ == "__main__":
    main()
