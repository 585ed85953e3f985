"""HR pipeline, job 1 as an AWS Glue-style job: employees come from a relational database over JDBC.

A plain PySpark job: it knows nothing about lineage. Same result as employee_attendance.py, but the
employees are read from a database table (as a Glue job reads a catalogued JDBC source) and the
result is written as a catalog table with ``saveAsTable`` (Parquet, in the Spark warehouse).

    HR_JDBC_USER=... HR_JDBC_PASSWORD=... python glue_employee_attendance.py \\
        --jdbc-url jdbc:postgresql://host:5432/hr --jdbc-table hr.employees \\
        --data <landing folder with attendance/> --warehouse <spark warehouse folder>

The JDBC driver jar comes from Debian (libpostgresql-jdbc-java: /usr/share/java/postgresql.jar);
``--jdbc-jar`` points elsewhere. Credentials come from the environment, never the command line.
"""

import argparse
import os
from pathlib import Path

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from hr_schemas import ATTENDANCE


def minutes(hhmm: Column) -> Column:
    """'16:30' -> 990 (minutes since midnight)."""
    return F.substring(hhmm, 1, 2).cast("int") * 60 + F.substring(hhmm, 4, 2).cast("int")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jdbc-url", required=True, help="e.g. jdbc:postgresql://127.0.0.1:5432/hr")
    parser.add_argument("--jdbc-table", default="hr.employees", help="the employees table (default hr.employees)")
    parser.add_argument("--jdbc-jar", default="/usr/share/java/postgresql.jar", help="the JDBC driver jar")
    parser.add_argument("--data", required=True, help="landing folder holding the attendance/ CSV folder")
    parser.add_argument("--warehouse", required=True, help="the Spark warehouse folder (spark.sql.warehouse.dir)")
    args = parser.parse_args()
    data = Path(args.data).resolve()

    spark = (
        SparkSession.builder.appName("hr_glue_employee_attendance")
        .config("spark.jars", args.jdbc_jar)
        .config("spark.sql.warehouse.dir", str(Path(args.warehouse).resolve()))
        .getOrCreate()
    )

    employees = (
        spark.read.format("jdbc")
        .option("url", args.jdbc_url)
        .option("driver", "org.postgresql.Driver")
        .option("dbtable", args.jdbc_table)
        .option("user", os.environ.get("HR_JDBC_USER", ""))
        .option("password", os.environ.get("HR_JDBC_PASSWORD", ""))
        .load()
    )
    attendance = spark.read.csv(str(data / "attendance"), header=True, schema=ATTENDANCE)

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
    employee_attendance.write.mode("overwrite").format("parquet").saveAsTable("employee_attendance")
    spark.stop()


if __name__ == "__main__":
    main()
