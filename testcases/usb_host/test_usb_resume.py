"""Resume time of a USB device on the board (seed 003): runtime suspend (autosuspend), then resume, timed by
the kernel's runtime-PM tracepoints. usbcore's parameters in force are stored with the result: they and
the kernel's resume delays are what the figure is about.
"""

import pytest

from hil.catalogue.usb_host import ResumeSettings
from hil.errors import LabError
from hil.lab.usb_host import usbhost
from hil.measure import usb_resume

pytestmark = pytest.mark.hil_metrics("usb.resume.time")


def test_usb_runtime_resume(pair, perf):
    host = pair.host
    serial = pair.settings(ResumeSettings).serial
    if not serial:
        raise LabError(f"{pair.name}: set resume.serial (the USB serial number of the device to resume)")
    device = usbhost.wait_for_device(host, serial)
    parameters = usb_resume.usbcore_parameters(host)
    autosuspend_ms = pair.settings(ResumeSettings).autosuspend_ms
    settled = usb_resume.settle(host, device.sysfs, autosuspend_ms=autosuspend_ms)
    perf.check(
        "usb.resume.time",
        cpu_load_on=None,  # a kernel timing of tens of ms: the board's CPU load is not what bounds it
        facts={
            "usb_device": f"{device.vendor_id}:{device.product_id} serial {serial} at {device.sysfs}",
            "link_speed": f"{device.speed_mbps:g} Mb/s ({device.speed})",
            "usbcore_parameters": ", ".join(f"{name}={value}" for name, value in sorted(parameters.items())),
            "autosuspend_ms": autosuspend_ms,
            "settle_cycle": "suspended" if settled else "did not suspend",
        },
        sample=lambda: usb_resume.run(host, device.sysfs, autosuspend_ms=autosuspend_ms),
    )
