-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: shop
-- schema: shop.public.totals(customer_id, total, updated)
-- schema: shop.public.payments(customer_id, amount, paid_at)
MERGE INTO totals t
USING (SELECT customer_id, SUM(amount) AS amount, MAX(paid_at) AS last FROM payments GROUP BY customer_id) p
ON t.customer_id = p.customer_id
WHEN MATCHED THEN UPDATE SET total = t.total + p.amount, updated = p.last
WHEN NOT MATCHED THEN INSERT (customer_id, total, updated) VALUES (p.customer_id, p.amount, p.last);
UPDATE totals SET total = p.amount FROM payments p WHERE p.customer_id = totals.customer_id AND p.amount > 0;
