-- dialect: spark
-- namespace: hive://metastore:9083
-- default-database: default
-- schema: default.events(user_id, ts, kind, value)
INSERT OVERWRITE TABLE agg.user_events
SELECT user_id, COUNT(*) AS n, SUM(value) AS total FROM events WHERE kind = 'click' GROUP BY user_id;
CREATE OR REPLACE TEMPORARY VIEW clicks AS SELECT user_id, value FROM events;
