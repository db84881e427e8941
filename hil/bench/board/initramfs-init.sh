#!/bin/sh
# The rehearsal board's initramfs, as a distribution's: load what the root filesystem needs (the disk's
# controller and its filesystem are modules in Debian's kernel), mount root= from the kernel command line,
# and hand over to the root filesystem's init.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for module in $(cat /etc/modules-initramfs); do modprobe "$module"; done
root=
for word in $(cat /proc/cmdline); do
    case "$word" in root=*) root=${word#root=} ;; esac
done
tries=0
until [ -b "$root" ] || [ "$tries" -ge 100 ]; do sleep 0.1; tries=$((tries + 1)); done
mkdir -p /newroot
# ext4 replays its journal on mount: a power cut mid-write (the bench's PDU) costs no more than that.
if ! mount -t ext4 "$root" /newroot; then
    echo "initramfs: cannot mount root $root; a shell is on the console"
    exec sh
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
