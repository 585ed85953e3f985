// Node ids in Marquez's format, parsed exactly like src/headwater/graph/nodeid.py.

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
  if (type === "run") return { type, namespace: "", name: rest, field: null };
  if (type !== "dataset" && type !== "job" && type !== "datasetField") {
    throw new Error(`invalid node id ${JSON.stringify(id)}: unknown type ${JSON.stringify(type)}`);
  }
  const [namespace, nameAndField] = splitNamespace(rest);
  if (type === "datasetField") {
    const j = nameAndField.lastIndexOf(":");
    if (j === -1) throw new Error(`invalid node id ${JSON.stringify(id)}: a datasetField id ends with ':<field>'`);
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

/** A short display label: the last path segment of a name, the whole name when short. */
export function shortName(name: string): string {
  if (name.length <= 28) return name;
  const cut = Math.max(name.lastIndexOf("/"), name.lastIndexOf("."));
  return cut > 0 && cut < name.length - 1 ? name.slice(cut + 1) : name;
}
