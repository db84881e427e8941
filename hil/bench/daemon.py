"""The rehearsal bench's service: its boards (hil.bench.board), ser2net serving their UARTs, and the network
power switch (hil.bench.pdu), run in one background process that `hil bench start` spawns and `stop` ends.

Every process it starts (the boards' QEMUs, ser2net) dies with it, even when it is killed with SIGKILL (the
kernel's parent-death signal), so no board outlives its bench.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import signal
import subprocess
import threading
from pathlib import Path

from hil import services
from hil.bench.board import BenchBoard, _die_with_the_bench
from hil.bench.pdu import Outlet, PowerSwitch, serve

log = logging.getLogger("hil.bench")


def ser2net_config(boards: list[BenchBoard], ports: dict[str, int]) -> str:
    """ser2net's YAML: per board its UART, 115200 8N1, on a TCP port speaking RFC 2217 (labgrid's default
    NetworkSerialPort protocol), the newest client taking over from an old one."""
    entries = ["%YAML 1.1", "---"]
    for board in boards:
        entries += [
            f"connection: &{board.name.replace('-', '_')}",
            f"    accepter: telnet(rfc2217),tcp,127.0.0.1,{ports[board.name]}",
            "    enable: on",
            "    options:",
            "      kickolduser: true",
            f"    connector: serialdev,{board.uart},115200n81,local",
            "",
        ]
    return "\n".join(entries)


class Ser2net:
    """ser2net, restarted when it exits unless the bench took the serial server down (a fault to rehearse).

    Only the supervising thread (and the main thread, once) starts it: the parent-death signal follows the
    thread that forked, and an HTTP request's thread ends with the request."""

    def __init__(self, config: Path, log_file: Path) -> None:
        self.config, self.log_file = config, log_file
        self.enabled = True
        self.process: subprocess.Popen | None = None
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def start(self) -> None:
        binary = shutil.which("ser2net", path="/usr/sbin:/usr/bin:/sbin:/bin")
        if binary is None:
            raise RuntimeError("ser2net is missing on the lab PC: apt-get install ser2net")
        with self.lock, self.log_file.open("ab") as out:
            self.process = subprocess.Popen(
                [binary, "-n", "-d", "-c", str(self.config), "-P", str(self.config.with_suffix(".pid"))],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_the_bench,  # prctl must run in the child, before exec
            )

    def supervise(self) -> None:
        while not self.stopping.is_set():
            process = self.process
            if self.enabled and (process is None or process.poll() is not None):
                if process is not None:
                    log.warning("ser2net exited (%s): restarting it", process.returncode)
                self.start()
            self.stopping.wait(0.5)

    def set_enabled(self, request: dict) -> dict:
        self.enabled = enabled = bool(request["enabled"])
        if not enabled:
            self.stop()
        log.warning("serial server %s", "up" if enabled else "down (connections refused)")
        return {"serial": "up" if enabled else "down"}

    def stop(self) -> None:
        with self.lock:
            process, self.process = self.process, None
        services.terminate(process, 5)


def run(config: dict) -> None:
    run_dir = Path(config["run_dir"])
    boards = [
        BenchBoard(name, run_dir, Path(spec["sd_card"]), Path(config["uboot"]), spec.get("ssh_port"))
        for name, spec in config["boards"].items()
    ]
    serial = Ser2net(run_dir / "ser2net.yaml", run_dir / "ser2net.log")
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    server = None
    try:
        for board in boards:
            board.start()
        ports = {name: spec["serial_port"] for name, spec in config["boards"].items()}
        serial.config.write_text(ser2net_config(boards, ports))
        serial.start()
        threading.Thread(target=serial.supervise, name="ser2net", daemon=True).start()
        for port in ports.values():
            services.wait_for(f"ser2net on port {port}", lambda p=port: services.port_open(p), 30, serial.log_file)
        switch = PowerSwitch([Outlet(board.name, board.power) for board in boards])
        switch.controls["serial"] = serial.set_enabled
        server = serve(switch, config["pdu_port"])
        state = {
            "uarts": {board.name: board.uart for board in boards},
            "qemu": {board.name: board.process.pid for board in boards if board.process is not None},
        }
        (run_dir / "daemon.json").write_text(json.dumps(state, indent=2))
        (run_dir / "ready").write_text("ready\n")
        log.info("bench ready: %s", ", ".join(board.name for board in boards))
        done.wait()
    finally:
        if server is not None:
            server.shutdown()
        serial.stopping.set()
        serial.stop()
        for board in boards:
            board.remove()
        log.info("bench stopped")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m hil.bench.daemon", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path, help="bench.json written by `hil bench start`")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    run(json.loads(args.config.read_text()))


if __name__ == "__main__":
    main()
