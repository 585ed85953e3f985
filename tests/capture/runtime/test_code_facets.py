"""What the agent knows of a job's code, without Spark: the ``sourceCode`` job facet, the
``headwater_callSite`` run facet and the integration's ``spark.logicalPlan`` run facet — their configuration
keys, their shape (valid against the official OpenLineage schema, and serialised byte for byte as openlineage-python
does), and the call-site bookkeeping."""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from typing import Any

from openlineage.client.event_v2 import RunState as EventType
from openlineage.client.serde import Serde

from headwater.capture import callsite
from headwater.capture.config import load_config
from headwater.capture.events import (
    CALL_SITE_FACET,
    LOGICAL_PLAN_FACET,
    SOURCE_CODE_FACET,
    AppContext,
    Execution,
    application_event,
    execution_events,
)
from headwater.capture.plain import plain_events

SCRIPT = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
PLAN = [{"class": "org.apache.spark.sql.catalyst.plans.logical.Project", "num-children": 1, "projectList": []}]


def _context(**kw: Any) -> AppContext:
    return AppContext(
        namespace="default",
        app_job="app",
        app_run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ab",
        spark_version="4.0.0",
        script_url="file:///jobs/job.py",
        source_code=("python", SCRIPT),
        **kw,
    )


def _execution(**kw: Any) -> Execution:
    return Execution(
        run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ac",
        job_name="app.execute_insert_into_hadoop_fs_relation_command.out",
        started=1.0,
        ended=2.0,
        inputs=[],
        outputs=[],
        **kw,
    )


def test_config_keys() -> None:
    config = load_config({})
    assert config.source_code_max_bytes == 65536 and config.logical_plan is False
    on = load_config({"spark.openlineage.facets.spark.logicalPlan.disabled": "false"})
    assert on.logical_plan is True and LOGICAL_PLAN_FACET not in on.disabled_facets
    # the deprecated list still wins when it names the facet
    listed = load_config(
        {
            "spark.openlineage.facets.spark.logicalPlan.disabled": "false",
            "spark.openlineage.facets.disabled": "[spark_unknown;spark.logicalPlan]",
        }
    )
    assert listed.logical_plan is False
    sized = load_config({"spark.headwater.sourceCode.maxBytes": "100", "spark.headwater.logicalPlan.maxBytes": "5"})
    assert (sized.source_code_max_bytes, sized.logical_plan_max_bytes) == (100, 5)
    off = load_config({"spark.openlineage.facets.sourceCode.disabled": "true"})
    assert SOURCE_CODE_FACET in off.disabled_facets


def test_code_facets_on_the_events(assert_valid_events: Any) -> None:
    ctx = _context()
    events = [
        application_event(ctx, EventType.START, 1.0),
        *execution_events(ctx, _execution(call_site=("/jobs/job.py", 7, "<module>"), logical_plan=PLAN)),
    ]
    docs = [json.loads(Serde.to_json(e)) for e in events]
    assert [Serde.to_json(p) for p in plain_events(events)] == [Serde.to_json(e) for e in events]
    assert_valid_events(docs)
    for doc in docs:
        code = doc["job"]["facets"][SOURCE_CODE_FACET]
        assert (code["language"], code["sourceCode"]) == ("python", SCRIPT)
        assert doc["job"]["facets"]["sourceCodeLocation"]["url"] == "file:///jobs/job.py"
    start, end = docs[1], docs[2]
    for doc in (start, end):
        site = doc["run"]["facets"][CALL_SITE_FACET]
        assert (site["file"], site["line"], site["function"]) == ("/jobs/job.py", 7, "<module>")
    # the plan, like columnLineage, only on the terminal event
    assert LOGICAL_PLAN_FACET not in start["run"]["facets"]
    assert end["run"]["facets"][LOGICAL_PLAN_FACET]["plan"] == PLAN


def test_facets_switched_off() -> None:
    ctx = _context(disabled_facets=frozenset({SOURCE_CODE_FACET, CALL_SITE_FACET, LOGICAL_PLAN_FACET}))
    events = execution_events(ctx, _execution(call_site=("/jobs/job.py", 7, "<module>"), logical_plan=PLAN))
    for doc in (json.loads(Serde.to_json(e)) for e in events):
        assert SOURCE_CODE_FACET not in doc["job"]["facets"]
        assert CALL_SITE_FACET not in doc["run"]["facets"] and LOGICAL_PLAN_FACET not in doc["run"]["facets"]


class _Actions:
    def act(self, inner: bool = False) -> int:
        return self.act() if inner else 42


def test_call_sites_name_the_callers_line(monkeypatch: Any) -> None:
    # the windows are the process's: other tests' Spark actions (a minute ago too) are in it; this test looks
    # only at its own calls
    monkeypatch.setattr(callsite, "_CALLS", deque(maxlen=callsite.MAX_CALLS))
    callsite._wrap(_Actions, "act")
    assert callsite.wrapped(_Actions.act)
    before = time.time()
    line = sys._getframe().f_lineno + 1
    assert _Actions().act(inner=True) == 42  # nested calls record the outermost
    after = time.time()
    site = callsite.find((before + after) / 2)
    assert site is not None and (site.file, site.line, site.function) == (
        __file__,
        line,
        sys._getframe().f_code.co_name,
    )
    assert callsite.find(before - 60) is None
    # an exception passes through unchanged, and the window is closed
    callsite._wrap(_Broken, "act")
    try:
        _Broken().act()
    except ValueError as exc:
        assert str(exc) == "the action's own error"
    else:
        raise AssertionError("the wrapper swallowed the action's exception")


class _Broken:
    def act(self) -> None:
        raise ValueError("the action's own error")


def test_code_run_by_exec_or_a_notebook_cell_is_the_jobs_code(monkeypatch: Any) -> None:
    """Code without a file ("<string>", "<stdin>", an older notebook cell) is the job's own: its line is named."""
    monkeypatch.setattr(callsite, "_CALLS", deque(maxlen=callsite.MAX_CALLS))
    callsite._wrap(_Actions, "act")
    before = time.time()
    exec(compile("\n\n_Actions().act()\n", "<ipython-input-3-abc>", "exec"), {"_Actions": _Actions})
    site = callsite.find((before + time.time()) / 2)
    assert site is not None and (site.file, site.line) == ("<ipython-input-3-abc>", 3)
