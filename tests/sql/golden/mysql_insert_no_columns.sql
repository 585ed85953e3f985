-- dialect: mysql
-- namespace: mysql://db:3306
-- default-database: shop
-- schema: shop.orders(id, amount, customer_id)
-- schema: shop.daily(day_id, total)
-- schema: crm.customers(id, name)
INSERT INTO daily SELECT `id`, amount * 2 FROM orders;
CREATE TABLE crm.customer_orders AS
SELECT c.name, o.amount FROM crm.customers c JOIN orders o ON o.customer_id = c.id;
UPDATE daily d JOIN orders o ON o.id = d.day_id SET d.total = o.amount;
