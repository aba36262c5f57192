#!/usr/bin/env bash
# Renders RAMBar's tray menu under Xvfb with xfce4-panel (its systray plugin is
# a StatusNotifier host) and writes OUTDIR/tray.png (the menu) and
# OUTDIR/tray-submenu.png (a disk's submenu). Needs root (the disks are real
# tmpfs) and: apt-get install xfce4-panel xvfb xdotool imagemagick x11-utils xfconf zenity dbus-daemon
# (zenity: without a dialog tool the menu hides Custom… and Edit Presets…),
# and for Japanese or Chinese a CJK font: apt-get install fonts-noto-cjk.
# RAMBAR_SHOT_LANG (make screenshot LANG=ja) is the menu's language: en (the
# default; tray.png), or de, es, fr, ja, zh-Hans, pseudo (tray-LANG.png).
# Usage: packaging/screenshot/screenshot.sh path/to/rambar OUTDIR
# (make screenshot: OUTDIR is bin/screenshot, untracked; make screenshot DOCS=1: docs)
set -euo pipefail
bin=$(realpath "$1")
[ -n "${2:-}" ] || { echo "usage: $0 path/to/rambar OUTDIR (docs/ only to refresh the README's pictures)" >&2; exit 2; }
mkdir -p "$2"
out=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
for tool in Xvfb xfce4-panel xdotool import convert xfconfd zenity dbus-run-session; do
	command -v "$tool" >/dev/null || [ -x "/usr/lib/x86_64-linux-gnu/xfce4/xfconf/$tool" ] ||
		{ echo "screenshot: $tool is missing (apt-get install xfce4-panel xvfb xdotool imagemagick x11-utils xfconf zenity dbus-daemon)" >&2; exit 1; }
done
lang=${RAMBAR_SHOT_LANG:-en}
case $lang in
en | en_* | C | C.* | POSIX) lang=en suffix= ;;
*) suffix=-$lang ;;
esac
case $lang in
ja* | zh*)
	fc-list ":lang=${lang%%[-_]*}" | grep -q . ||
		{ echo "screenshot: no font for $lang is installed (apt-get install fonts-noto-cjk)" >&2; exit 1; } ;;
esac
scratch=$(mktemp -d)
xvfb=
cleanup() {
	[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT

mkdir -p "$scratch/home/.config/xfce4/xfconf/xfce-perchannel-xml" "$scratch/rambar" "$out"
cp "$here/xfce4-panel.xml" "$scratch/home/.config/xfce4/xfconf/xfce-perchannel-xml/"

# -displayfd picks a free display and tells us which.
Xvfb -displayfd 3 -screen 0 1024x480x24 -nolisten tcp 3>"$scratch/display" 2>/dev/null &
xvfb=$!
for _ in $(seq 100); do [ -s "$scratch/display" ] && break; sleep 0.1; done
display=$(cat "$scratch/display")
[ -n "$display" ] || { echo "screenshot: Xvfb did not start" >&2; exit 1; }

# xfconfd is started by the bus, so HOME and XDG_* must be set before it.
export HOME=$scratch/home XDG_CONFIG_HOME=$scratch/home/.config XDG_CACHE_HOME=$scratch/home/.cache DISPLAY=":$display"
unset RAMBAR_MOUNT_ROOT
export RAMBAR_HOME=$scratch/rambar RAMBAR_NOTIFY=log RAMBAR_REFRESH=500ms
export BIN=$bin OUT=$out SCRATCH=$scratch HERE=$here TRACE=${SCREENSHOT_TRACE:+-x} SHOT_LANG=$lang SUFFIX=$suffix
# The mount points of RAMBar's tmpfs disks (source rambar or rambar:NAME).
# shellcheck disable=SC2016 # awk's own $fields
export OWN_DISKS='{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i+1) == "tmpfs" && $(i+2) ~ /^rambar(:|$)/) print $5 }'

# A private mount namespace with its own /mnt: the disks appear at the usual
# /mnt/rambar in the picture, nobody else sees them, and they end with it.
# Your own RAMBar disks (a Scratch of yours, one at a --mount-point) are
# detached in that namespace only, so their names never clash with the
# picture's and they stay mounted for you.
timeout 120 unshare -m --propagation private bash -c '
	set -e
	awk "$OWN_DISKS" /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$(printf "%b" "$m")" 2>/dev/null || true; done
	mount -t tmpfs -o size=1m,mode=755 screenshot /mnt
	mkdir /mnt/rambar
	exec dbus-run-session -- bash $TRACE "$HERE/session.sh"' 2>"$scratch/session.log" || {
	# The panel, xfconfd and the bus are chatty; show what they said only on failure.
	cat "$scratch/session.log" >&2
	exit 1
}
echo "wrote $out/tray$suffix.png $out/tray$suffix-submenu.png"
