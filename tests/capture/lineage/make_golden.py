"""Regenerate the golden files from real Spark: ``python -m tests.capture.lineage.make_golden``
(run it under each PySpark version; files are named by Spark major version). Review the diff of
the ``*.expected.json`` files before committing: they are the reference the tests hold us to."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from headwater.capture.lineage import LineageOptions, analyze

from .golden_util import GOLDEN, lineage_document
from .spark_util import Runner, new_session

BASE = Path("/tmp/headwater-golden")
OPTIONS = LineageOptions(dataset_lineage_enabled=True)


def cases(spark: Any) -> dict[str, tuple[Callable[[], Any], str | None]]:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    people = str(BASE / "people")
    depts = str(BASE / "depts")

    def p() -> Any:
        return spark.read.parquet(people)

    w = Window.partitionBy("dept").orderBy(F.col("pay").desc())
    return {
        "withcolumn_chain": (
            lambda: (
                p()
                .withColumn("a", F.col("pay") * 2)
                .withColumn("b", F.col("a") + 1)
                .withColumn("c", F.concat("name", F.lit("-"), "dept"))
                .select("id", "b", "c")
                .write.mode("overwrite")
                .parquet(str(BASE / "out_chain"))
            ),
            None,
        ),
        "case_coalesce_hash": (
            lambda: (
                p()
                .select(
                    F.when(F.col("pay") > 10, "hi")
                    .when(F.col("dept") == "ops", F.col("name"))
                    .otherwise("lo")
                    .alias("band"),
                    F.coalesce("pay", F.lit(0.0)).alias("pay0"),
                    F.md5("name").alias("h"),
                    F.xxhash64("id", "name").alias("x"),
                )
                .write.mode("overwrite")
                .json(str(BASE / "out_case"))
            ),
            None,
        ),
        "join_aggregate": (
            lambda: (
                p()
                .join(spark.read.json(depts), F.col("dept") == F.col("code"), "left")
                .groupBy("title")
                .agg(F.avg("pay").alias("avg_pay"), F.countDistinct("id").alias("n"))
                .orderBy("title")
                .write.mode("overwrite")
                .parquet(str(BASE / "out_join"))
            ),
            None,
        ),
        "union_window": (
            lambda: (
                p()
                .select("id", "dept", "pay")
                .unionByName(p().select("id", "dept", (F.col("pay") / 2).alias("pay")))
                .withColumn("rk", F.row_number().over(w))
                .withColumn("total", F.sum("pay").over(w))
                .write.mode("overwrite")
                .orc(str(BASE / "out_union"))
            ),
            None,
        ),
        "explode_struct": (
            lambda: (
                p()
                .select("id", F.struct("name", "dept").alias("s"), F.array("name", "dept").alias("arr"))
                .select("id", "s.name", F.explode("arr").alias("item"))
                .write.mode("overwrite")
                .parquet(str(BASE / "out_explode"))
            ),
            None,
        ),
        "sql_cte_subquery": (
            lambda: (
                spark.sql(
                    f"WITH hi AS (SELECT * FROM parquet.`{people}` WHERE pay > (SELECT avg(pay) FROM parquet.`{people}`)) "
                    f"SELECT hi.id, upper(hi.name) AS name FROM hi WHERE hi.dept IN "
                    f"(SELECT code FROM json.`{depts}`)"
                )
                .write.mode("overwrite")
                .parquet(str(BASE / "out_sql"))
            ),
            None,
        ),
        "ctas_table": (
            lambda: spark.sql(
                f"CREATE TABLE golden_t USING parquet AS SELECT id, pay * 12 AS yearly FROM parquet.`{people}`"
            ),
            "CreateDataSourceTableAsSelectCommand",
        ),
        "insert_into_table": (
            lambda: p().select("id", "name").write.insertInto("golden_ins"),
            "InsertIntoHadoopFsRelationCommand",
        ),
    }


def main() -> None:
    shutil.rmtree(BASE, ignore_errors=True)
    spark = new_session("golden", BASE / "warehouse")
    try:
        major = spark.version.split(".")[0]
        runner = Runner(spark)
        spark.createDataFrame(
            [(1, "ada", "eng", 10.0), (2, "bob", "ops", 20.0)], "id INT, name STRING, dept STRING, pay DOUBLE"
        ).write.parquet(str(BASE / "people"))
        spark.createDataFrame([("eng", "Engineering")], "code STRING, title STRING").write.json(str(BASE / "depts"))
        spark.sql("CREATE TABLE golden_ins (k INT, v STRING) USING parquet")
        GOLDEN.mkdir(exist_ok=True)
        for name, (action, root) in cases(spark).items():
            snaps = runner.snapshots(action)
            snap = [s for s in snaps if root is None or s.root == root][-1]
            doc = lineage_document(analyze(snap, OPTIONS))
            stem = GOLDEN / f"{name}.spark{major}"
            Path(f"{stem}.snapshot.json").write_text(json.dumps(snap.to_dict(), indent=1, sort_keys=True) + "\n")
            Path(f"{stem}.expected.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
            print("wrote", stem)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
