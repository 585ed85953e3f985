// Display names: the distinguishing end of a long name, and readable labels for the job names
// the OpenLineage Spark integration makes (`<app>.<command>.<output>`). The real name stays the
// node's id, its tooltip, its details and what search matches.

/** The end of `text` when it is longer than `max` characters ("…" + the last max-1). */
export function tailCut(text: string, max: number): string {
  if (max < 2 || text.length <= max) return text;
  return `…${text.slice(text.length - (max - 1))}`;
}

/** Spark plan commands (snake case, without `execute_` / `_command`) and what they do, in words. */
const SPARK_ACTIONS: Record<string, string> = {
  insert_into_hadoop_fs_relation: "write",
  insert_into_data_source: "insert into",
  insert_into_hive_table: "insert into",
  insert_into_data_source_dir: "write",
  insert_into_hive_dir: "write",
  save_into_data_source: "save",
  create_data_source_table_as_select: "create",
  create_hive_table_as_select: "create",
  optimized_create_hive_table_as_select: "create",
  create_table_as_select: "create",
  replace_table_as_select: "replace",
  atomic_create_table_as_select: "create",
  atomic_replace_table_as_select: "replace",
  append_data: "append to",
  overwrite_by_expression: "overwrite",
  overwrite_partitions_dynamic: "overwrite",
  create_table: "create table",
  create_data_source_table: "create table",
  create_view: "create view",
  create_temp_view_using: "create view",
  drop_table: "drop",
  truncate_table: "truncate",
  alter_table_add_columns: "add columns to",
  merge_into_table: "merge into",
  delete_from_table: "delete from",
  update_table: "update",
  load_data: "load into",
  cache_table: "cache",
};

/**
 * Physical plan roots the integration names a job after when the root is not a command: an execution that
 * only read (`collect()`, `show()`, `count()`) and, on Spark 4 with adaptive execution, a write too (its root
 * is `AdaptiveSparkPlan` around the write). The job name tells them apart: the capture appends the output's
 * suffix only when there is an output — `app.adaptive_spark_plan.employee_compensation` wrote that table,
 * `app.adaptive_spark_plan` read. Single common words (`project`, `filter`, `sort`) are left out:
 * `dag.filter` is more likely an Airflow task than a Spark plan root.
 */
const SPARK_READ_ROOTS = new Set([
  "adaptive_spark_plan",
  "collect_limit",
  "take_ordered_and_project",
  "local_table_scan",
  "hash_aggregate",
  "object_hash_aggregate",
  "sort_aggregate",
  "global_limit",
  "local_limit",
  "sort_merge_join",
  "broadcast_hash_join",
  "shuffled_hash_join",
  "broadcast_nested_loop_join",
  "cartesian_product",
  "shuffle_exchange",
  "broadcast_exchange",
  "in_memory_table_scan",
  "batch_scan",
  "row_data_source_scan",
  "deserialize_to_object",
  "serialize_from_object",
  "arrow_eval_python",
  "batch_eval_python",
  "flat_map_groups_in_pandas",
  "map_in_pandas",
  "columnar_to_row",
  "row_to_columnar",
]);

export interface JobLabel {
  /** what to show as the node's name */
  title: string;
  /** the application (Spark app name) the action belongs to, or "" */
  app: string;
  /** the action in words ("write"), or "" when the name does not follow the rule */
  action: string;
  /** the output the action writes (or, for a read, the dataset it names), or "" */
  output: string;
}

const PLAN_ROOT = "(plan root)";

/** The plan node of a job name's second part, without the wrappers the integration's names carry. */
function bareCommand(cmd: string): string {
  return cmd
    .replace(/^execute_/, "")
    .replace(/_command$/, "")
    .replace(/_exec(?:_v\d)?$/, "");
}

/** What a Spark job name's command part does, in words; "" when it is not a Spark plan node name. */
function sparkAction(cmd: string): string {
  const bare = bareCommand(cmd);
  if (!bare) return "";
  const known = SPARK_ACTIONS[bare];
  if (known) return known;
  if (SPARK_READ_ROOTS.has(bare) || /^scan_[a-z0-9_]+$/.test(bare) || /^(?:file_source|hive_table|data_source_v2)_scan/.test(bare)) {
    return PLAN_ROOT;
  }
  if (/^map_partitions_[a-z0-9_]+$/.test(bare)) return "write"; // an RDD saved to files (its final RDD)
  if (/^execute_[a-z0-9_]+_command$/.test(cmd) || /_exec(?:_v\d)?$/.test(cmd)) return bare.replace(/_/g, " ");
  return "";
}

/**
 * A job name made by the Spark integration's rule, `app.execute_insert_into_hadoop_fs_relation_command.table`
 * (or `app.append_data_exec_v1.catalog_db_table`, `app.adaptive_spark_plan.table` for a write under adaptive
 * execution, `app.collect_limit` for an execution that only read), as "write table" / "append to
 * catalog_db_table" / "read query" with the app apart. Other names stay whole.
 */
export function jobLabel(name: string): JobLabel {
  const parts = name.split(".");
  if (parts.length >= 2 && parts[0] && !name.includes("/")) {
    const found = sparkAction(parts[1]);
    if (found) {
      const output = parts.slice(2).join(".");
      // a plan root with an output suffix wrote it; without one the execution only read
      const action = found === PLAN_ROOT ? (output ? "write" : "read") : found;
      const title = output ? `${action} ${output}` : action === "read" ? "read query" : action;
      return { title, app: parts[0], action, output };
    }
  }
  return { title: name, app: "", action: "", output: "" };
}
