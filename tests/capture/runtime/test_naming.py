"""Job names follow the OpenLineage Spark integration: its NameNormalizer for the application and the command,
its JobNameSuffixProvider rules for the output."""

from __future__ import annotations

import pytest

from headwater.capture.lineage.build import trim_path
from headwater.capture.naming import application_job_name, execution_job_name, normalize, normalize_name


# integration/spark/shared/src/test/java/io/openlineage/spark/api/naming/NameNormalizerTest.java
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("", ""),
        ("word", "word"),
        ("@ more than one     words !", "more_than_one_words"),
        ("with some Capitalized WORDS", "with_some_capitalized_words"),
        ("this (includes some) parenthesis", "this_includes_some_parenthesis"),
        ("this - on the other hand -- has hyphens", "this_on_the_other_hand_has_hyphens"),
        ("now we have (a complex) name - with hyphens too", "now_we_have_a_complex_name_with_hyphens_too"),
        ("in glue/aws we can have slashes", "in_glue_aws_we_can_have_slashes"),
        ("theNamesLikeThisShouldBeSeparated - are they?", "the_names_like_this_should_be_separated_are_they"),
        ("testXMLTest", "test_xml_test"),
        ("testXMLtest", "test_xm_ltest"),
        ("test XML test", "test_xml_test"),
        ("foreignLetters ąśé•¶€ are supported", "foreign_letters_ase_are_supported"),
        ("but to a degree 这是一个例子", "but_to_a_degree"),
        ("323digits123Should45BE_ALSO34 fine89", "323digits123_should45_be_also34_fine89"),
        ("A Test Application", "a_test_application"),
        ("MyTestApplication", "my_test_application"),
        ("MyXMLBasedApplication", "my_xml_based_application"),
        ("JDBCRelationApplication", "jdbc_relation_application"),
        ("Test With a Single LetterBetweenWords", "test_with_a_single_letter_between_words"),
        ("c9acd38e_71d4_4a61_89d5_fd4ff842bf79_0", "c9acd38e_71d4_4a61_89d5_fd4ff842bf79_0"),
        # application names of the integration's PySpark container tests (their expected job names)
        ("Open Lineage Integration Hadoop FS Relation", "open_lineage_integration_hadoop_fs_relation"),
        ("Open Lineage Integration CTAS Load", "open_lineage_integration_ctas_load"),
        ("Spark RDD to table", "spark_rdd_to_table"),
        ("HR Payroll", "hr_payroll"),
    ],
)
def test_normalize(name: str, expected: str) -> None:
    assert normalize(name) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/tmp/warehouse/target", "warehouse_target"),  # pysparkHadoopFSEndEvent.json
        ("/tmp/truncate_test/truncate_table_test", "truncate_test_truncate_table_test"),  # pysparkTruncateTable...
        ("/tmp/overwrite/table", "overwrite_table"),  # pysparkHiveOverwriteDirCompleteEvent.json
        ("/tmp/rdd_c", "tmp_rdd_c"),  # open_lineage_integration_rdd_with_parquet
        ("/tmp/x/", "tmp_x"),
        ("public.people", "public.people"),
    ],
)
def test_trim_path(path: str, expected: str) -> None:
    assert trim_path(path) == expected


def test_execution_job_name() -> None:
    # pysparkHadoopFSEndEvent.json, pysparkLoadComplete.json, pysparkAlterTableAddColumnsEnd.json
    assert (
        execution_job_name(
            "Open Lineage Integration Hadoop FS Relation",
            "Execute InsertIntoHadoopFsRelationCommand",
            "warehouse_target",
        )
        == "open_lineage_integration_hadoop_fs_relation.execute_insert_into_hadoop_fs_relation_command.warehouse_target"
    )
    assert (
        execution_job_name("Open Lineage Integration CTAS Load", "Execute LoadDataCommand", "default.tbl1")
        == "open_lineage_integration_ctas_load.execute_load_data_command.default_tbl1"
    )
    assert (
        execution_job_name("Open Lineage Integration Alter Table", "Execute AlterTableAddColumnsCommand", None)
        == "open_lineage_integration_alter_table.execute_alter_table_add_columns_command"
    )
    assert execution_job_name("app", "append_data", "t", append_dataset_name=False) == "app.append_data"
    assert application_job_name("Hr Payroll") == "hr_payroll"


def test_headwater_style_keeps_the_earlier_names() -> None:
    """spark.headwater.jobName.style=headwater: the earlier CAMEL_TO_SNAKE rule and the output's short name."""
    assert normalize_name("HR Payroll") == "h_r_payroll"
    assert application_job_name("HR Payroll", "headwater") == "h_r_payroll"
    assert (
        execution_job_name(
            "hr payroll", "execute_insert_into_hadoop_fs_relation_command", "employee_attendance", style="headwater"
        )
        == "hr_payroll.execute_insert_into_hadoop_fs_relation_command.employee_attendance"
    )
    assert (
        execution_job_name("app", "create_data_source_table_as_select_command", "hr.employees", style="headwater")
        == "app.create_data_source_table_as_select_command.hr_employees"
    )
