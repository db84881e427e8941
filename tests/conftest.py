"""hil's own tests: every run they make goes to a database of their own, never to a lab's (HIL_DB)."""

import os

os.environ.pop("HIL_DB", None)
