"""Schemas of the HR sample CSV files, shared by the example jobs.

Reading CSV with an explicit schema (instead of inferSchema) is what a production job does:
types are stable and Spark does not scan the files an extra time to guess them.
"""

from pyspark.sql.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

MONEY = DecimalType(12, 2)

EMPLOYEES = StructType(
    [
        StructField("EmployeeID", IntegerType(), False),
        StructField("Name", StringType()),
        StructField("Department", StringType()),
        StructField("Role", StringType()),
        StructField("HireDate", DateType()),
        StructField("Salary", MONEY),
        StructField("PerformanceRating", IntegerType()),
        StructField("Shift", StringType()),
        StructField("Location", StringType()),
    ]
)

ATTENDANCE = StructType(
    [
        StructField("EmployeeID", IntegerType(), False),
        StructField("Date", DateType()),
        StructField("ShiftStart", StringType()),
        StructField("ShiftEnd", StringType()),
        StructField("Absent", BooleanType()),
        StructField("OvertimeHours", DoubleType()),
    ]
)

SALARY_ADJUSTMENTS = StructType(
    [
        StructField("EmployeeID", IntegerType(), False),
        StructField("AdjustmentDate", DateType()),
        StructField("AdjustmentAmount", MONEY),
        StructField("Reason", StringType()),
    ]
)

BONUS_PAYMENTS = StructType(
    [
        StructField("EmployeeID", IntegerType(), False),
        StructField("BonusDate", DateType()),
        StructField("BonusAmount", MONEY),
        StructField("BonusType", StringType()),
    ]
)
