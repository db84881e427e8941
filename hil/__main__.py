"""`python -m hil`: the `hil` command (hil.cli)."""

from hil.cli import main

raise SystemExit(main())
