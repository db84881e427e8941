"""Seed 004's offered-rate sweep on the modem loopback's own path: the board's iperf 2 client offers one stream at
`modem.sweep_step_mbps`, twice that, ... up to `modem.sweep_top_mbps` (the seed's 50, 100, 150M) until the loss
passes modem.loopback.loss's band; the knee is the highest rate before it. Only pairs whose boards.yaml names
modem.loopback.knee run it.
"""

import pytest

from hil.catalogue.modem import ModemSettings
from hil.lab.network.modem import modem_link
from hil.measure import iperf2, netpath, udp_two_step

pytestmark = [
    pytest.mark.hil_metrics("modem.loopback.knee"),
    pytest.mark.hil_tools(host=["iperf"], device=["udp_loopback"]),  # device: the virtual lab's stand-in modem
]


def test_modem_knee(pair, perf):
    modem = pair.settings(ModemSettings)
    loss = perf.band("modem.loopback.loss", streams=1)
    if loss is None or loss.high is None:
        pytest.skip(f"{pair.name}: the knee needs modem.loopback.loss's maximum for one stream")
    with modem_link(pair) as link:

        def loopback(rate_mbps):
            return netpath.measure(
                link.path(),
                lambda: iperf2.loopback(
                    link.board,
                    link.modem_address,
                    rate_mbps=rate_mbps,
                    duration_s=modem.duration_s,
                    streams=1,
                    replication=modem.replication,
                ),
            )

        rates = udp_two_step.sweep_rates(modem.sweep_step_mbps, modem.sweep_top_mbps)
        perf.check(
            "modem.loopback.knee",
            facts={"tool": iperf2.version(pair.host), **link.facts},
            sample=lambda: udp_two_step.knee(loopback, rates, loss.high),
        )
