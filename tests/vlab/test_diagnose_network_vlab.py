"""The network diagnosis on the virtual lab: the receiving socket starved on purpose
(tests/vlab/small_socket_buffer_fault.py keeps net.core.rmem_default at 4096 bytes), the UDP loss FAILs its
band, and the diagnosis that runs after the verdict names the receiving socket, with the receive path of the
receiving (host's) interface, its CPUs and interrupt beside it, in results.json. The loss band is made
tight for the test (0.01%: one datagram lost of a run's thousands fails it): the starved socket's loss
depends on the rate iperf3's first run settles on, which follows the machine (medians seen: 3.1% on a faster
machine, against the pair's own band of 11.8%; 0.42% at 6.9 Mbit/s on a loaded one, against 0.5%), and the
diagnosis, not the band, is what is tested here."""

from __future__ import annotations

import json
import re

import yaml

from hil.vlab import ENV_FILE
from tests.vlab.small_socket_buffer_fault import RMEM_DEFAULT
from tests.vlab.test_suite_run import REPO, run_pytest

REPO_BOARDS = REPO / "boards.yaml"


def test_a_starved_receive_buffer_is_named_by_the_diagnosis_of_the_lossy_udp(tmp_path, vlab_subprocess_env):
    inventory = yaml.safe_load(REPO_BOARDS.read_text())
    # On the real clock, where the starved socket is what loses: on the virtual clock (one vCPU) both ends share
    # one CPU's time, the socket dropped 5 of 2941 datagrams and the diagnosis rightly said "not the socket's".
    pair = inventory["pairs"]["vlab-ss"] | {"env": str(ENV_FILE), "clock": "real"}
    pair["metrics"]["usb.net.udp.loss"] |= {"max": 0.01, "params": {}}
    boards = tmp_path / "boards.yaml"
    boards.write_text(yaml.safe_dump({"defaults": inventory["defaults"], "pairs": {"vlab-ss": pair}}))
    out = tmp_path / "reports"
    selection = ["testcases/usb_device/test_usb_net.py", "-k", "udp and ecm and tx", "--matrix", "full"]
    selection += ["--boards", str(boards)]
    selection += ["--board", "vlab-ss", "--samples", "2", "-p", "tests.vlab.small_socket_buffer_fault"]
    proc = run_pytest(selection, vlab_subprocess_env, out)
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    results = {result["metric"]: result for result in json.loads((out / "results.json").read_text())["results"]}
    loss = results["usb.net.udp.loss"]
    assert loss["verdict"] in ("FAIL", "UNSTABLE") and loss["side"] == "high", loss["reason"]
    lines = loss["facts"]["diagnosis"]
    socket = [line for line in lines if "(RcvbufErrors)" in line]
    assert socket, lines
    assert f"(net.core.rmem_default {RMEM_DEFAULT}, " in socket[0]
    assert socket[0].endswith("the loss is in the receiving socket, not on the link")
    assert lines[0].startswith("the transfer again: ") and "% lost" in lines[0]
    # tx: the gadget sends, the host's end receives: its interface (in its namespace) is the one read
    ends = re.fullmatch(r"device (\S+) \S+, host (\S+) \S+", loss["facts"].get("usb_net", ""))
    assert ends and ends[1] != ends[2], loss["facts"]
    [path] = [line for line in lines if line.startswith("the receive path (NET_RX softirqs) ran on cpu")]
    assert f"; RPS of {ends[2]}: " in path, lines
    assert any(line.startswith("CPUs during the transfer: cpu0 busy ") for line in lines), lines
    assert any(line.startswith("operating point of device: no CPU offline") for line in lines), lines
    assert lines[-1].startswith("diagnosed in ")
