-- dialect: tsql
-- namespace: sqlserver://sql01:1433
-- default-database: sales
-- schema: sales.dbo.orders(id, region, amount)
CREATE PROCEDURE dbo.refresh_regions AS
BEGIN
  SELECT region, amount INTO #big FROM dbo.orders WHERE amount > 1000;
  INSERT INTO dbo.region_totals (region, total) SELECT region, SUM(amount) FROM #big GROUP BY region;
END;
