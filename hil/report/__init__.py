"""HTML/JUnit/terminal rendering, plots, trends and the release gate's command.

pytest-facing: outcome, collect and pytest_report (the plugin); every other module is plain (no pytest), and
nothing is imported here, so importing a plain module never drags pytest in.
"""
