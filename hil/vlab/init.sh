#!/bin/sh
# PID 1 of the virtual board. It stays PID 1 for the whole boot: a shell as PID 1 dies with the first
# `exit` or stray signal and takes the kernel with it, so the console shell is a respawned child.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /tmp /run /mnt
mount -t devpts devpts /dev/pts
# Gadget backing files live here: RAM, so storage speed never limits a USB measurement.
mount -t tmpfs -o size=80% tmpfs /tmp
mount -t tmpfs tmpfs /run
modprobe configfs && mount -t configfs configfs /sys/kernel/config
# The emulation of Android's property service and USB triggers (android-usb.sh) for the android gadget
# backend: its `on boot` part makes the gadget g1, unbound.
android-usb boot
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# No udev here: mdev loads the driver of each device that appears (usb-storage, uvcvideo, cdc_ether, ...)
# from its modalias, as udev would on a distribution.
# The Debian kernel has no uevent helper, so mdev runs as a daemon on the uevent netlink socket.
echo '$MODALIAS=.* 0:0 660 @modprobe -q -b "$MODALIAS"' > /etc/mdev.conf
mdev -s
mdev -d
hostname hil-vlab
ip link set lo up
# Kernel messages on the console would interleave with command output the framework parses.
dmesg -n 1
echo "hil-vlab: init done after $(cut -d' ' -f1 /proc/uptime) s"
while true; do
    setsid cttyhack /usr/bin/dash -l
    sleep 0.2
done
