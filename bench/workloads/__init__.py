"""The workloads of ``bench/capture_overhead.py``: data generators and the PySpark scripts it runs."""
