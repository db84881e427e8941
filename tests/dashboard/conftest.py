"""`hil serve` started as a user starts it, on a free loopback port, over a results database of the test's."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


class Server:
    def __init__(self, reports: Path, db_url: str | None = None) -> None:
        with socket.socket() as probe:  # a free port: the kernel picks, the server takes it right after
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "hil", "serve", "--hil-reports", str(reports), "--port", str(self.port)]
        command += ["--hil-db", db_url] if db_url else []
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"hil serve did not answer on {self.url}: {self.process.stdout.read()}")
                time.sleep(0.2)

    def get(self, path: str) -> tuple[int, str, dict[str, str]]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), dict(error.headers)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def serve() -> Iterator[type[Server]]:
    """Start servers over a reports directory; each is stopped at the test's end."""
    started: list[Server] = []

    def start(reports: Path) -> Server:
        server = Server(reports)
        started.append(server)
        return server

    yield start  # type: ignore[misc]
    for server in started:
        server.stop()
