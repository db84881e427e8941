"""labgrid's step log survives a console that never printed (hil.lab.board.steplog).

Two real labgrid SerialDrivers on ptys: one whose far end answers, one whose far end nobody holds (a
board that never booted). Before hil's fix, every labgrid step after that was a warning "unhandled
exception during event notification: SerialDriver(...)" and its StepLogger line was lost: a CI run on
2026-11-27 showed it in every virtual lab test after the rehearsal board's dead-console test.
"""

from __future__ import annotations

import logging
import os
import pty
import warnings

from labgrid import Target
from labgrid.driver import ExternalPowerDriver, SerialDriver
from labgrid.logging import StepLogger
from labgrid.resource import RawSerialPort


def _console(target: Target, name: str) -> tuple[SerialDriver, int]:
    far_end, near_end = pty.openpty()
    RawSerialPort(target, name, port=os.ttyname(near_end), speed=115200)
    target.set_binding_map({"port": name})
    driver = SerialDriver(target, name)
    target.set_binding_map({})
    target.activate(driver)
    return driver, far_end


def test_a_console_that_never_printed_does_not_silence_labgrids_step_log(caplog):
    assert StepLogger._started, "labgrid's pytest plugin logs steps in every run"
    target = Target("steplog")
    alive, alive_far = _console(target, "alive")
    dead, _ = _console(target, "dead")
    power = ExternalPowerDriver(target, "power", cmd_on="true", cmd_off="true")
    target.activate(power)
    try:
        os.write(alive_far, b"U-Boot 2023.01\r\n")
        assert alive.read(size=64, timeout=2.0)  # a console that printed: the reporter flushes from now on
        dead.write(b"\n")  # written to, never answers
        with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.INFO, logger="StepLogger"):
            warnings.simplefilter("always")
            power.on()
        assert not [w for w in caught if "event notification" in str(w.message)], [str(w.message) for w in caught]
        assert any("ExternalPowerDriver.on()" in r.getMessage() for r in caplog.records)
    finally:
        target.deactivate_all_drivers()
