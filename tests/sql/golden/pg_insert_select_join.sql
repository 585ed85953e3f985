-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: shop
-- schema: shop.public.orders(id, customer_id, amount, status, created_at)
-- schema: shop.public.customers(id, name, country)
-- schema: shop.rpt.country_sales(country, total, orders)
INSERT INTO rpt.country_sales
SELECT c.country, SUM(o.amount), COUNT(*)
FROM orders o JOIN customers c ON c.id = o.customer_id
WHERE o.status = 'paid'
GROUP BY c.country
ORDER BY 2 DESC;
