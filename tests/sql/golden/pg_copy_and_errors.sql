-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: shop
-- schema: shop.public.orders(id, amount)
COPY orders FROM '/data/in/orders.csv' WITH (FORMAT csv);
SELEC broken FROM;
COPY (SELECT id, amount * 100 AS cents FROM orders) TO '/data/out/cents.csv';
INSERT INTO unknown_target SELECT x, y FROM nowhere;
