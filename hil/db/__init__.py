"""hil's results database: every run, every result with its samples, in SQLite or PostgreSQL.

engine opens it, write stores runs (live per result, or whole), read reads them back as StoredRuns.
Below hil.report's records (RunInfo, MetricResult), above nothing that needs a board.
"""
