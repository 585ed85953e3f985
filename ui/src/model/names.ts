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

/**
 * `text` cut in the middle to at most `max` characters ("employ…compensation"), keeping more of the end
 * (the distinguishing part of a name); whole when it fits.
 */
export function middleCut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 4) return tailCut(text, Math.max(max, 2));
  const keep = max - 1;
  const head = Math.floor(keep * 0.35);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}

let measureCtx: CanvasRenderingContext2D | null | undefined;
const widths = new Map<string, number>();

/** The drawn width of `text` in `font` (a canvas measures it; about 7.4 px a character where there is no canvas). */
export function textWidth(text: string, font: string): number {
  const key = `${font}|${text}`;
  const known = widths.get(key);
  if (known !== undefined) return known;
  if (measureCtx === undefined) {
    try {
      measureCtx = typeof document !== "undefined" ? document.createElement("canvas").getContext("2d") : null;
    } catch {
      measureCtx = null;
    }
  }
  let w = text.length * 7.4;
  if (measureCtx) {
    measureCtx.font = font;
    w = measureCtx.measureText(text).width;
  }
  if (widths.size > 20000) widths.clear();
  widths.set(key, w);
  return w;
}

/** The font node names are drawn in (styles.css `.lnode-name`). */
export const NAME_FONT = '600 13px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

/** `text` whole when it fits `px` in `font`, else cut in the middle to the most characters that fit. */
export function fitName(text: string, px: number, font: string = NAME_FONT): string {
  if (textWidth(text, font) <= px) return text;
  let lo = 3;
  let hi = text.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(middleCut(text, mid), font) <= px) lo = mid;
    else hi = mid - 1;
  }
  return middleCut(text, lo);
}

/**
 * What tells a dataset's place apart in a graph: the namespace's host or bucket (`s3://bucket` → `bucket`,
 * `postgres://db:5432` → `db:5432`; `file` stays `file`) and the folder relative to `shared`, the folder
 * prefix the graph's datasets of that namespace have in common.
 */
export function placeOf(namespace: string, context: string, shared: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/]*)/i.exec(namespace);
  const where = m ? m[1] || namespace : namespace;
  const rel = context.startsWith(shared) ? context.slice(shared.length) : context;
  return rel ? `${where} · ${rel}` : where;
}

/** The longest common folder prefix (ending in "/") of `folders`; "" when they share none. */
export function sharedFolder(folders: string[]): string {
  if (folders.length < 2) return "";
  let prefix = folders[0];
  for (const f of folders) {
    let i = 0;
    while (i < prefix.length && i < f.length && prefix[i] === f[i]) i++;
    prefix = prefix.slice(0, i);
    if (!prefix) break;
  }
  const cut = prefix.lastIndexOf("/");
  return cut >= 0 ? prefix.slice(0, cut + 1) : "";
}

/** A short mark for where a dataset lives or what ran a job, from its namespace or its job type. */
export function sourceMark(namespace: string, integration?: string | null): { mark: string; label: string } {
  const i = (integration ?? "").toLowerCase();
  if (i) {
    if (i.includes("spark")) return { mark: "Sp", label: "Spark" };
    if (i.includes("airflow")) return { mark: "Af", label: "Airflow" };
    if (i.includes("dbt")) return { mark: "dbt", label: "dbt" };
    if (i.includes("spline")) return { mark: "Sl", label: "Spline" };
    if (i.includes("crawl")) return { mark: "Cr", label: "crawler" };
    if (i.includes("sql")) return { mark: "SQL", label: "SQL" };
  }
  const scheme = (/^([a-z][a-z0-9+.-]*):/i.exec(namespace)?.[1] ?? namespace).toLowerCase();
  if (scheme === "file" || scheme === "hdfs") return { mark: "", label: "file" };
  if (scheme === "s3" || scheme === "s3a" || scheme === "s3n") return { mark: "S3", label: "Amazon S3" };
  if (scheme.startsWith("postgres")) return { mark: "Pg", label: "PostgreSQL" };
  if (scheme === "mysql" || scheme === "mariadb") return { mark: "My", label: "MySQL" };
  if (scheme === "redshift") return { mark: "Rs", label: "Redshift" };
  if (scheme === "kafka") return { mark: "Kf", label: "Kafka" };
  return { mark: "", label: scheme };
}
