"""File dataset names lose trailing date/partition directories as the OpenLineage Java client trims them
(cases from client/java/src/test/.../dataset/partition/trimmer/*Test.java, applied with the default trimmer
list as the Spark integration applies it)."""

from __future__ import annotations

import pytest

from headwater.capture.lineage.relations import path_dataset
from headwater.capture.lineage.trimmers import trim_name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # DateTrimmerTest
        ("/tmp/20250721", "/tmp"),
        ("tmp/20250721", "tmp"),
        ("/tmp/20250722T0901Z", "/tmp"),
        ("/tmp/2025-07-22", "/tmp"),
        ("/tmp/20250722T901Z", "/tmp"),
        ("/tmp/20122321", "/tmp/20122321"),
        ("/tmp/dataset_20122321", "/tmp/dataset_20122321"),
        ("20250721", "20250721"),
        ("/20250721", "/20250721"),
        # KeyValueTrimmerTest
        ("/tmp/cat", "/tmp/cat"),
        ("/tmp/key=value", "/tmp"),
        ("tmp/key=value", "tmp"),
        ("/tmp/a=b=c", "/tmp/a=b=c"),
        ("key=value", "key=value"),
        ("/key=value", "/key=value"),
        # MultiDirDateTrimmerTest
        ("/tmp", "/tmp"),
        ("/a/b", "/a/b"),
        ("/tmp/2025/07", "/tmp"),
        ("tmp/2025/07", "tmp"),
        ("/tmp/2025/07/21", "/tmp"),
        ("/tmp/2025/14", "/tmp/2025/14"),
        ("/tmp/2025/07/50", "/tmp/2025/07/50"),
        ("2025/07", "2025/07"),
        ("/2025/07", "/2025/07"),
        ("/2025/07/21", "/2025/07/21"),
        # YearMontTrimmerTest
        ("/tmp/202507", "/tmp"),
        ("/tmp/2025-07", "/tmp"),
        ("tmp/2025-07", "tmp"),
        ("/tmp/202540", "/tmp/202540"),
        ("202507", "202507"),
        ("/202507", "/202507"),
        # several levels, until none applies
        ("/data/out/year=2025/month=07", "/data/out"),
        ("/data/out/2025-07-01/hour=3", "/data/out"),
    ],
)
def test_trim_name(name: str, expected: str) -> None:
    assert trim_name(name) == expected


def test_disabled_trimmer_and_file_datasets() -> None:
    assert (
        trim_name("/tmp/20250721", ["io.openlineage.client.dataset.partition.trimmer.DateTrimmer"]) == "/tmp/20250721"
    )
    # pysparkRDDWithParquet.json: a write to /tmp/rdd_c/20251030 is the dataset /tmp/rdd_c
    assert path_dataset("file:/tmp/rdd_c/20251030") == ("file", "/tmp/rdd_c")
    assert path_dataset("s3a://bucket/events/2025/07/21") == ("s3://bucket", "events")
