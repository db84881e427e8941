"""USB HID gadget throughput, as seed 000 "USB Gadget HID 传输速率分析" measures it: report length
512 or 1024 bytes, interrupt interval 1 ms or 125 µs, both directions, on a vendor-defined report
descriptor. `in` is gadget to host, `out` host to gadget (the seed's "3188 -> PC" and "PC -> 3188").

The interval is the gadget kernel's (Linux's f_hid has no knob for it; the seed patches bInterval):
the case reads the enumerated endpoints and runs only when they have the interval it is named for.
"""

import pytest

import hil
from hil.catalogue.usb_device import HidSettings
from hil.lab.usb_gadget import hid as hid_link
from hil.lab.usb_gadget.gadget import Hid
from hil.lab.usb_gadget.on_link import gadget_on
from hil.measure import hid

pytestmark = [
    pytest.mark.hil_metrics("usb.hid.in", "usb.hid.out"),
    pytest.mark.hil_tools(host=["hid_throughput"], device=["hid_throughput"]),
]


@hil.matrix("report", quick=[1024], full=[512, 1024], ids="report={}")
@hil.matrix("interval", quick=["1ms"], full=["1ms", "125us"], ids="interval={}")
@pytest.mark.parametrize("direction", ["in", "out"])
def test_hid_throughput(pair, perf, direction, report, interval):
    function = Hid(report_length=report)
    with gadget_on(pair, function) as gadget:
        ends = hid_link.ends_of(gadget, function, interval=interval)
        perf.check(
            f"usb.hid.{direction}",
            report=report,
            interval=interval,
            facts={"tool": hid.PROGRAM, "hid_endpoints": ends.describe()},
            sample=lambda: hid.transfer(ends, direction, report_bytes=report, count=pair.settings(HidSettings).reports),
        )
