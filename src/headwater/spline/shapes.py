"""The JSON shapes of Spline's producer API v1.1 and v1.2 (pure): each problem with a JSON path.

Checked as Spline's own server reads them (``producer-model`` v1_1/v1_2): an execution plan needs
``operations.write`` (``id``, ``outputSource``, ``append``, ``childIds``) and ``systemInfo``; reads
need ``inputSources``; attributes ``id`` and ``name``; functions ``id`` and ``name``; references
are ``{"__attrId": ...}`` or ``{"__exprId": ...}`` and must point at something the plan defines;
operation, attribute and expression ids are unique. An execution event needs ``planId`` (a UUID)
and ``timestamp`` (epoch milliseconds). Optional keys may be ``null`` (the Python agent sends
``durationNs: null``). Ids may be strings (the Spark agent: ``op-0``, ``attr-1``) or integers
(the Python ``spline-agent`` sends operation ids as numbers). Unknown keys are kept, not refused.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from headwater.model.jsontypes import JSONObject, JSONValue

SUPPORTED_VERSIONS = ("1.2", "1.1")  # newest first, as the status answer lists them


@dataclass(frozen=True)
class Problem:
    path: str
    message: str


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def _type_name(value: JSONValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


class _Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def obj(self, value: JSONValue, path: str, required: bool = True) -> JSONObject | None:
        if value is None and not required:
            return None
        if not isinstance(value, dict):
            self.add(path, f"expected an object, got {_type_name(value)}")
            return None
        return value

    def field(self, parent: JSONObject, key: str, path: str, kind: str, required: bool = False) -> JSONValue:
        here = _key(path, key)
        if key not in parent or parent[key] is None:
            if required:
                self.add(here, f"required {kind} is missing")
            return None
        value = parent[key]
        ok = {
            "string": isinstance(value, str),
            "boolean": isinstance(value, bool),
            "integer": isinstance(value, int) and not isinstance(value, bool),
            "object": isinstance(value, dict),
            "array": isinstance(value, list),
            "id": isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)),
        }[kind]
        if not ok:
            expected = "a string or an integer" if kind == "id" else f"{'an' if kind[0] in 'aeio' else 'a'} {kind}"
            self.add(here, f"expected {expected}, got {_type_name(value)}")
            return None
        return value

    def ids(self, parent: JSONObject, key: str, path: str, required: bool = False) -> list[str]:
        items = self.field(parent, key, path, "array", required)
        out: list[str] = []
        for i, item in enumerate(items or []):
            if isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool)):
                out.append(str(item))
            else:
                self.add(f"{_key(path, key)}[{i}]", f"expected an id (string or integer), got {_type_name(item)}")
        return out

    def refs(self, parent: JSONObject, key: str, path: str) -> list[tuple[str, str, str]]:
        """``(where, "attr"|"expr", id)`` of each reference in ``parent[key]`` (a list of references)."""
        items = self.field(parent, key, path, "array")
        out: list[tuple[str, str, str]] = []
        for i, item in enumerate(items or []):
            where = f"{_key(path, key)}[{i}]"
            ref = ref_of(item)
            if ref is None:
                self.add(where, 'expected a reference {"__attrId": "<id>"} or {"__exprId": "<id>"}')
            else:
                out.append((where, *ref))
        return out


def ref_of(value: JSONValue) -> tuple[str, str] | None:
    """``("attr", id)`` or ``("expr", id)`` when ``value`` is a Spline reference object, else None."""
    if not isinstance(value, dict):
        return None
    for key, kind in (("__attrId", "attr"), ("__exprId", "expr")):
        ref = value.get(key)
        if isinstance(ref, (str, int)) and not isinstance(ref, bool):
            return kind, str(ref)
    return None


def _is_uuid(value: JSONValue) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def plan_problems(plan: JSONValue) -> list[Problem]:
    """Everything wrong with an execution plan (empty when it is one Headwater can convert)."""
    c = _Checker()
    root = c.obj(plan, "$")
    if root is None:
        return c.problems
    if root.get("id") is not None and not _is_uuid(root.get("id")):
        c.add("$.id", f"expected a UUID string, got {json.dumps(root.get('id'))[:80]}")
    c.field(root, "name", "$", "string")
    c.field(root, "discriminator", "$", "string")
    c.field(root, "labels", "$", "object")
    c.field(root, "extraInfo", "$", "object")
    for key in ("systemInfo", "agentInfo"):
        nav = c.field(root, key, "$", "object", required=key == "systemInfo")
        if nav is not None:
            c.field(nav, "name", f"$.{key}", "string", required=True)
            c.field(nav, "version", f"$.{key}", "string", required=True)

    op_ids: dict[str, str] = {}
    child_refs: list[tuple[str, str]] = []
    outputs: list[tuple[str, str]] = []

    def operation(op: JSONValue, path: str, kind: str) -> None:
        body = c.obj(op, path)
        if body is None:
            return
        op_id = c.field(body, "id", path, "id", required=True)
        if op_id is not None:
            if str(op_id) in op_ids:
                c.add(f"{path}.id", f"operation id {json.dumps(op_id)} is used twice (also at {op_ids[str(op_id)]})")
            op_ids.setdefault(str(op_id), path)
        c.field(body, "name", path, "string")
        c.field(body, "params", path, "object")
        c.field(body, "extra", path, "object")
        if kind == "write":
            source = c.field(body, "outputSource", path, "string", required=True)
            if source is not None and not source.strip():
                c.add(f"{path}.outputSource", "is empty: expected the URI the data was written to")
            c.field(body, "append", path, "boolean", required=True)
        if kind == "read":
            sources = c.field(body, "inputSources", path, "array", required=True)
            for i, s in enumerate(sources or []):
                if not isinstance(s, str):
                    c.add(f"{path}.inputSources[{i}]", f"expected a URI string, got {_type_name(s)}")
        if kind != "read":
            child_refs.extend(
                (f"{path}.childIds[{i}]", cid)
                for i, cid in enumerate(c.ids(body, "childIds", path, required=kind == "write"))
            )
        if kind != "write":
            outputs.extend((f"{path}.output[{i}]", a) for i, a in enumerate(c.ids(body, "output", path)))

    ops = c.field(root, "operations", "$", "object", required=True)
    if ops is not None:
        operation(ops.get("write"), "$.operations.write", "write")
        for key, kind in (("reads", "read"), ("other", "other")):
            for i, op in enumerate(c.field(ops, key, "$.operations", "array") or []):
                operation(op, f"$.operations.{key}[{i}]", kind)
    if ops is not None and root.get("operations", {}).get("write") is not None:
        for where, cid in child_refs:
            if cid not in op_ids:
                c.add(where, f"no operation has id {json.dumps(cid)}")

    attr_ids: dict[str, str] = {}
    expr_ids: dict[str, str] = {}
    refs: list[tuple[str, str, str]] = []
    for i, attr in enumerate(c.field(root, "attributes", "$", "array") or []):
        path = f"$.attributes[{i}]"
        body = c.obj(attr, path)
        if body is None:
            continue
        attr_id = c.field(body, "id", path, "id", required=True)
        c.field(body, "name", path, "string", required=True)
        c.field(body, "extra", path, "object")
        if attr_id is not None:
            if str(attr_id) in attr_ids:
                c.add(
                    f"{path}.id", f"attribute id {json.dumps(attr_id)} is used twice (also at {attr_ids[str(attr_id)]})"
                )
            attr_ids.setdefault(str(attr_id), path)
        refs.extend(c.refs(body, "childRefs", path))
    exprs = c.field(root, "expressions", "$", "object")
    if exprs is not None:
        for key in ("functions", "constants"):
            for i, expr in enumerate(c.field(exprs, key, "$.expressions", "array") or []):
                path = f"$.expressions.{key}[{i}]"
                body = c.obj(expr, path)
                if body is None:
                    continue
                expr_id = c.field(body, "id", path, "id", required=True)
                if key == "functions":
                    c.field(body, "name", path, "string", required=True)
                    c.field(body, "params", path, "object")
                    refs.extend(c.refs(body, "childRefs", path))
                c.field(body, "extra", path, "object")
                if expr_id is not None:
                    if str(expr_id) in expr_ids:
                        c.add(
                            f"{path}.id",
                            f"expression id {json.dumps(expr_id)} is used twice (also at {expr_ids[str(expr_id)]})",
                        )
                    expr_ids.setdefault(str(expr_id), path)
    for where, kind, ref_id in refs:
        known = attr_ids if kind == "attr" else expr_ids
        if ref_id not in known:
            c.add(where, f"no {'attribute' if kind == 'attr' else 'expression'} has id {json.dumps(ref_id)}")
    if attr_ids:
        for where, attr_id in outputs:
            if attr_id not in attr_ids:
                c.add(where, f"no attribute has id {json.dumps(attr_id)}")
    return c.problems


def event_problems(events: JSONValue) -> list[Problem]:
    """Everything wrong with a list of execution events (the body of ``POST /execution-events``)."""
    c = _Checker()
    if not isinstance(events, list):
        c.add("$", f"expected an array of execution events, got {_type_name(events)}")
        return c.problems
    for i, event in enumerate(events):
        path = f"$[{i}]"
        body = c.obj(event, path)
        if body is None:
            continue
        plan_id = c.field(body, "planId", path, "string", required=True)
        if plan_id is not None and not _is_uuid(plan_id):
            c.add(f"{path}.planId", f"expected a UUID, got {json.dumps(plan_id)[:80]}")
        timestamp = c.field(body, "timestamp", path, "integer", required=True)
        if timestamp is not None and timestamp < 0:
            c.add(f"{path}.timestamp", "expected milliseconds since the epoch (not negative)")
        duration = c.field(body, "durationNs", path, "integer")
        if duration is not None and duration < 0:
            c.add(f"{path}.durationNs", "expected a duration in nanoseconds (not negative)")
        c.field(body, "discriminator", path, "string")
        c.field(body, "labels", path, "object")
        c.field(body, "extra", path, "object")
    return c.problems
