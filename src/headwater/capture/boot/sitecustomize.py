"""Loaded at interpreter start by ``headwater run`` (first on PYTHONPATH): turns on lineage capture for
every SparkSession this process creates, then loads the ``sitecustomize`` it shadows. Never raises."""

import os as _os

if _os.environ.get("HEADWATER_CAPTURE", "").strip().lower() in ("1", "true", "yes"):
    try:
        from headwater.capture import bootstrap as _bootstrap

        _bootstrap.activate()
        _bootstrap.chain_sitecustomize(_os.path.dirname(_os.path.abspath(__file__)))
    except Exception as _exc:  # noqa: BLE001
        import sys as _sys

        _sys.stderr.write(f"headwater: lineage capture is off in this process ({_exc})\n")
