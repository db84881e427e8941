#!/bin/sh
# An EMULATION of Android's property service and of Android init's USB triggers, for the virtual board
# only: just enough Android for hil's android gadget backend (hil/lab/usb_gadget/android.py) to run for real there.
# It is not Android. The triggers follow AOSP system/core/rootdir/init.usb.configfs.rc (the actions
# `on property:sys.usb.config=... && property:sys.usb.configfs=1`) and the `on boot` part a device's
# init.<board>.usb.rc adds (the gadget g1 with its configuration b.1, sys.usb.controller, configfs=1).
#
#   getprop [NAME]        the value of NAME (every property as "[name]: [value]" without NAME)
#   setprop NAME VALUE    set it; setting sys.usb.config runs its trigger in the background, as init
#                         runs a property's actions after setprop has returned
#   android-usb boot      the `on boot` part (init.sh runs it once)
#
# Functions: mass_storage (mass_storage.0), rndis (rndis.gs4, AOSP's instance), ncm (ncm.0), ecm (ecm.0)
# and mtp (ffs.mtp, FunctionFS served by umtprd as Android 10+ serves it with MtpServer). As in init,
# the action for a value links that value's functions as f1, f2, ... into configs/b.1, binds the UDC and
# sets sys.usb.state to ${sys.usb.config}; a command that fails does not stop the action (init logs it
# and goes on); a value without an action (an unknown function, adb: no adbd here) changes nothing, so
# sys.usb.state keeps its old value. Differences from Android, and why:
# - function instances are made when first used, not at boot: a board that never switches to Android's
#   gadget carries no extra network interfaces or modules;
# - leaving mtp stops the responder and removes ffs.mtp (Android's framework stops MtpServer, init keeps
#   the instance): the configfs pairs on the same board create their own ffs.mtp, and FunctionFS names
#   must be unique;
# - the UDC is unbound by writing an empty name: the mainline kernel does not know Android's "none".
set -u
PROPS=/run/android-properties
GADGET=/config/usb_gadget/g1
CONFIG=$GADGET/configs/b.1
FFS=/dev/usb-ffs/mtp
RUN=/run/android-usb
MTP_STORAGE=/sdcard

prop() { cat "$PROPS/$1" 2>/dev/null; }

prop_set() {
    case $1 in '' | *[!A-Za-z0-9._-]*) echo "setprop: bad property name '$1'" >&2; return 1 ;; esac
    # PROP_VALUE_MAX is 92 bytes with its terminator.
    [ ${#2} -le 91 ] || { echo "setprop: value of $1 longer than 91 bytes" >&2; return 1; }
    mkdir -p "$PROPS" && printf %s "$2" > "$PROPS/.$1.new" && mv "$PROPS/.$1.new" "$PROPS/$1"
}

log() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >> $RUN/init.log; }

instance() {  # the function directory a sys.usb.config name stands for, made on first use
    case $1 in
        mass_storage) dir=mass_storage.0 module=usb_f_mass_storage ;;
        rndis) dir=rndis.gs4 module=usb_f_rndis ;;
        ncm) dir=ncm.0 module=usb_f_ncm ;;
        ecm) dir=ecm.0 module=usb_f_ecm ;;
        mtp) dir=ffs.mtp module=usb_f_fs ;;
        *) return 1 ;;
    esac
    [ -d "$GADGET/functions/$dir" ] || { modprobe "$module" && mkdir "$GADGET/functions/$dir"; } || return 1
    echo "$dir"
}

mtp_start() {  # what sys.usb.ffs.mtp.ready=1 waits for: the responder has written its descriptors
    [ -e $FFS/ep1 ] && return 0
    mkdir -p $FFS $MTP_STORAGE
    grep -q " $FFS functionfs " /proc/mounts || mount -t functionfs mtp $FFS || return 1
    cat > $RUN/umtprd.conf <<EOF
loop_on_disconnect 1
storage "$MTP_STORAGE" "sdcard" "rw"
manufacturer "hil"
product "hil vlab (Android USB emulation)"
serial "$(prop ro.serialno)"
interface "MTP"
usb_functionfs_mode 0x1
usb_dev_path "$FFS/ep0"
usb_epin_path "$FFS/ep1"
usb_epout_path "$FFS/ep2"
usb_epint_path "$FFS/ep3"
usb_max_packet_size 0x200
no_inotify 0x1
EOF
    setsid umtprd -conf $RUN/umtprd.conf > $RUN/umtprd.log 2>&1 < /dev/null &
    echo $! > $RUN/umtprd.pid
    for _ in $(seq 100); do [ -e $FFS/ep1 ] && { prop_set sys.usb.ffs.mtp.ready 1; return 0; }; sleep 0.1; done
    return 1
}

