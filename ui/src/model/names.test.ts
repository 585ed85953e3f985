import { describe, expect, it } from "vitest";
import { jobLabel, tailCut } from "./names";

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

  it("leaves other names whole", () => {
    for (const n of ["hr_employee_compensation", "schema.table", "a.b.c", "/data/x.csv", "job.execute_x"]) {
      expect(jobLabel(n)).toEqual({ title: n, app: "", action: "", output: "" });
    }
  });
});
