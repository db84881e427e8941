"""A run's records as they are kept: results.json (store), its atomic writes and strict JSON (files), and the exit
status a run ends with (exitcodes). The results database (hil.db) and the report writers (hil.report) both stand
on this package; it imports neither. Plain modules: no pytest.
"""
