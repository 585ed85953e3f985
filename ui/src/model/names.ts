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

export interface JobLabel {
  /** what to show as the node's name */
  title: string;
  /** the application (Spark app name) the action belongs to, or "" */
  app: string;
  /** the action in words ("write"), or "" when the name does not follow the rule */
  action: string;
  /** the output the action writes, or "" */
  output: string;
}

/**
 * A job name made by the Spark integration's rule, `app.execute_insert_into_hadoop_fs_relation_command.table`
 * (or `app.append_data.db_table`), as "write table" with the app apart. Other names stay whole.
 */
export function jobLabel(name: string): JobLabel {
  const parts = name.split(".");
  if (parts.length >= 2 && parts[0] && !name.includes("/")) {
    const cmd = parts[1];
    const bare = cmd.replace(/^execute_/, "").replace(/_command$/, "");
    const known = SPARK_ACTIONS[bare];
    if (known || (/^execute_[a-z0-9_]+_command$/.test(cmd) && bare)) {
      const action = known ?? bare.replace(/_/g, " ");
      const output = parts.slice(2).join(".");
      return { title: output ? `${action} ${output}` : action, app: parts[0], action, output };
    }
  }
  return { title: name, app: "", action: "", output: "" };
}
