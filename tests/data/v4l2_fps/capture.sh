#!/bin/sh
# Regenerates the v4l2_fps captures. Run ON THE VIRTUAL BOARD (its image has v4l2_fps and the vivid
# module): no isochronous UVC stream runs there (dummy_hcd has no isochronous endpoints), so the program is captured
# against vivid, the kernel's V4L2 test pattern generator. Under QEMU TCG vivid delivers ~5 fps and drops
# a few frames: the figures are vivid's, the output format is the program's.
set -u
modprobe vivid n_devs=1 node_types=0x1 input_types=0x0
run() { name=$1; shift; "$@" >"$name.txt" 2>&1; echo "exit: $? ($name)"; }
run vivid-yuyv-640x480 v4l2_fps /dev/video0 yuyv 640 480 300 10
run vivid-yuyv-320x240-not-offered v4l2_fps /dev/video0 yuyv 320 240 300 10
run vivid-mjpeg-not-offered v4l2_fps /dev/video0 mjpeg 1280 720 300 10
run vivid-yuyv-641x480-adjusted v4l2_fps /dev/video0 yuyv 641 480 300 10
run missing-device v4l2_fps /dev/video9 yuyv 640 480 300 10
run one-frame-usage v4l2_fps /dev/video0 yuyv 640 480 1 10
# gadgetfs-yuyv-640x480-counter-*.txt are samples of the UVC bulk case on the virtual lab (hil's GadgetFS
# camera through dummy_hcd, `v4l2_fps /dev/video0 yuyv 640 480 300 10 counter`), copied from results.json:
#   pytest testcases/usb_device/test_uvc.py -k bulk --board vlab-hs --board vlab-ss
