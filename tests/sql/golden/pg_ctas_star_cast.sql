-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: shop
-- schema: shop.public.orders(id, customer_id, amount, status)
CREATE TABLE rpt.orders_copy AS SELECT * FROM orders;
CREATE TABLE rpt.amounts AS SELECT id, amount::numeric(12,2) AS amount, "Status" AS quoted FROM public.ORDERS;
