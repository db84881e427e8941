"""The virtual lab behind a labgrid coordinator: places that a remote client uses like real lab boards.

    python -m hil.vlab.lab start --places 2     # prints LG_COORDINATOR=127.0.0.1:<port>
    python -m hil.vlab.lab status
    python -m hil.vlab.lab stop                 # leaves nothing running

`start` runs on loopback, in the background: `labgrid-coordinator`; hil's board service (hil.vlab.power: per
virtual board a `simplerest` power switch starting its QEMU and a TCP console that stays open like ser2net's);
`labgrid-exporter` serving each board's `NetworkSerialPort` and `NetworkPowerPort` in a resource group named
after it; and places `vboard-1` .. `vboard-N`, tagged `kind=vlab` and `board=vboard-<i>`, matching those groups.
A client drives a place with labgrid's NetworkPowerDriver and SerialDriver (hil/vlab/remote-env.yaml), as a real
board behind a PDU and ser2net. The run directory (`--run-dir`) holds the state (pids, ports), the generated
configuration and every process's log.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

from hil import services

EXPORTER = "hil-vlab"
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 15.0


def _tool(name: str) -> str:
    """labgrid's commands from the same installation as this Python."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else name


def _client(address: str, *args: str) -> str:
    command = [_tool("labgrid-client"), "-x", address, *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30.0, check=False)
    if result.returncode != 0:
        said = result.stderr.strip() or result.stdout.strip()
        raise services.ServiceError(f"labgrid-client {' '.join(args)}: {said}")
    return result.stdout


def exporter_config(boards: dict[str, int], power_port: int) -> dict:
    """The exporter's resources: per board, its console and its power switch, in a group named after it."""
    return {
        name: {
            "NetworkSerialPort": {"host": "127.0.0.1", "port": console_port, "protocol": "raw", "speed": 115200},
            "NetworkPowerPort": {
                "model": "simplerest",
                "host": f"http://127.0.0.1:{power_port}/power/{name}/{{value}}",
                "index": 0,
            },
        }
        for name, console_port in boards.items()
    }


def start(run_dir: Path, places: int, port: int | None = None) -> dict:
    """Start coordinator, board service and exporter, create the places; return the state written."""
    if places < 1:
        raise services.ServiceError("--places must be at least 1")
    state = services.read_state(run_dir)
    if state and any(services.alive(pid) for pid in state["pids"].values()):
        raise services.ServiceError(f"a lab is already running from {run_dir} (coordinator {state['coordinator']})")
    from hil.vlab.image import ensure_image

    image = ensure_image(log=lambda message: print(message, file=sys.stderr)).directory
    run_dir.mkdir(parents=True, exist_ok=True)
    coordinator_dir = run_dir / "coordinator"
    (coordinator_dir / "places.yaml").unlink(missing_ok=True)  # places are recreated below
    coordinator_dir.mkdir(exist_ok=True)
    (run_dir / "power.ready").unlink(missing_ok=True)
    port = port or services.free_port()
    address = f"127.0.0.1:{port}"
    names = [f"vboard-{index}" for index in range(1, places + 1)]
    boards = {name: services.free_port() for name in names}
    power_port = services.free_port()
    state = {"coordinator": address, "places": names, "power_port": power_port, "consoles": boards, "pids": {}}
    pids = state["pids"]
    try:
        pids["coordinator"] = services.spawn(
            [_tool("labgrid-coordinator"), "-l", address], run_dir, "coordinator.log", cwd=coordinator_dir
        )
        services.wait_for(
            "labgrid-coordinator", lambda: services.port_open(port), START_TIMEOUT_S, run_dir / "coordinator.log"
        )
        power_config = {"run_dir": str(run_dir), "image": str(image), "power_port": power_port, "boards": boards}
        (run_dir / "power.json").write_text(json.dumps(power_config, indent=2))
        pids["power"] = services.spawn([sys.executable, "-m", "hil.vlab.power", "power.json"], run_dir, "power.log")
        services.wait_for("board service", (run_dir / "power.ready").is_file, START_TIMEOUT_S, run_dir / "power.log")
        (run_dir / "exporter.yaml").write_text(yaml.safe_dump(exporter_config(boards, power_port)))
        pids["exporter"] = services.spawn(
            [_tool("labgrid-exporter"), "-c", address, "-n", EXPORTER, "--hostname", "127.0.0.1", "exporter.yaml"],
            run_dir,
            "exporter.log",
        )
        (run_dir / "state.json").write_text(json.dumps(state, indent=2))
        services.wait_for(
            "exporter resources",
            lambda: all(f"{EXPORTER}/{name}/" in _client(address, "resources") for name in names),
            START_TIMEOUT_S,
            run_dir / "exporter.log",
        )
        for name in names:
            _client(address, "-p", name, "create")
            _client(address, "-p", name, "set-tags", "kind=vlab", f"board={name}")
            _client(address, "-p", name, "add-match", f"{EXPORTER}/{name}/*")
    except BaseException:
        stop(run_dir, state)
        raise
    return state


def stop(run_dir: Path, state: dict | None = None) -> list[str]:
    """Stop every process of the lab (SIGTERM, SIGKILL after a grace period); returns what was stopped."""
    state = state or services.read_state(run_dir)
    if state is None:
        return []
    pids = state["pids"]  # clients of the coordinator first:
    processes = [(name, pids[name], None) for name in ("exporter", "power", "coordinator") if name in pids]
    return services.stop_recorded(run_dir, processes, STOP_TIMEOUT_S)


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog or "python -m hil.vlab.lab", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--run-dir", type=Path, default=services.default_run_dir("hil-vlab-lab"), help="state, configuration and logs"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    start_parser = commands.add_parser("start", help="start coordinator, exporter and N virtual places")
    start_parser.add_argument("--places", type=int, default=2, help="number of virtual boards (default 2)")
    start_parser.add_argument("--port", type=int, default=None, help="coordinator port (default: a free one)")
    commands.add_parser("stop", help="stop everything the lab started")
    commands.add_parser("status", help="print the coordinator address and the places, or exit 1")
    args = parser.parse_args(argv)
    run_dir = args.run_dir.resolve()
    try:
        if args.command == "start":
            state = start(run_dir, args.places, args.port)
            print(f"places {', '.join(state['places'])} (tags kind=vlab) on coordinator {state['coordinator']}")
            print(f"LG_COORDINATOR={state['coordinator']}")
        elif args.command == "stop":
            print(f"stopped: {', '.join(stop(run_dir)) or 'nothing was running'}")
        else:
            state = services.read_state(run_dir)
            if state is None or not all(services.alive(pid) for pid in state["pids"].values()):
                print(f"no lab running from {run_dir}")
                return 1
            print(f"places {', '.join(state['places'])} on coordinator {state['coordinator']}")
            print(f"LG_COORDINATOR={state['coordinator']}")
    except services.ServiceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
