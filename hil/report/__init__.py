"""Results store, HTML/JUnit/terminal rendering, plots, baselines and trends."""
