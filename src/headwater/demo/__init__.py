"""``headwater demo``: the HR payroll pipeline end to end in one command.

- :mod:`headwater.demo.data` generates the HR sample CSV files (deterministic, streamed);
- :mod:`headwater.demo.checks` finds Java and checks the port, with messages that say what to do;
- :mod:`headwater.demo.server` starts (or reaches) the Headwater server;
- :mod:`headwater.demo.jobs` runs the example PySpark jobs under ``headwater run``;
- :mod:`headwater.demo.jdbc` loads the employees into PostgreSQL for the JDBC (Glue-style) variant;
- :mod:`headwater.demo.runner` puts the steps together, showing progress with :mod:`headwater.demo.progress`.
"""
