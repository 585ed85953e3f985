import pytest

from headwater.model.nodeid import InvalidNodeId, NodeRef, format_node_id, parse_node_id

CASES = [
    ("dataset:file:/data/hr/employees.csv", NodeRef("dataset", "file", "/data/hr/employees.csv")),
    ("dataset:s3://bucket:warehouse/payroll", NodeRef("dataset", "s3://bucket", "warehouse/payroll")),
    (
        "dataset:postgres://db.local:5432:hr.public.employees",
        NodeRef("dataset", "postgres://db.local:5432", "hr.public.employees"),
    ),
    (
        "job:hr_pipeline:job1.execute_insert_into_hadoop_fs_relation_command.employee_attendance",
        NodeRef("job", "hr_pipeline", "job1.execute_insert_into_hadoop_fs_relation_command.employee_attendance"),
    ),
    (
        "datasetField:file:/w/employee_compensation:TotalCompensation",
        NodeRef("datasetField", "file", "/w/employee_compensation", "TotalCompensation"),
    ),
    (
        "datasetField:mysql://h:3306:hr.emp:address.city",
        NodeRef("datasetField", "mysql://h:3306", "hr.emp", "address.city"),
    ),
    (
        "dataset:hdfs://namenode:8020:/user/hive/warehouse/t",
        NodeRef("dataset", "hdfs://namenode:8020", "/user/hive/warehouse/t"),
    ),
    ("run:3f5e83fa-3480-44ff-99c5-ff943904e5e8", NodeRef("run", "", "3f5e83fa-3480-44ff-99c5-ff943904e5e8")),
]


@pytest.mark.parametrize(("text", "ref"), CASES)
def test_parse_and_format_round_trip(text: str, ref: NodeRef) -> None:
    assert parse_node_id(text) == ref
    assert ref.id == text
    assert format_node_id(ref.type, ref.namespace, ref.name, ref.field) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("employees", "expected 'dataset:<namespace>:<name>'"),
        ("table:ns:name", "unknown node type 'table'"),
        ("dataset:nonamespace", "expected '<namespace>:<name>'"),
        ("datasetField:file:/x", "ends with ':<field>'"),
        ("dataset::name", "must not be empty"),
    ],
)
def test_invalid_ids_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidNodeId, match=message):
        parse_node_id(text)


def test_run_ids_and_prefixes_have_one_home() -> None:
    from headwater.model.nodeid import DATASET, FIELD, JOB, RUN, run_id_of, run_node_id

    assert run_node_id("0193-ab") == "run:0193-ab" == parse_node_id("run:0193-ab").id
    assert run_id_of(run_node_id("a:b")) == "a:b"
    with pytest.raises(InvalidNodeId, match="not a run node id"):
        run_id_of("job:ns:name")
    for prefix, ref in (
        (DATASET, NodeRef("dataset", "s3://b", "k")),
        (JOB, NodeRef("job", "ns", "j")),
        (FIELD, NodeRef("datasetField", "ns", "t", "c")),
        (RUN, NodeRef("run", "", "r")),
    ):
        assert ref.id.startswith(prefix) and prefix == f"{ref.type}:"
