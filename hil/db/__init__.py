"""hil's results database: every run, every result with its samples, in SQLite or PostgreSQL.

    engine = open_chosen(option, reports_dir)   # hil.db.engine: --hil-db / HIL_DB / reports/hil.db (upgraded)
    RunWriter(engine, info, Spool(path)).begin/add/finish  # hil.db.write: live, per result, spooled on failure
    write_run(engine, info, results)                       # a whole run (import, push)
    runs_of_build(engine, name), history(engine), runs_by_id(engine, ids)  # hil.db.read: StoredRun lists

Below hil.report's records (RunInfo, MetricResult), above nothing that needs a board.
"""
