-- dialect: bigquery
-- namespace: bigquery
-- default-database: my-project
-- schema: my-project.raw.visits(visitor, url, ts)
CREATE OR REPLACE TABLE mart.daily_visits AS
SELECT DATE(ts) AS day, COUNT(DISTINCT visitor) AS visitors FROM raw.visits GROUP BY day;
