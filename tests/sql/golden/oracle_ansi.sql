-- dialect: oracle
-- namespace: oracle://ora:1521
-- default-database: ORCL
-- default-schema: HR
-- schema: ORCL.HR.EMP(EMPNO, ENAME, SAL, DEPTNO)
CREATE TABLE dept_pay AS SELECT deptno, NVL(SUM(sal), 0) AS pay FROM emp GROUP BY deptno;
