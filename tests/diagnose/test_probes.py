"""The diagnosis' probes on real output (tests/data/diagnose, capture.sh there), and on output that is not theirs."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.diagnose import probes
from hil.measure import board_state
from hil.verdict.errors import ParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "diagnose"


def captured(name: str) -> str:
    return (DATA / f"{name}.txt").read_text()


def test_block_stat_reads_requests_and_sectors_per_direction():
    text = captured("vda-stat")
    fields = [int(word) for word in text.split()]
    stat = probes.parse_block_stat(text)
    assert (stat.read_ios, stat.read_sectors, stat.write_ios, stat.write_sectors) == tuple(
        fields[i] for i in (0, 2, 4, 6)
    )


def test_the_merged_request_size_is_sectors_over_requests_between_two_snapshots():
    before = probes.parse_block_stat(captured("vda-stat"))
    after = probes.BlockStat(
        before.read_ios + 32, before.read_sectors + 32 * 256, before.write_ios, before.write_sectors
    )
    assert after.kib_per_request(before, "read") == 128.0
    assert after.kib_per_request(before, "write") is None  # no write request between them


def test_interrupts_give_per_cpu_counts_and_the_description():
    text = captured("interrupts")
    table = probes.parse_interrupts(text)
    cpus = len(text.splitlines()[0].split())
    first = text.splitlines()[1]
    irq = first.split(":")[0].strip()
    assert len(table[irq].counts) == cpus
    assert table[irq].counts == tuple(int(word) for word in first.split()[1 : 1 + cpus])
    assert first.split()[-1] in table[irq].name
    assert "LOC" in table  # named lines too (local timer)


def test_interrupt_deltas_per_cpu():
    before = probes.parse_interrupts(captured("interrupts"))
    irq = next(iter(before))
    after = dict(before)
    after[irq] = probes.InterruptLine(tuple(count + 5 for count in before[irq].counts), before[irq].name)
    deltas = probes.interrupt_deltas(before, after)
    assert deltas[irq] == (5,) * len(before[irq].counts)
    assert all(sum(delta) == 0 for name, delta in deltas.items() if name != irq)


def test_the_controller_of_a_disk_with_its_interrupts_and_affinity():
    controller = probes.parse_controller(captured("controller-vda"))
    assert controller.path.startswith("/sys/devices/")
    assert controller.irqs and all(irq.isdigit() for irq in controller.irqs)
    interrupts = probes.parse_interrupts(captured("interrupts"))
    assert set(controller.irqs) <= set(interrupts)  # the lines it names are the machine's


def test_a_snapshot_gives_each_file_under_its_tag_and_path_with_a_glob_expanded():
    sections = board_state.parse(captured("snapshot-lo"), "before")
    assert set(sections) == {
        "/proc/stat",
        "/proc/interrupts",
        "/proc/softirqs",
        "/sys/class/net/lo/queues/rx-0/rps_cpus",
    }
    assert sections["/proc/stat"].startswith("cpu ")
    assert probes.parse_interrupts(sections["/proc/interrupts"])
    assert int(sections["/sys/class/net/lo/queues/rx-0/rps_cpus"], 16) == 0  # RPS off
    with pytest.raises(ParseError):  # a tag it does not hold
        board_state.parse(captured("snapshot-lo"), "after")


def test_softirqs_give_the_receive_path_per_cpu():
    text = captured("softirqs")
    net_rx = probes.parse_softirqs(text)["NET_RX"]
    line = next(line for line in text.splitlines() if line.strip().startswith("NET_RX:"))
    assert net_rx == tuple(int(word) for word in line.split()[1:])
    assert len(net_rx) == len(text.splitlines()[0].split())


def test_snmp_gives_the_udp_counters_by_name():
    udp = probes.parse_snmp(captured("snmp"))
    header, values = (line.split()[1:] for line in captured("snmp").splitlines() if line.startswith("Udp:"))
    assert udp == dict(zip(header, map(int, values), strict=True))
    assert "RcvbufErrors" in udp and "InDatagrams" in udp


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (probes.parse_block_stat, "1 2 3"),
        (probes.parse_block_stat, "cat: /sys/block/sdz/stat: No such file or directory"),
        (probes.parse_interrupts, "sh: 1: cannot open /proc/interrupts: No such file"),
        (probes.parse_controller, "readlink: missing operand"),
        (lambda text: board_state.parse(text, "before"), "sh: 1: cat: not found"),
        (probes.parse_softirqs, "cat: /proc/softirqs: No such file or directory"),
        (probes.parse_snmp, "Udp: InDatagrams NoPorts\nUdp: 12"),
    ],
)
def test_output_that_is_not_the_probes_is_a_parse_error_with_the_raw_text(parse, text):
    with pytest.raises(ParseError) as error:
        parse(text)
    assert error.value.raw_output == text
