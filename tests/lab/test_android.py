"""hil.lab.usb_gadget.android without a board: the sys.usb.config values it sets, what it refuses before touching the
board, how it recognises init's function directories. The switching itself runs on the virtual board
(tests/vlab/test_android_gadget_vlab.py)."""

from __future__ import annotations

import pytest

from hil.errors import LabError
from hil.inventory.loader import load_inventory
from hil.inventory.schema import ANDROID_FUNCTIONS, AndroidGadgetConfig
from hil.lab.environments import Environments
from hil.lab.usb_gadget import android
from hil.lab.usb_gadget.gadget import Ecm, Gadget, Hid, MassStorage, Ncm, Rndis, Uvc
from hil.lab.usb_gadget.mtp import MtpResponder
from hil.lab.usb_gadget.on_link import link_backend
from tests.pc_lab import PC_ENV

EVERY_FUNCTION = ["mass_storage", "mtp", "rndis", "ncm", "ecm"]
PC_PAIR = """\
pairs:
  pc-pair:
    env: lab.yaml
    roles: {host: {target: lab-pc}, device: {target: lab-pc}}
    link: {type: usb, speed: high, udc: none.0, gadget: BACKEND}
    metrics: {usb.msc.read: {unit: MB/s, min: 1}}
"""


class Untouchable:
    """A role that fails the test if the backend sends it anything."""

    label = "vpair/device (untouchable)"
    suspect_reason = None

    def run(self, command, **_):
        raise AssertionError(f"the board was touched: {command}")

    run_status = run


def test_the_config_names_the_functions_in_order_and_adb_last_when_it_must_stay_up():
    functions = [MassStorage(), Rndis()]
    assert android.usb_config(functions, keep_adb=False) == "mass_storage,rndis"
    assert android.usb_config(functions, keep_adb=True) == "mass_storage,rndis,adb"
    assert android.usb_config([MtpResponder()], keep_adb=True) == "mtp,adb"


def test_the_schema_knows_every_function_that_has_an_android_name():
    named = {cls.android_name for cls in (MassStorage, MtpResponder, Rndis, Ncm, Ecm)}
    assert named == set(ANDROID_FUNCTIONS)
    assert Hid.android_name is None and Uvc.android_name is None


@pytest.mark.parametrize("function", [Hid(), Uvc()], ids=["hid", "uvc"])
def test_hid_and_uvc_are_refused_naming_the_backend_before_the_board_is_touched(function):
    gadget = android.AndroidGadget(
        Untouchable(), "dummy_udc.0", [function], AndroidGadgetConfig(functions=EVERY_FUNCTION)
    )
    with pytest.raises(LabError, match=rf"{function.dirname} cannot run on the android gadget backend"), gadget:
        pass


def test_a_function_the_boards_init_does_not_offer_is_refused_naming_what_it_offers():
    gadget = android.AndroidGadget(Untouchable(), "dummy_udc.0", [MassStorage()], AndroidGadgetConfig())
    with pytest.raises(LabError, match=r"mass_storage is not among .* \(mtp, rndis; boards.yaml link.android"), gadget:
        pass


def test_two_functions_of_one_kind_are_refused():
    config = AndroidGadgetConfig(functions=EVERY_FUNCTION)
    assert "each function once" in android.refusal([Ecm(), Ecm(instance="1")], config)
    assert android.refusal([MassStorage(), Ecm()], config) is None


@pytest.mark.parametrize(
    ("path", "name", "expected"),
    [
        ("/config/usb_gadget/g1/functions/rndis.gs4", "rndis", True),
        ("/config/usb_gadget/g1/functions/mass_storage.0", "mass_storage", True),
        ("/config/usb_gadget/g1/functions/ffs.mtp", "mtp", True),  # FunctionFS MTP (Android 10+)
        ("/config/usb_gadget/g1/functions/mtp.gs0", "mtp", True),  # the kernel's f_mtp (older Android)
        ("/config/usb_gadget/g1/functions/ffs.adb", "mtp", False),
        ("/config/usb_gadget/g1/functions/ncm.0", "rndis", False),
    ],
)
def test_init_s_function_directories_are_recognised_by_type_or_functionfs_instance(path, name, expected):
    assert android._is_function(path, name) is expected


@pytest.fixture
def f_mtp(tmp_path, monkeypatch):
    """A directory of f_mtp's two module parameters, standing where /sys/module/usb_f_mtp/parameters would."""
    params = tmp_path / "parameters"
    params.mkdir()
    for name in android.MTP_BUFFER_PARAMETERS:
        (params / name).write_text("16384\n")
    monkeypatch.setattr(android, "MTP_PARAMETERS", str(params))
    return params


def test_the_mtp_buffer_length_is_written_to_both_f_mtp_parameters_and_restored(role, f_mtp):
    gadget = android.AndroidGadget(role, "udc.0", [MtpResponder(buffer_bytes=1024 * 1024)])
    android._hook("prepare", gadget.functions[0], gadget)
    assert {p.name: p.read_text().strip() for p in f_mtp.iterdir()} == {
        "mtp_tx_req_len": "1048576",
        "mtp_rx_req_len": "1048576",
    }
    android._hook("cleanup", gadget.functions[0], gadget)
    assert {p.read_text().strip() for p in f_mtp.iterdir()} == {"16384"}


def test_a_board_without_f_mtp_parameters_cannot_take_a_buffer_length(role, tmp_path, monkeypatch):
    monkeypatch.setattr(android, "MTP_PARAMETERS", str(tmp_path / "absent"))
    gadget = android.AndroidGadget(role, "udc.0", [MtpResponder(buffer_bytes=65536)])
    with pytest.raises(LabError, match=r"exposes no MTP buffer length .*cannot run buffer 65536 B"):
        android._hook("prepare", gadget.functions[0], gadget)
    android._hook(
        "prepare", android.AndroidGadget(role, "udc.0", [MtpResponder()]).functions[0], gadget
    )  # none asked: fine


@pytest.mark.parametrize(("backend", "expected"), [("configfs", Gadget), ("android", android.AndroidGadget)])
def test_the_pair_s_link_picks_the_backend_tests_do_not(tmp_path, backend, expected):
    (tmp_path / "lab.yaml").write_text(PC_ENV)
    (tmp_path / "boards.yaml").write_text(PC_PAIR.replace("BACKEND", backend))
    board = load_inventory(tmp_path / "boards.yaml").boards["pc-pair"]
    environments = Environments()
    try:
        pair = environments.open(board)
        gadget = link_backend(pair, pair.link, [MassStorage()], 5.0)
        assert type(gadget) is expected and gadget.backend == backend and gadget.role is pair.device
    finally:
        environments.cleanup()
