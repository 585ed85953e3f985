// Node ids in Marquez's format, parsed exactly like src/headwater/model/nodeid.py.

export interface NodeRef {
  type: "dataset" | "job" | "datasetField" | "run";
  namespace: string;
  name: string;
  field: string | null;
}

const PORT = /^\d+(?=:|$)/;

function splitNamespace(rest: string): [string, string] {
  const schemeEnd = rest.indexOf("://");
  const firstColon = rest.indexOf(":");
  if (schemeEnd !== -1 && schemeEnd === firstColon) {
    const start = schemeEnd + 3;
    let colon = rest.indexOf(":", start);
    if (colon === -1) throw new Error(`no name after namespace in ${JSON.stringify(rest)}`);
    const port = PORT.exec(rest.slice(colon + 1));
    if (port && colon + 1 + port[0].length < rest.length) colon = colon + 1 + port[0].length;
    return [rest.slice(0, colon), rest.slice(colon + 1)];
  }
  if (firstColon === -1) throw new Error(`expected '<namespace>:<name>', got ${JSON.stringify(rest)}`);
  return [rest.slice(0, firstColon), rest.slice(firstColon + 1)];
}

export function parseNodeId(id: string): NodeRef {
  const i = id.indexOf(":");
  if (i === -1) throw new Error(`invalid node id ${JSON.stringify(id)}`);
  const type = id.slice(0, i);
  const rest = id.slice(i + 1);
  if (type === "run") {
    if (!rest) throw new Error(`invalid node id ${JSON.stringify(id)}: no run id`);
    return { type, namespace: "", name: rest, field: null };
  }
  if (type !== "dataset" && type !== "job" && type !== "datasetField") {
    throw new Error(`invalid node id ${JSON.stringify(id)}: unknown type ${JSON.stringify(type)}`);
  }
  const [namespace, nameAndField] = splitNamespace(rest);
  if (!namespace || !nameAndField) {
    throw new Error(`invalid node id ${JSON.stringify(id)}: an empty namespace or name`);
  }
  if (type === "datasetField") {
    const j = nameAndField.lastIndexOf(":");
    if (j === -1 || j === nameAndField.length - 1 || j === 0) {
      throw new Error(`invalid node id ${JSON.stringify(id)}: a datasetField id ends with ':<name>:<field>'`);
    }
    return { type, namespace, name: nameAndField.slice(0, j), field: nameAndField.slice(j + 1) };
  }
  return { type, namespace, name: nameAndField, field: null };
}

export const datasetId = (namespace: string, name: string): string => `dataset:${namespace}:${name}`;
export const jobId = (namespace: string, name: string): string => `job:${namespace}:${name}`;
export const fieldId = (dataset: string, field: string): string => {
  // dataset:<ns>:<name>  ->  datasetField:<ns>:<name>:<field>
  return `datasetField:${dataset.slice("dataset:".length)}:${field}`;
};

/** The dataset id a datasetField id belongs to. */
export function datasetOfField(id: string): string {
  const j = id.lastIndexOf(":");
  return `dataset:${id.slice("datasetField:".length, j)}`;
}

/** The field name in a datasetField id (text after the last ':'). */
export function fieldName(id: string): string {
  return id.slice(id.lastIndexOf(":") + 1);
}

export const isField = (id: string): boolean => id.startsWith("datasetField:");
export const isDataset = (id: string): boolean => id.startsWith("dataset:");
export const isJob = (id: string): boolean => id.startsWith("job:");

/**
 * A node label in two parts: the last path segment of a dataset name (the file or folder), and
 * the rest as context. Names without '/' (tables, jobs) stay whole.
 */
export function splitName(name: string): { title: string; context: string } {
  const trimmed = name.endsWith("/") ? name.slice(0, -1) : name;
  const cut = trimmed.lastIndexOf("/");
  if (cut <= 0 || cut === trimmed.length - 1) return { title: name, context: "" };
  return { title: trimmed.slice(cut + 1), context: trimmed.slice(0, cut + 1) };
}
