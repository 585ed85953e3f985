-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: shop
-- schema: shop.public.orders(id, customer_id, amount, status)
-- schema: shop.public.customers(id, name, country)
CREATE VIEW rpt.ranked AS
SELECT o.id,
       ROW_NUMBER() OVER (PARTITION BY o.customer_id ORDER BY o.amount DESC) AS rk,
       SUM(o.amount) OVER (PARTITION BY o.customer_id) AS customer_total,
       CASE WHEN o.status = 'paid' THEN o.amount ELSE 0 END AS paid_amount,
       COALESCE(c.name, 'unknown') AS customer,
       (SELECT MAX(amount) FROM orders) AS max_amount,
       md5(c.name) AS name_hash
FROM orders o LEFT JOIN customers c USING (id)
WHERE o.customer_id IN (SELECT id FROM customers WHERE country = 'NL');
