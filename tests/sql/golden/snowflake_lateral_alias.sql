-- dialect: snowflake
-- namespace: snowflake://acme-prod
-- default-database: ANALYTICS
-- default-schema: PUBLIC
-- schema: ANALYTICS.PUBLIC.ITEMS(ID, PRICE, QTY)
CREATE TABLE line_totals AS SELECT id, price * qty AS gross, gross * 0.9 AS net FROM items;
