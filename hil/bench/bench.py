"""The rehearsal bench: arm64 boards reached only through what a lab has (a network power switch, a serial
server, SSH over Ethernet), for rehearsing the real-board path without hardware.

    eval "$(hil bench start)"      # builds the SD card if needed, starts the bench, exports LG_HIL_BENCH
    hil bench status
    hil bench fault pdu http500    # rehearse a fault: pdu {none,http500,silent}, relay OUTLET, serial {up,down}
    hil bench stop                 # stops everything it started

Two boards (BOARDS), each on an outlet of the power switch (a Digital Loggers controller's REST API) and a port
of the serial server (RFC 2217): `rboard`, an EVB on the lab network (SSH), and `rboard-serial`, a board whose
only link is its UART. examples/rehearsal-env.yaml is the labgrid environment of both, with labgrid's own
resources and drivers only; it finds the bench's SSH key in the run directory `start` exports as LG_HIL_BENCH.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from hil import services
from hil.errors import HilError

START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 15.0
PDU_PORT = 18380
BOARDS = {
    "rboard": {"outlet": 0, "serial_port": 18301, "ssh_port": 18322},
    "rboard-serial": {"outlet": 1, "serial_port": 18302, "ssh_port": None},
}
PDU_USER, PDU_PASSWORD = "admin", "1234"


def running(run_dir: Path) -> dict | None:
    """The state of the bench running from run_dir, or None."""
    state = services.read_state(run_dir)
    return state if state is not None and services.alive(state["pid"], state.get("start_time")) else None


def start(run_dir: Path) -> dict:
    """Build (or reuse) the SD card, give each board its own copy, start the service; return the state."""
    if running(run_dir) is not None:
        raise services.ServiceError(f"a bench is already running from {run_dir} (`hil bench stop` first)")
    stop(run_dir)  # what a killed bench left (by its record)
    ports = [PDU_PORT, *(spec[kind] for kind in ("serial_port", "ssh_port") for spec in BOARDS.values())]
    for port in filter(None, ports):
        if services.port_open(port):
            raise services.ServiceError(f"port {port} of this PC is taken: another bench or program holds it")
    from hil.bench.image import ensure_image

    image = ensure_image(log=lambda message: print(message, file=sys.stderr))
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "ready").unlink(missing_ok=True)
    ssh = run_dir / "ssh"
    ssh.mkdir(mode=0o700, exist_ok=True)
    if not (ssh / "id_ed25519").is_file():
        key = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hil-bench", "-f", str(ssh / "id_ed25519")]
        subprocess.run(key, check=True)
    boards = {}
    for name, spec in BOARDS.items():
        card = run_dir / f"{name}-sd.img"
        subprocess.run(["cp", "--sparse=always", str(image.sd_card), str(card)], check=True)  # a fresh card
        boards[name] = {**spec, "sd_card": str(card)}
    config = {"run_dir": str(run_dir), "uboot": str(image.uboot), "pdu_port": PDU_PORT, "boards": boards}
    (run_dir / "bench.json").write_text(json.dumps(config, indent=2))
    pid = services.spawn([sys.executable, "-m", "hil.bench.daemon", "bench.json"], run_dir, "bench.log")
    state = {"pid": pid, "start_time": services.started(pid), "run_dir": str(run_dir), "image": str(image.directory)}
    (run_dir / "state.json").write_text(json.dumps(state, indent=2))
    try:
        services.wait_for(
            "the bench",
            lambda: (run_dir / "ready").is_file() or not services.alive(pid),
            START_TIMEOUT_S,
            run_dir / "bench.log",
        )
        if not services.alive(pid):
            raise services.ServiceError(f"the bench service exited: {_tail(run_dir / 'bench.log')}")
    except BaseException:
        stop(run_dir)
        raise
    daemon = json.loads((run_dir / "daemon.json").read_text())
    state["qemu"] = {name: (qpid, services.started(qpid)) for name, qpid in daemon["qemu"].items()}
    state |= {"uarts": daemon["uarts"], "uboot_version": image.uboot_version, "kernel_version": image.kernel_version}
    (run_dir / "state.json").write_text(json.dumps(state, indent=2))
    return state


def _tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.is_file() else "(no log)"


def stop(run_dir: Path) -> list[str]:
    """Stop the service and any board its state recorded (a bench killed outright leaves its boards' QEMUs
    only if the kernel's parent-death signal did not reach them); returns what was stopped."""
    state = services.read_state(run_dir)
    if state is None:
        return []
    boards = [(f"board {name}", pid, start) for name, (pid, start) in state.get("qemu", {}).items()]
    return services.stop_recorded(
        run_dir, [("service", state["pid"], state.get("start_time")), *boards], STOP_TIMEOUT_S
    )


def control(path: str, request: dict, *, timeout: float = 10.0) -> dict:
    """POST to the bench's control path on its power switch (faults, the serial server)."""
    body = json.dumps(request).encode()
    call = urllib.request.Request(f"http://127.0.0.1:{PDU_PORT}/hil/{path}", data=body, method="POST")
    try:
        with urllib.request.urlopen(call, timeout=timeout) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        raise services.ServiceError(f"the bench refused {path} {request}: {exc.read().decode().strip()}") from exc
    except OSError as exc:
        raise services.ServiceError(f"the bench's power switch does not answer on port {PDU_PORT}: {exc}") from exc


def fault(kind: str, value: str) -> dict:
    if kind == "pdu":
        return control("fault", {"fault": value})
    if kind == "relay":
        return control("fault", {"fault": "dead-relay", "outlets": [int(value)]})
    if kind == "serial":
        if value not in ("up", "down"):
            raise services.ServiceError("serial takes up or down")
        answer = control("serial", {"enabled": value == "up"})
        if value == "up":
            for port in (spec["serial_port"] for spec in BOARDS.values()):
                services.wait_for(f"serial port {port}", lambda p=port: services.port_open(p), 30, Path())
        return answer
    raise services.ServiceError(f"unknown fault kind {kind!r}: pdu, relay or serial")


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog or "python -m hil.bench",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "--run-dir", type=Path, default=services.default_run_dir("hil-bench"), help="state, SD cards, keys and logs"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("start", help="start the bench; prints `export LG_HIL_BENCH=...` (use with eval)")
    commands.add_parser("stop", help="stop everything the bench started")
    commands.add_parser("status", help="the boards and their addresses, or exit 1 when no bench runs")
    fault_parser = commands.add_parser(
        "fault", help="rehearse a fault: pdu none|http500|silent, relay N, serial up|down"
    )
    fault_parser.add_argument("kind", choices=["pdu", "relay", "serial"])
    fault_parser.add_argument("value")
    args = parser.parse_args(argv)
    run_dir = args.run_dir.resolve()
    try:
        if args.command == "start":
            state = start(run_dir)
            print(_describe(state), file=sys.stderr)
            print(f"export LG_HIL_BENCH={shlex.quote(str(run_dir))}")
        elif args.command == "stop":
            print(f"stopped: {', '.join(stop(run_dir)) or 'nothing was running'}")
        elif args.command == "status":
            state = running(run_dir)
            if state is None:
                print(f"no bench running from {run_dir}")
                return 1
            print(_describe(state))
            print(f"export LG_HIL_BENCH={shlex.quote(str(run_dir))}")
        else:
            print(json.dumps(fault(args.kind, args.value)))
    except (services.ServiceError, HilError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _describe(state: dict) -> str:
    versions = f"{state.get('uboot_version')}, Linux {state.get('kernel_version')}"
    lines = [f"rehearsal bench running from {state['run_dir']} ({versions})"]
    lines.append(f"  power switch: digitalloggers_restapi http://{PDU_USER}:{PDU_PASSWORD}@127.0.0.1:{PDU_PORT}")
    for name, spec in BOARDS.items():
        ssh = f"ssh 127.0.0.1:{spec['ssh_port']}" if spec["ssh_port"] else "no network"
        lines.append(f"  {name}: outlet {spec['outlet']}, serial 127.0.0.1:{spec['serial_port']} (rfc2217), {ssh}")
    return "\n".join(lines)
