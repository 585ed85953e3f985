-- dialect: redshift
-- namespace: redshift://analytics.eu-west-1:5439
-- default-database: dev
-- schema: dev.public.sales(sale_id, seller_id, qty, price)
COPY sales FROM 's3://landing/sales/' IAM_ROLE 'arn:aws:iam::1:role/r' CSV;
SELECT seller_id, SUM(qty * price) AS revenue INTO report.seller_revenue FROM sales GROUP BY seller_id;
UNLOAD ('select seller_id, revenue from report.seller_revenue where revenue > 100') TO 's3://exports/revenue/' IAM_ROLE 'arn:aws:iam::1:role/r';
