"""A cellular modem's data interface in loopback, as seed 004 measures it: the board's iperf 2 client sends UDP
to the modem at `modem.rate_mbps` per stream, the modem sends each datagram back `modem.replication` times,
and the board's iperf 2 server reads the rate, jitter, loss and out-of-order datagrams (per datagram sent: each
of the modem's copies after the first is one); the board's busiest core says where the rate stops. One stream,
and the seed's ten (`-P 10`) in the full suite. The seed's tuning is the pair's `tuning:`.
A FAIL or REGRESSION is diagnosed: the board's receive path and its sockets during one more run
(hil.diagnose.network).
"""

import pytest

import hil
from hil.catalogue.modem import ModemSettings
from hil.diagnose.network import NetworkDiagnosis
from hil.lab.network.modem import modem_link
from hil.measure import iperf2, netpath

METRICS = [
    "modem.loopback.throughput",
    "modem.loopback.jitter",
    "modem.loopback.loss",
    "modem.loopback.out_of_order",
    "modem.loopback.cpu_busiest",
]
pytestmark = [
    pytest.mark.hil_metrics(*METRICS),
    pytest.mark.hil_tools(host=["iperf"], device=["udp_loopback"]),  # device: the virtual lab's stand-in modem
]


@hil.matrix("streams", quick=[1], full=[1, 10], ids="P{}")
def test_modem_loopback(pair, perf, streams):
    modem = pair.settings(ModemSettings)
    with modem_link(pair) as link:

        def loopback():
            return netpath.measure(
                link.path(),
                lambda: iperf2.loopback(
                    link.board,
                    link.modem_address,
                    rate_mbps=modem.rate_mbps,
                    duration_s=modem.duration_s,
                    streams=streams,
                    replication=modem.replication,
                ),
            )

        perf.check(
            METRICS,
            streams=streams,
            cpu_load_on="host",  # the board: the core at its irq/softirq limit is the seed's finding
            facts={"tool": iperf2.version(pair.host), **link.facts},
            sample=loopback,
            diagnosis=NetworkDiagnosis(link.board, link.board, loopback),
        )
