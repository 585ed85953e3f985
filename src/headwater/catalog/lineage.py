"""The OpenLineage events the catalog sends (pure): publishing, a subscription's target, metadata.

The catalog is a producer like the crawler: what it does to the lineage it says in events appended
through the ingest path, and the projector makes graph nodes of them. Its nodes live in the namespace
``headwater-catalog://<domain>``:

- publishing asset ``A`` of project ``P``: a run of job ``publish/<P>/<A name>`` reading the asset's
  inventory dataset and writing the published node ``<P>/<A name>`` (its schema and the
  ``headwater_catalog`` facet: state and business metadata);
- approving a subscription: a run of job ``subscription/<id>`` reading the published node and writing
  the target node ``<consumer project>/<target>/<A name>``;
- unpublishing, revoking: a DatasetEvent with ``lifecycleStateChange: DROP`` on the node (its validity ends);
- a metadata edit: a DatasetEvent carrying the new ``headwater_catalog`` facet on the inventory node
  (and on the published node while published): a new version of each, seen by as-of reads and compare.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from headwater.model import openlineage as ol

SCHEME = "headwater-catalog://"
PRODUCER = ol.producer("catalog")
FACET = "headwater_catalog"


def namespace(domain: str) -> str:
    return f"{SCHEME}{domain}"


def _facet(kind: str, **fields: object) -> dict[str, object]:
    return ol.facet(PRODUCER, kind, **fields)


def schema_facet(fields: Sequence[Mapping[str, object]]) -> dict[str, object]:
    """A schema facet from the graph's fields (SchemaField shapes: None values left out)."""

    def one(f: Mapping[str, object]) -> dict[str, object]:
        out: dict[str, object] = {"name": f["name"]}
        if f.get("type") is not None:
            out["type"] = f["type"]
        if f.get("description") is not None:
            out["description"] = f["description"]
        nested = f.get("fields")
        if isinstance(nested, Sequence) and nested:
            out["fields"] = [one(x) for x in nested if isinstance(x, Mapping)]
        return out

    return _facet("schema", fields=[one(f) for f in fields])


def catalog_facet(**fields: object) -> dict[str, object]:
    return _facet("dataset", **fields)


def run_event(
    *,
    domain: str,
    job: str,
    job_type: str,
    inputs: Sequence[tuple[str, str]],
    output: tuple[str, str, Mapping[str, object]],
    action: Mapping[str, object],
    clock: datetime | None = None,
) -> dict[str, object]:
    """A COMPLETE run of a catalog job: ``inputs`` (namespace, name) → ``output`` (namespace, name, facets)."""
    ns, name, facets = output
    return ol.run_event(
        PRODUCER,
        event_type="COMPLETE",
        when=clock or datetime.now(UTC),
        run={"runId": str(uuid.uuid4()), "facets": {FACET: _facet("run", **action)}},
        job={
            "namespace": namespace(domain),
            "name": job,
            "facets": {
                "jobType": _facet("jobType", processingType="BATCH", integration="HEADWATER_CATALOG", jobType=job_type)
            },
        },
        inputs=[{"namespace": i_ns, "name": i_name} for i_ns, i_name in inputs],
        outputs=[{"namespace": ns, "name": name, "facets": dict(facets)}],
    )


def dataset_event(
    node: tuple[str, str], facets: Mapping[str, object], *, dropped: bool = False, clock: datetime | None = None
) -> dict[str, object]:
    """A DatasetEvent about one node; ``dropped``: its validity ends (``lifecycleStateChange: DROP``)."""
    all_facets = dict(facets)
    if dropped:
        all_facets["lifecycleStateChange"] = _facet("lifecycleStateChange", lifecycleStateChange="DROP")
    return ol.dataset_event(
        PRODUCER, when=clock or datetime.now(UTC), dataset={"namespace": node[0], "name": node[1], "facets": all_facets}
    )
