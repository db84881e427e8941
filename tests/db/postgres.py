"""A throwaway PostgreSQL cluster of Debian's PostgreSQL 15: initdb and pg_ctl in a temporary folder, on a
free port of 127.0.0.1, stopped and removed afterwards. PostgreSQL refuses to run as root: as root the
cluster belongs to the `postgres` user (runuser)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")
USER, PASSWORD = "hil", "pw-'\"; DROP"  # a password the URL must quote, and no message may show


def available() -> bool:
    return (BIN / "pg_ctl").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync  # off in tests (a crash loses nothing of value), on for the benchmark's figures
        self.root = Path(tempfile.mkdtemp(prefix="hil-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            account = pwd.getpwnam("postgres")
            os.chown(self.root, account.pw_uid, account.pw_gid)

    def _run(self, *command: str) -> None:
        subprocess.run([*self._as, *command], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        password_file = self.root / "pw"
        password_file.write_text(PASSWORD + "\n")
        password_file.chmod(0o644)
        self._run(str(BIN / "initdb"), "-D", str(self.data), "-U", USER, "--pwfile", str(password_file),
                  "-A", "scram-sha-256", "-E", "UTF8", "--no-sync")  # fmt: skip
        self.start_again()

    def _options(self) -> str:
        fsync = "on" if self.fsync else "off"
        return f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync={fsync}"

    def start_again(self) -> None:
        log = str(self.root / "log")
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-o", self._options(), "-l", log, "-w", "start")

    def stop_command(self) -> list[str]:
        return [*self._as, str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"]

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(self.stop_command(), check=True, capture_output=True, timeout=120)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user=USER, password=PASSWORD, dbname="postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def url(self, database: str) -> str:
        from sqlalchemy.engine import URL

        url = URL.create("postgresql", USER, PASSWORD, "127.0.0.1", self.port, database)
        return url.render_as_string(hide_password=False)
