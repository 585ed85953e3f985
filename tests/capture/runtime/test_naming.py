"""Job names follow the OpenLineage Spark integration (its CAMEL_TO_SNAKE_CASE rule)."""

from __future__ import annotations

import pytest

from headwater.capture.naming import application_job_name, execution_job_name, normalize_name


@pytest.mark.parametrize(("name", "expected"), [
    ("myApp", "my_app"),
    ("SparkPi", "spark_pi"),
    ("Proto App", "proto_app"),
    ("hr_payroll", "hr_payroll"),
    ("spark-job-1", "spark_job_1"),
    ("JDBCLoader", "jdbc_loader"),
    ("HR Payroll", "h_r_payroll"),  # OpenLineage's rule splits a capital before a separator, as its Java agent does
    ("", "spark_application"),
])
def test_normalize_name(name: str, expected: str) -> None:
    assert normalize_name(name) == expected


def test_execution_job_name() -> None:
    assert execution_job_name("hr payroll", "execute_insert_into_hadoop_fs_relation_command",
                              "employee_attendance") == \
        "hr_payroll.execute_insert_into_hadoop_fs_relation_command.employee_attendance"
    assert execution_job_name("app", "create_data_source_table_as_select_command", "hr.employees") == \
        "app.create_data_source_table_as_select_command.hr_employees"
    assert execution_job_name("app", "append_data", "t", append_dataset_name=False) == "app.append_data"
    assert execution_job_name("app", "append_data", None) == "app.append_data"
    assert application_job_name("Hr Payroll") == "hr_payroll"
