"""Parameters a metric gained after results of it were stored, with the value its earlier results were measured at.

A parameter added to a test case changes its results' keys (hil.verdict.result.metric_key): `usb.resume.time`
became `usb.resume.time[timing=default]`. So that baselines, the trend and the release gate go on from the runs
measured before, the results database gives those results the parameter at the value that reproduces what they
measured, noted as the fact `params_added`: a migration for the stored results (hil.db.migrations), `hil db
import` for old results and baseline files. A parameter added later: one line here, and a migration that runs
the step (docs/results-db.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hil.verdict.result import metric_key

FACT = "params_added"  # the fact of a result given parameters it was measured without: "timing=default"


@dataclass(frozen=True)
class AddedParam:
    metrics: tuple[str, ...]
    name: str
    value: str  # what the results measured before the parameter existed were measured at
    # Only results whose parameter `when[0]` has one of the values `when[1]`: the cases the parameter applies to.
    when: tuple[str, tuple[str, ...]] | None = None

    def applies(self, metric: str, params: Mapping[str, Any]) -> bool:
        if metric not in self.metrics or self.name in params:
            return False
        return self.when is None or str(params.get(self.when[0])) in self.when[1]


# What testcases/storage/test_nvme.py measures with fio: SEQ1M's rates, RND4K's rates, IOPS and p99 latencies.
NVME_FIO = tuple(f"nvme.seq1m_q32t1.{d}" for d in ("read", "write")) + tuple(
    f"nvme.rnd4k_q32t1.{d}{figure}" for d in ("read", "write") for figure in ("", "_iops", "_p99")
)

# What testcases/usb_device/test_uvc.py measures, and its isochronous transfers (the service settings' cases).
UVC = ("usb.uvc.fps", "usb.uvc.dropped", "usb.uvc.corrupt")
UVC_ISO = ("transfer", ("iso1024", "iso2048", "iso3072"))

ADDED_PARAMS = (
    AddedParam(("usb.resume.time",), "timing", "default"),  # the USB 2.0 minima beside the kernel's resume delays
    AddedParam(("pcie.bar.store", "pcie.bar.load"), "mapping", "device"),  # resourceN_wc beside resourceN
    AddedParam(NVME_FIO, "target", "raw"),  # fio on a file of ext4 and f2fs beside the raw namespace
    AddedParam(UVC, "streaming_interval", "1", when=UVC_ISO),  # f_uvc's defaults beside other service settings
    AddedParam(UVC, "streaming_maxburst", "0", when=UVC_ISO),
)


def missing(metric: str, params: Mapping[str, Any]) -> dict[str, str]:
    """The parameters `metric` gained since a result with `params` was measured, at the values it was measured at."""
    return {added.name: added.value for added in ADDED_PARAMS if added.applies(metric, params)}


def fact(added: Mapping[str, str]) -> str:
    return ", ".join(f"{name}={value}" for name, value in sorted(added.items()))


def completed_key(key: str) -> str:
    """A metric key (metric_key's `metric[name=value,...]`) with the parameters its metric gained since."""
    metric, _, inner = key.partition("[")
    if not any(metric in added.metrics for added in ADDED_PARAMS):
        return key
    params = dict(part.split("=", 1) for part in inner.removesuffix("]").split(",")) if inner else {}
    added = missing(metric, params)
    return metric_key(metric, {**params, **added}) if added else key
