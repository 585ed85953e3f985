"""JSON answers encoded in the handler: the bytes FastAPI would write, without its per-value work.

Headwater's read routes return their answers as :class:`~fastapi.responses.Response` bytes made
here, so the response models of :mod:`headwater.api.models` describe the answers in
``/openapi.json`` without validating or re-encoding them (FastAPI passes a returned ``Response``
through as it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from fastapi.responses import Response
from pydantic import TypeAdapter

_ANY_DICT: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


def json_answer(answer: Mapping[str, object], status_code: int = 200) -> Response:
    """``answer`` as ``application/json`` bytes: the bytes FastAPI writes for a ``-> dict[str, Any]`` route.

    orjson writes compact JSON, UTF-8 (no ``\\u`` escapes of non-ASCII), the shortest round-trip
    floats with the same exponent style, and ``null`` for NaN/infinity, as FastAPI's pydantic
    encoder does (tests/api/test_api_graph_json.py); it refuses integers beyond 64 bits, which
    pydantic encodes, through the very call FastAPI makes for such a route.
    """
    try:
        body = orjson.dumps(answer)
    except orjson.JSONEncodeError:
        body = _ANY_DICT.dump_json(dict(answer), by_alias=True)
    return Response(body, status_code=status_code, media_type="application/json")