mtp_stop() {
    [ -f $RUN/umtprd.pid ] || return 0
    for link in "$CONFIG"/f*; do case $(readlink "$link") in */functions/ffs.mtp) rm "$link" ;; esac; done
    kill "$(cat $RUN/umtprd.pid)" 2>/dev/null
    rm -f $RUN/umtprd.pid
    for _ in $(seq 50); do pidof umtprd > /dev/null || break; sleep 0.1; done
    umount $FFS 2>/dev/null
    rmdir "$GADGET/functions/ffs.mtp" 2>/dev/null
    prop_set sys.usb.ffs.mtp.ready 0
}

trigger() {  # the action of `on property:sys.usb.config=$1 && property:sys.usb.configfs=1`
    [ "$(prop sys.usb.configfs)" = 1 ] || return 0
    if [ "$1" = none ]; then
        [ -z "$(cat $GADGET/UDC)" ] || echo > $GADGET/UDC
        mtp_stop
    else
        dirs=
        for name in $(echo "$1" | tr , ' '); do
            dir=$(instance "$name") || { log "no action for sys.usb.config=$1 ($name)"; return 0; }
            dirs="$dirs $dir"
            if [ "$name" = mtp ]; then mtp_start || { log "mtp responder not ready"; return 0; }; fi
        done
        echo "$1" | tr , _ > $CONFIG/strings/0x409/configuration
        rm -f "$CONFIG"/f*
        n=1
        for dir in $dirs; do ln -s "$GADGET/functions/$dir" "$CONFIG/f$n"; n=$((n + 1)); done
        prop sys.usb.controller > $GADGET/UDC
    fi
    prop_set sys.usb.state "$(prop sys.usb.config)"
}

boot() {
    mkdir -p $PROPS $RUN
    [ -e /config ] || ln -s /sys/kernel/config /config
    modprobe libcomposite
    mkdir -p $GADGET/strings/0x409 $CONFIG/strings/0x409
    prop_set ro.serialno hilvlabandroid
    prop_set sys.usb.controller dummy_udc.0
    echo 0x1d6b > $GADGET/idVendor
    echo 0x0104 > $GADGET/idProduct
    prop ro.serialno > $GADGET/strings/0x409/serialnumber
    echo hil > $GADGET/strings/0x409/manufacturer
    echo "hil vlab (Android USB emulation)" > $GADGET/strings/0x409/product
    echo 500 > $CONFIG/MaxPower
    prop_set sys.usb.configfs 1
    prop_set sys.usb.config none
    prop_set sys.usb.state none
}

case ${0##*/} in
    getprop)
        if [ $# -ge 1 ]; then
            prop "$1"
            echo
        else
            for file in "$PROPS"/*; do echo "[${file##*/}]: [$(cat "$file")]"; done
        fi
        ;;
    setprop)
        [ $# -eq 2 ] || { echo "usage: setprop NAME VALUE" >&2; exit 1; }
        prop_set "$1" "$2" || exit 1
        if [ "$1" = sys.usb.config ]; then  # init runs the action after setprop returned
            setsid /usr/bin/android-usb trigger "$2" < /dev/null >> $RUN/init.log 2>&1 &
        fi
        ;;
    *)
        case ${1:-} in
            boot) boot ;;
            trigger)
                # init runs one action at a time (busybox has no flock: a directory is the lock)
                until mkdir $RUN/action.lock 2> /dev/null; do sleep 0.05; done
                trap 'rmdir $RUN/action.lock' EXIT
                trigger "$2"
                ;;
            *) echo "usage: android-usb boot" >&2; exit 1 ;;
        esac
        ;;
esac
