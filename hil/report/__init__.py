"""Results store, HTML/JUnit/terminal rendering, plots and trends.

Plain modules (no pytest): files (atomic writes, strict JSON), store (results.json),
summary (formatting), html (fragments), plots (matplotlib, Agg), trend, junit
(failure -> error relabelling), testing (hand-made results).
pytest-facing: outcome (raise_for_verdict), collect (attach), pytest_report (the plugin).

Nothing is imported here, so importing a plain module never drags pytest in.
"""
