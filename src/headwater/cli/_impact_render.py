"""An impact report as people read it: a terminal table, Markdown for a pull-request comment, JSON."""

from __future__ import annotations

import io
import json
from dataclasses import asdict

from headwater.graph.impactcheck import BREAKING, INFO, WARNING, Affected, ImpactReport
from headwater.graph.visibility import RESTRICTED_NAMESPACE
from headwater.model.nodeid import InvalidNodeId, parse_node_id

_TITLES = {BREAKING: "Breaking", WARNING: "Warnings", INFO: "Info"}
_ICONS = {BREAKING: "\u274c", WARNING: "\u26a0\ufe0f", INFO: "\u2139\ufe0f", "none": "\u2705"}
_HOW = {
    "DIRECT": "value flows from it",
    "INDIRECT": "rows or keys depend on it",
    "READS": "reads it",
    "MAY_READ": "may read it (no column lineage known)",
    "TAGGED": "a tag would flow into it",
    "WRITTEN": "written by a breaking job",
}
_MAX_ROWS = 200  # per severity in a comment: GitHub caps a comment at 65,536 characters


def _label(item: Affected) -> str:
    if item.type == "FIELD":
        return f"{item.name}.{item.field}" if item.name else item.id
    return item.name or item.id


def _short(node_id: str) -> str:
    """A path element without its namespace: ``name`` or ``name.field``."""
    try:
        ref = parse_node_id(node_id)
    except InvalidNodeId:
        return node_id
    if ref.namespace == RESTRICTED_NAMESPACE:
        return "(restricted)"
    return f"{ref.name}.{ref.field}" if ref.field is not None else ref.name


def path_text(item: Affected) -> str:
    return " \u2192 ".join(_short(p) for p in item.path)


def verdict(report: ImpactReport) -> str:
    s = report.summary
    if report.severity == "none":
        return "nothing downstream is affected"
    warnings = s.get("warning", 0)
    return f"{s.get('breaking', 0)} breaking, {warnings} warning{'' if warnings == 1 else 's'}, {s.get('info', 0)} info"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: ImpactReport, title: str = "Headwater impact check") -> str:
    """A pull-request comment: the verdict, the changes, then each severity's items with owners and paths."""
    lines = [f"## {_ICONS[report.severity]} {title}: {verdict(report)}", ""]
    lines += ["| # | change | where | found | severity | notes |", "|---|---|---|---|---|---|"]
    for c in report.changes:
        ch = c.change
        what = f"`{ch['kind']}` {ch['namespace']} `{ch['name']}`" + (f" `{ch['column']}`" if ch.get("column") else "")
        notes = "; ".join(c.notes + ([f"gone: {', '.join(_short(g) for g in c.gone)}"] if c.gone else []))
        lines.append(
            f"| {c.index + 1} | {_cell(what)} | {_cell(ch.get('origin', ''))} | {'yes' if c.found else 'no'} "
            f"| {c.severity} | {_cell(notes)} |"
        )
    for level in (BREAKING, WARNING, INFO):
        items = [i for i in report.items if i.severity == level]
        if not items:
            continue
        lines += ["", f"### {_ICONS[level]} {_TITLES[level]} ({len(items)})", ""]
        lines += ["| what | type | project | owners | subscribers | how | path |", "|---|---|---|---|---|---|---|"]
        for i in items[:_MAX_ROWS]:
            owners = ", ".join(i.owners) or "\u2014"
            subs = ", ".join(i.subscribers) or "\u2014"
            what = f"`{_label(i)}`" + (" (published)" if i.published else "")
            lines.append(
                f"| {_cell(what)} | {i.type} | {_cell(i.project or chr(0x2014))} | {_cell(owners)} | {_cell(subs)} "
                f"| {_HOW.get(i.effect, i.effect)} | {_cell(path_text(i))} |"
            )
        if len(items) > _MAX_ROWS:
            lines.append(f"\n\u2026 and {len(items) - _MAX_ROWS} more (see the JSON report)")
    if report.published:
        lines += ["", "**Published assets affected:** " + ", ".join(f"`{_short(p)}`" for p in report.published)]
    if report.truncated:
        lines += ["", "_The walk was cut at the server's max_graph_nodes: more may be affected._"]
    lines += ["", f"<sub>Checked against the lineage graph {'as of ' + report.at if report.at else 'now'}.</sub>"]
    return "\n".join(lines) + "\n"


def as_json(report: ImpactReport) -> str:
    return json.dumps(asdict(report), indent=2)


def table(report: ImpactReport) -> str:
    """A terminal table (rich), as plain text."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=160, color_system=None)
    console.print(f"{_ICONS[report.severity]} impact check: {verdict(report)}")
    for c in report.changes:
        ch = c.change
        col = f".{ch['column']}" if ch.get("column") else ""
        notes = ("  (" + "; ".join(c.notes) + ")") if c.notes else ""
        console.print(f"  change {c.index + 1}: {ch['kind']} {ch['name']}{col} [{c.severity}]{notes}", markup=False)
    if report.items:
        t = Table("severity", "what", "type", "project", "owners", "path", show_lines=False)
        for i in report.items:
            t.add_row(i.severity, _label(i), i.type, i.project or "", ", ".join(i.owners), path_text(i))
        console.print(t)
    return buf.getvalue()
