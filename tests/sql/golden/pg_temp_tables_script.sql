-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: shop
-- schema: shop.public.orders(id, customer_id, amount)
-- schema: shop.public.customers(id, name)
CREATE TEMP TABLE stage AS
  SELECT o.id, o.amount, c.name FROM orders o JOIN customers c ON c.id = o.customer_id;
CREATE TABLE rpt.by_name (name text, total numeric);
INSERT INTO rpt.by_name SELECT name, SUM(amount) FROM stage GROUP BY name;
SELECT * FROM rpt.by_name;
DROP TABLE stage;
