"""The virtual boards' power switch and serial server: what a PDU and ser2net are to a real lab.

One process (`python -m hil.vlab.lab start` runs it) serves every virtual board of the lab: an HTTP power switch
in the form of labgrid's `simplerest` backend (`GET /power/<board>/1` starts its QEMU, `/0` stops it, with a bound,
`/power/<board>` answers 1 or 0), and per board a TCP console that stays open whether the board is on or off, like
ser2net on a UART (labgrid's `NetworkSerialPort`, protocol `raw`). QEMU's serial port connects to a Unix socket
of this process; while the board is off the line is silent and input is dropped. A new TCP client replaces the
previous one (a client that died without closing must not lock the console).
"""

from __future__ import annotations

import argparse
import json
import logging
import selectors
import signal
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from hil import services
from hil.vlab.kernel import direct_boot

log = logging.getLogger("hil.vlab.power")
QUIT_TIMEOUT_S = 5.0


def qemu_command(name: str, image: Path, console_socket: Path) -> list[str]:
    """The virtual board `name` as hil/vlab/env.yaml describes it, its serial port on `console_socket`; named as
    the lab's emulator: a run on this lab's places never counts it as the PC's foreign load."""
    return [
        "qemu-system-x86_64",
        *("-name", services.emulator_name(name), "-accel", "tcg,thread=multi", "-smp", "2"),
        *("-machine", "q35", "-cpu", "max", "-m", "2048M"),
        *("-kernel", str(direct_boot(image / "vmlinuz")), "-initrd", str(image / "initramfs.cpio")),
        *("-append", "console=ttyS0 loglevel=3 panic=-1", "-nic", "none", "-no-reboot"),
        *("-display", "none", "-monitor", "none"),
        *("-chardev", f"socket,id=console,path={console_socket}", "-serial", "chardev:console"),
    ]


@dataclass
class VirtualBoard:
    name: str
    console_port: int
    run_dir: Path
    image: Path
    process: subprocess.Popen | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def console_socket(self) -> Path:
        return self.run_dir / f"{self.name}.console"

    def is_on(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def power(self, on: bool) -> None:
        with self.lock:
            if on and not self.is_on():
                with (self.run_dir / f"{self.name}.qemu.log").open("ab") as logfile:
                    self.process = subprocess.Popen(
                        qemu_command(self.name, self.image, self.console_socket),
                        stdin=subprocess.DEVNULL,
                        stdout=logfile,
                        stderr=subprocess.STDOUT,
                    )
                log.info("%s: power on (QEMU pid %d)", self.name, self.process.pid)
            elif not on:
                process, self.process = self.process, None
                if services.terminate(process, QUIT_TIMEOUT_S):
                    log.info("%s: power off", self.name)


class ConsoleRelay(threading.Thread):
    """Relay bytes between one TCP client and the board's QEMU serial socket (either may be absent)."""

    def __init__(self, board: VirtualBoard) -> None:
        super().__init__(name=f"console-{board.name}", daemon=True)
        self.board = board
        self.selector = selectors.DefaultSelector()
        self.tcp_listener = socket.create_server(("127.0.0.1", board.console_port))
        board.console_socket.unlink(missing_ok=True)
        self.unix_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix_listener.bind(str(board.console_socket))
        self.unix_listener.listen(1)
        self.ends: dict[str, socket.socket | None] = {"client": None, "qemu": None}
        self.selector.register(self.tcp_listener, selectors.EVENT_READ, "accept-client")
        self.selector.register(self.unix_listener, selectors.EVENT_READ, "accept-qemu")

    def _replace(self, end: str, conn: socket.socket | None) -> None:
        old = self.ends[end]
        if old is not None:
            self.selector.unregister(old)
            old.close()
        self.ends[end] = conn
        if conn is not None:
            conn.settimeout(5.0)  # a peer that stops reading must not stall the other direction for good
            self.selector.register(conn, selectors.EVENT_READ, end)

    def run(self) -> None:
        while True:
            for key, _ in self.selector.select():
                what = key.data
                if what == "accept-client":
                    self._replace("client", self.tcp_listener.accept()[0])
                elif what == "accept-qemu":
                    self._replace("qemu", self.unix_listener.accept()[0])
                else:
                    self._forward(what)

    def _forward(self, source: str) -> None:
        conn = self.ends[source]
        if conn is None:
            return
        try:
            data = conn.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._replace(source, None)
            return
        sink = self.ends["qemu" if source == "client" else "client"]
        if sink is None:
            return  # nobody on the other end: a serial line drops it
        try:
            sink.sendall(data)
        except OSError:
            self._replace("qemu" if source == "client" else "client", None)


def make_handler(boards: dict[str, VirtualBoard]) -> type[BaseHTTPRequestHandler]:
    class PowerHandler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = [part for part in self.path.split("/") if part]
            if len(parts) not in (2, 3) or parts[0] != "power" or parts[1] not in boards:
                self._answer(404, f"unknown path {self.path}; boards: {', '.join(boards)}\n")
                return
            board = boards[parts[1]]
            if len(parts) == 3:
                if parts[2] not in ("0", "1"):
                    self._answer(400, "power value must be 0 or 1\n")
                    return
                try:
                    board.power(parts[2] == "1")
                except OSError as exc:
                    self._answer(500, f"{board.name}: cannot start QEMU: {exc}\n")
                    return
            self._answer(200, "1" if board.is_on() else "0")

        def _answer(self, status: int, text: str) -> None:
            body = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            log.info("%s", format % args)

    return PowerHandler


def serve(config: dict[str, Any]) -> None:
    run_dir, image = Path(config["run_dir"]), Path(config["image"])
    boards = {name: VirtualBoard(name, port, run_dir, image) for name, port in config["boards"].items()}
    for board in boards.values():
        ConsoleRelay(board).start()
    server = ThreadingHTTPServer(("127.0.0.1", config["power_port"]), make_handler(boards))

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    (run_dir / "power.ready").write_text("ready\n")
    try:
        server.serve_forever()
    finally:
        for board in boards.values():
            board.power(False)  # nothing survives the service: no orphaned QEMU


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m hil.vlab.power", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path, help="JSON: run_dir, image, power_port, boards {name: console port}")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    serve(json.loads(args.config.read_text()))


if __name__ == "__main__":
    main()
