"""Harvesters: what databases executed, and OpenLineage events written to logs → events through :mod:`headwater.client`.

Query history (docs/sql.md): one module per source — :mod:`.postgres` (pg_stat_statements, csvlog), :mod:`.mysql`
(performance_schema, the general log table), :mod:`.redshift` (an export of SYS_QUERY_HISTORY + SYS_QUERY_TEXT) —
yields :class:`.core.Execution` records; :class:`.core.Harvester` runs each distinct statement through the SQL engine
(:mod:`headwater.sql`, with the live database's schemas from :mod:`.schemas`) and makes deterministic events (the
same execution always maps to the same run id). :mod:`.checkpoint` keeps how far each source was read, so every
execution is harvested once.

Logs (docs/producers.md): :mod:`.logs` finds OpenLineage events in log lines and sends each once.
"""
