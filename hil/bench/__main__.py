"""`python -m hil.bench`: the rehearsal bench (hil.bench.bench), as `hil bench`."""

from hil.bench.bench import main

raise SystemExit(main())
