"""The plan's toJSON text is parsed with orjson where that gives exactly what ``json.loads`` gives."""

from __future__ import annotations

import json
import math

import pytest

from headwater.capture.lineage.snapshot import _loads_plan


@pytest.mark.parametrize(
    "text",
    [
        '[{"class": "org.apache.spark.sql.catalyst.plans.logical.Project", "num-children": 1}]',
        '{"value": 123456789012345678901234567890}',  # beyond 64 bits: orjson would give a float
        '{"value": -99999999999999999999, "x": 1.5e300}',
        '{"literal": "12345678901234567890123"}',  # digits inside a string: either parser, same value
        '{"name": "caf\\u00e9 \\ud83d\\ude00", "u": "ß"}',
        '{"a": [], "b": {}, "c": null, "d": true, "e": 0.1}',
    ],
)
def test_same_objects_as_the_standard_library(text: str) -> None:
    got = _loads_plan(text)
    assert got == json.loads(text)
    assert json.dumps(got) == json.dumps(json.loads(text))  # same types too (int stays int, float stays float)


def test_what_orjson_refuses_still_parses() -> None:
    got = _loads_plan('{"x": NaN, "y": Infinity, "z": 1e400}')
    assert math.isnan(got["x"]) and got["y"] == math.inf and got["z"] == math.inf


def test_bad_json_is_the_standard_librarys_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        _loads_plan('{"x": ')
