"""`hil calibrate`: bands proposed from repeated runs (cli), by a stated rule (bands), written into boards.yaml
as an edit of its text (edit)."""
