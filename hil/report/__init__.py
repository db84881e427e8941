"""HTML/JUnit/terminal rendering, plots, trends and the release gate's command.

Plain modules (no pytest): summary (formatting), html (fragments), plots (matplotlib, Agg), trend, compare,
junit (failure -> error relabelling), testing (hand-made results). The records they render (results.json, its
files, exit statuses) are hil.records.
pytest-facing: outcome (raise_for_verdict), collect (attach), pytest_report (the plugin).

Nothing is imported here, so importing a plain module never drags pytest in.
"""
