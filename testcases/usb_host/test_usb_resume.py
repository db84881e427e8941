"""Resume time of a USB device on the board (seed 003): runtime suspend (autosuspend), then resume, timed by
the kernel's runtime-PM tracepoints; and the same device's resume when the whole board suspends (to RAM or
s2idle) and its RTC wakes it, timed by the kernel's own per-device PM log. usbcore's parameters in force are
stored with the results: they and the kernel's resume delays are what the figures are about. The runtime
resume is measured twice, side by side as seed 003 compares them: with the kernel's resume delays and with the
USB 2.0 specification's minima (`usbcore.timing_minimum`, the seed's patch: a kernel without it skips that case
saying so).
"""

import pytest

import hil
from hil.catalogue.usb_host import ResumeSettings
from hil.errors import LabError
from hil.lab.usb_host import usbhost
from hil.measure import system_resume, usb_resume


def _device(pair) -> usbhost.UsbDevice:
    serial = pair.settings(ResumeSettings).serial
    if not serial:
        raise LabError(f"{pair.name}: set resume.serial (the USB serial number of the device to resume)")
    return usbhost.wait_for_device(pair.host, serial)


def _facts(pair, device: usbhost.UsbDevice, parameters: dict[str, str] | None = None) -> dict[str, str]:
    parameters = usb_resume.usbcore_parameters(pair.host) if parameters is None else parameters
    pair.record_link(f"{device.speed_mbps:g} Mb/s ({device.speed})")
    return {
        "usb_device": f"{device.vendor_id}:{device.product_id} serial {device.serial} at {device.sysfs}",
        "usbcore_parameters": ", ".join(f"{name}={value}" for name, value in sorted(parameters.items())),
    }


@pytest.mark.hil_metrics("usb.resume.time")
@hil.matrix("timing", quick=usb_resume.TIMINGS, full=usb_resume.TIMINGS, ids="timing={}")
def test_usb_runtime_resume(pair, perf, timing):
    host = pair.host
    device = _device(pair)
    autosuspend_ms = pair.settings(ResumeSettings).autosuspend_ms
    with usb_resume.timing_in_force(host, timing) as usbcore:
        perf.check(
            "usb.resume.time",
            timing=timing,
            cpu_load_on=None,  # a kernel timing of tens of ms: the board's CPU load is not what bounds it
            facts={
                **_facts(pair, device, usbcore),
                "autosuspend_ms": autosuspend_ms,
            },
            sample=lambda: usb_resume.run(host, device.sysfs, autosuspend_ms=autosuspend_ms),
        )


@pytest.mark.hil_metrics("usb.resume.system")
def test_usb_system_resume(pair, perf):
    settings = pair.settings(ResumeSettings)
    device = _device(pair)
    perf.check(
        "usb.resume.system",
        cpu_load_on=None,  # the board sleeps through most of each sample
        facts={**_facts(pair, device), "sleep": f"{settings.sleep}, woken by the RTC after {settings.wake_s} s"},
        sample=lambda: system_resume.run(pair.host, device.sysfs, state=settings.sleep, wake_s=settings.wake_s),
    )
