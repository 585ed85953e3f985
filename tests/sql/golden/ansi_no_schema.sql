-- dialect: ansi
-- namespace: postgres://warehouse:5432
-- default-database: shop
INSERT INTO target SELECT * FROM a JOIN b ON a.id = b.id;
INSERT INTO target2 SELECT name, qty FROM a JOIN b ON a.id = b.a_id;
