-- dialect: postgres
-- namespace: postgres://warehouse:5432
-- default-database: hr
-- schema: hr.public.employees(id, manager_id, name)
-- schema: hr.public.contractors(id, name)
WITH RECURSIVE chain AS (
  SELECT id, manager_id, 1 AS depth FROM employees WHERE manager_id IS NULL
  UNION ALL
  SELECT e.id, e.manager_id, chain.depth + 1 FROM employees e JOIN chain ON e.manager_id = chain.id
)
INSERT INTO org_depth (id, depth) SELECT id, depth FROM chain;
INSERT INTO people (id, name)
SELECT id, name FROM employees UNION SELECT id, name FROM contractors
EXCEPT SELECT id, name FROM contractors WHERE name = 'x';
