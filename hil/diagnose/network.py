"""Where a network figure loses its rate: the receive path of the end that receives, during one more run of
the check's tool (seed 004's triage, seed 000 §2.2's for USB Ethernet; docs/failures.md shows a real one).

One line each: the rate and loss of that run; the CPUs; where the kernel ran the receive path (NET_RX softirqs
per CPU) and the interface's RPS masks; its interrupt lines and their affinity; for UDP, the datagrams the
receiving socket dropped for a full buffer (/proc/net/snmp RcvbufErrors) against its size; each role's operating
point.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hil.diagnose import probes, steps
from hil.lab.board import shell
from hil.lab.network.path import NetEnd
from hil.lab.network.usbethernet import Peer
from hil.measure import board_state, iperf3, udp_two_step
from hil.verdict.measurement import CpuShare, Measurement

SOFTIRQS, SNMP, CONTROLLER = "/proc/softirqs", "/proc/net/snmp", "controller"
RMEM = ("rmem_default", "rmem_max")
HELD = 0.8  # the receive path is held on one core when it ran this share of the NET_RX softirqs there
SOCKET_SHARE = 0.5  # the loss is the socket's when its drops are this share of the datagrams the run lost


@dataclass(frozen=True)
class NetworkDiagnosis:
    """The check's transfer (`transfer`: one more run, a Measurement) and where to look: the end that receives
    (`receiver`, where a loss happens: its CPUs, its interface's receive path, RPS masks and interrupt lines,
    its UDP sockets, read in its namespace; the lab PC behind a USB Ethernet adapter on the interface holding
    its server's address) and the board's end (`board`), whose operating point is read beside the receiver's."""

    board: NetEnd
    receiver: NetEnd | Peer
    transfer: Callable[[], Measurement]

    def __call__(self, deadline: float, lines: list[str]) -> None:
        end = self.receiver if isinstance(self.receiver, NetEnd) else self.receiver.end()
        rps = shell.quote(f"/sys/class/net/{end.ifname}/queues") + "/rx-*/rps_cpus"
        files = [steps.PROC_STAT, steps.INTERRUPTS, SOFTIRQS, SNMP, rps]
        rmem = udp_two_step.receive_buffers(end.role)

        def snapshot(tag: str, commands: dict[str, str] | None = None) -> dict[str, str]:  # in end's namespace
            return board_state.parse(end.run(shell.cmd("sh", "-c", board_state.script(tag, files, commands))), tag)

        before = snapshot("before", {CONTROLLER: probes.interface_controller_script(end.ifname)})
        measurement = self.transfer()
        after = snapshot("after")
        lines.append(transfer_line(measurement))
        shares = steps.cpu_shares(before, after)
        lines.append(steps.cpu_line(shares))
        lines.append(receive_path_line(end.ifname, before, after, shares))
        lines += steps.interrupt_lines(probes.parse_controller(before[CONTROLLER]), before, after)
        if "loss" in measurement.values:
            udp = [probes.parse_snmp(side[SNMP]) for side in (before, after)]
            lines.append(socket_line(*udp, rmem, measurement.details.get("lost_packets", 0)))
        if time.monotonic() > deadline:
            lines.append("stopped at its time bound before the operating point")
            return
        lines += steps.operating_points([self.board.role, end.role])


def transfer_line(measurement: Measurement) -> str:
    loss = measurement.values.get("loss")
    lost = f", {loss.value:.1f}% lost" if loss is not None else ""
    return f"the transfer again: {iperf3.mbps(measurement):.1f} Mbit/s received{lost}"


def receive_path_line(
    ifname: str, before: Mapping[str, str], after: Mapping[str, str], shares: Mapping[str, CpuShare]
) -> str:
    """Where the NET_RX softirqs ran, the interface's RPS masks, and a receive path held on a core at its limit."""
    start, end = (probes.parse_softirqs(side[SOFTIRQS])["NET_RX"] for side in (before, after))
    counts = [b - a for a, b in zip(start, end, strict=True)]
    total = sum(counts)
    masks = {path.split("/")[-2]: text.strip() for path, text in after.items() if path.endswith("/rps_cpus")}
    rps = "off" if all(int(mask.replace(",", "") or "0", 16) == 0 for mask in masks.values()) else "on"
    shown = ", ".join(f"{queue} {mask}" for queue, mask in sorted(masks.items())) or "no rx queue"
    spread = ", ".join(f"cpu{i} {100 * count / total:.0f}%" for i, count in enumerate(counts) if count) if total else ""
    line = f"the receive path (NET_RX softirqs) ran on {spread or 'no CPU'}; RPS of {ifname}: {rps} ({shown})"
    held = max(range(len(counts)), key=counts.__getitem__, default=None)
    share = shares.get(f"cpu{held}") if held is not None and total else None
    if share is not None and counts[held] >= HELD * total and share.busy >= 90:
        return (
            f"{line}: it is held on cpu{held}, busy {share.busy:.0f}% (irq+softirq {share.irq_softirq:.0f}%); "
            "RPS (rps_cpus) or the interrupt's affinity can spread it"
        )
    return line


def socket_line(before: Mapping[str, int], after: Mapping[str, int], rmem: Mapping[str, str], lost: int) -> str:
    """The datagrams the receiving sockets dropped for a full buffer against those read and those the run lost
    (iperf3's count), and the buffer's size. Weighed against the loss, not the traffic: a starved socket on a
    slow sender drops few datagrams of many, and they are still all the loss there was."""
    dropped = after.get("RcvbufErrors", 0) - before.get("RcvbufErrors", 0)
    read = after.get("InDatagrams", 0) - before.get("InDatagrams", 0)
    sizes = ", ".join(f"{'net.core.' if not i else ''}{name} {rmem.get(name, '?')}" for i, name in enumerate(RMEM))
    line = f"the receiving sockets dropped {dropped} datagrams for a full buffer (RcvbufErrors), {read} were read"
    line += f" ({sizes}); the run lost {lost}"
    if dropped > 0 and dropped >= SOCKET_SHARE * lost:
        return f"{line}: the loss is in the receiving socket, not on the link"
    return f"{line}: the loss is not the socket's"
