"""`hil serve`: the results database as a read-only web dashboard.

    hil serve                          # http://127.0.0.1:8030/ over reports/hil.db
    hil serve --hil-db URL --port 9000  # a shared lab's PostgreSQL

Pages: the build x board matrix (each cell the build's gate on that board), a metric's history with its
change points, a candidate build's gate against a reference, each run with its samples and its report.
Binds 127.0.0.1 unless told otherwise (--host): it has no login. Exit 4 when the database cannot be opened.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import uvicorn

from hil.dashboard.app import create_app
from hil.db.engine import DatabaseError, add_options, connect
from hil.records.exitcodes import HilExit

DEFAULT_PORT = 8030


def main(argv: Sequence[str] | None = None, *, prog: str = "hil serve") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    add_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default: {DEFAULT_PORT}")
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port {args.port}: a TCP port is 1 to 65535")
    try:
        engine = connect(args, create=False)  # a dashboard only reads: no empty database left behind
    except DatabaseError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return HilExit.USAGE_ERROR
    print(f"{prog}: http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(create_app(engine, args.hil_reports), host=args.host, port=args.port, log_level="warning")
    return HilExit.OK
