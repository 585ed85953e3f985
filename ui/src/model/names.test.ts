import { describe, expect, it } from "vitest";
import { fitName, jobLabel, middleCut, placeOf, sharedFolder, sourceMark, tailCut } from "./names";

describe("display names", () => {
  it("keeps the distinguishing end of a long name", () => {
    expect(tailCut("hr_employee_compensation", 30)).toBe("hr_employee_compensation");
    expect(tailCut("warehouse_employee_compensation", 13)).toBe("…compensation");
    expect(tailCut("warehouse_employee_compensation", 13)).toHaveLength(13);
  });

  it("reads the Spark integration's job names", () => {
    expect(jobLabel("hr_employee_compensation.execute_insert_into_hadoop_fs_relation_command.employee_compensation")).toEqual({
      title: "write employee_compensation",
      app: "hr_employee_compensation",
      action: "write",
      output: "employee_compensation",
    });
    expect(jobLabel("etl.append_data.db_orders").title).toBe("append to db_orders");
    expect(jobLabel("etl.execute_some_new_thing_command.t").title).toBe("some new thing t");
    expect(jobLabel("etl.execute_create_view_command").title).toBe("create view");
  });

  it("reads the integration-style names of the capture (plan roots, V2 execs, reads)", () => {
    // Spark 4 with adaptive execution: the write's executed root is AdaptiveSparkPlan; the suffix names its output
    expect(jobLabel("hr_employee_compensation.adaptive_spark_plan.warehouse_employee_compensation")).toEqual({
      title: "write warehouse_employee_compensation",
      app: "hr_employee_compensation",
      action: "write",
      output: "warehouse_employee_compensation",
    });
    // no output suffix: the execution only read
    expect(jobLabel("hr_payroll.adaptive_spark_plan")).toEqual({ title: "read query", app: "hr_payroll", action: "read", output: "" });
    expect(jobLabel("app.collect_limit").title).toBe("read query");
    expect(jobLabel("app.scan_csv").title).toBe("read query");
    expect(jobLabel("app.append_data_exec_v1.spark_catalog_db_t").title).toBe("append to spark_catalog_db_t");
    expect(jobLabel("app.overwrite_by_expression_exec_v1.cat_db_t").title).toBe("overwrite cat_db_t");
    expect(jobLabel("app.atomic_create_table_as_select.db_t").title).toBe("create db_t");
    expect(jobLabel("app.create_table_exec.db_t").title).toBe("create table db_t");
    expect(jobLabel("open_lineage_integration_ctas_load.execute_load_data_command.default_tbl1").title).toBe(
      "load into default_tbl1",
    );
    expect(jobLabel("app.execute_create_data_source_table_as_select_command.hr_employees").title).toBe("create hr_employees");
    expect(jobLabel("spark_rdd_to_table.map_partitions_parallel_collection_rdd").title).toBe("write");
    expect(jobLabel("app.some_new_thing_exec").title).toBe("some new thing");
  });

  it("leaves other names whole", () => {
    for (const n of ["hr_employee_compensation", "schema.table", "a.b.c", "/data/x.csv", "job.execute_x", "dag.filter", "dag.project.x", "my_dag.load_task"]) {
      expect(jobLabel(n)).toEqual({ title: n, app: "", action: "", output: "" });
    }
  });
});

describe("names that fit", () => {
  it("cuts in the middle, keeping more of the end, only when it does not fit", () => {
    expect(middleCut("employee_compensation", 30)).toBe("employee_compensation");
    expect(middleCut("warehouse_employee_compensation", 16)).toBe("wareh…mpensation");
    expect(middleCut("warehouse_employee_compensation", 16)).toHaveLength(16);
    // no canvas here: ~7.4 px a character
    expect(fitName("employee_compensation", 200)).toBe("employee_compensation");
    expect(fitName("warehouse_employee_compensation", 120).length).toBeLessThanOrEqual(16);
    expect(fitName("warehouse_employee_compensation", 120)).toContain("…");
  });

  it("subtitles say what tells datasets apart: host or bucket, folder below what they share", () => {
    const shared = sharedFolder(["/root/.headwater/demo/landing/employees/", "/root/.headwater/demo/warehouse/", "/root/.headwater/demo/landing/attendance/"]);
    expect(shared).toBe("/root/.headwater/demo/");
    expect(placeOf("file", "/root/.headwater/demo/warehouse/", shared)).toBe("file · warehouse/");
    expect(placeOf("s3://hr-bucket", "raw/2026/", "")).toBe("hr-bucket · raw/2026/");
    expect(placeOf("postgres://db:5432", "", "")).toBe("db:5432");
    expect(sharedFolder(["/a/b/"])).toBe("");
    expect(sharedFolder(["/a/x/", "/b/y/"])).toBe("/");
  });

  it("marks the source by namespace or job integration", () => {
    expect(sourceMark("s3://bucket").label).toBe("Amazon S3");
    expect(sourceMark("postgres://db:5432").label).toBe("PostgreSQL");
    expect(sourceMark("mysql://db:3306").label).toBe("MySQL");
    expect(sourceMark("redshift://c.region:5439").label).toBe("Redshift");
    expect(sourceMark("kafka://broker:9092").label).toBe("Kafka");
    expect(sourceMark("hr_payroll", "SPARK").label).toBe("Spark");
    expect(sourceMark("airflow", "AIRFLOW").label).toBe("Airflow");
    expect(sourceMark("file").mark).toBe("");
  });
});
