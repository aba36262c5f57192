#!/usr/bin/env bash
# bench-tray: the idle cost of the running menu-bar app with three RAM disks.
# Starts rambar (no arguments: the tray) on a private DBus session with three
# real tmpfs disks in a private mount namespace (nothing is left behind), lets
# it settle, then reads its CPU time (utime+stime, /proc/PID/stat) and
# resident memory (VmRSS, /proc/PID/status) over SECONDS (default 60) at the
# default refresh interval. Targets: under 0.5% of one core, under 40 MB.
# Then the same for `rambar agent` alone (the keeping without the menu, as
# on a server), against the same targets.
# The tray needs a tray host on its bus: TRAYHOST (cmd/trayhost, built by make
# bench-tray) plays the panel there.
# Needs root. Usage: tray/testdata/bench-tray.sh path/to/rambar [seconds] [trayhost]
set -euo pipefail
bin=$(realpath "$1")
secs=${2:-60}
trayhost=$(realpath "${3:-bin/trayhost}")
[ -x "$trayhost" ] || { echo "bench-tray: no tray host at $trayhost (go build -o bin/trayhost ./cmd/trayhost)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "bench-tray: run as root (the disks are real tmpfs)" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export BIN=$bin TRAYHOST=$trayhost SECS=$secs RAMBAR_HOME=$scratch RAMBAR_NOTIFY=log HERE=$here
unset RAMBAR_MOUNT_ROOT RAMBAR_REFRESH RAMBAR_USAGE_EVERY DISPLAY
# shellcheck disable=SC2016 # $HERE is expanded by the inner bash
timeout $((2 * secs + 90)) unshare -m --propagation private bash -c '
	set -e
	mount -t tmpfs -o size=1m,mode=755 bench /mnt
	mkdir /mnt/rambar
	exec dbus-run-session -- bash "$HERE/bench-tray-session.sh"' 2> >(grep -v '^dbus-daemon' >&2)
