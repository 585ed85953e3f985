"""Query-history harvesters: what a warehouse executed → OpenLineage events through :mod:`headwater.client`.

One module per source: :mod:`.postgres` (pg_stat_statements), :mod:`.mysql` (performance_schema / general
log), :mod:`.redshift_export` (an export of SYS_QUERY_HISTORY). Each reads executions, runs them through the
SQL engine (:mod:`headwater.sql`) with the live database's schemas, and keeps a checkpoint (:mod:`.checkpoint`)
so that every execution is harvested once.
"""
