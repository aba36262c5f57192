#!/usr/bin/env bash
# The inside of bench-tray.sh: a private DBus session and mount namespace.
set -euo pipefail
"$BIN" create Scratch 1G >/dev/null
"$BIN" create Build 512M >/dev/null
"$BIN" create Cache 256M --keep >/dev/null
# A kept disk with 2,000 files: the unsaved-changes mark walks it.
(cd /mnt/rambar/Cache && seq -f 'f%g' 1 2000 | xargs touch)
for d in Scratch Build Cache; do
	for i in $(seq 200); do echo "$i" >"/mnt/rambar/$d/f$i"; done
done
# The panel: a StatusNotifierWatcher on this private bus. It says "ready"
# once it owns the name, and leaves when its input (this script) closes.
coproc host { exec "$TRAYHOST" 2>>"$RAMBAR_HOME/trayhost.log"; }
read -r ready <&"${host[0]}"
[ "$ready" = ready ] || { echo "bench-tray: the tray host did not start ($RAMBAR_HOME/trayhost.log)" >&2; exit 1; }
"$BIN" 2>"$RAMBAR_HOME/tray.log" &
pid=$!
sleep 5 # start-up is not idle
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
c0=$(cpu) t0=$(date +%s.%N) r0=$(rss)
sleep "$SECS"
c1=$(cpu) t1=$(date +%s.%N) r1=$(rss)
alive=1
kill "$pid" 2>/dev/null || alive=0
wait "$pid" || true
[ "$alive" = 1 ] || { echo "bench-tray: the tray exited early:" >&2; cat "$RAMBAR_HOME/tray.log" >&2; exit 1; }
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v tck="$(getconf CLK_TCK)" -v r0="$r0" -v r1="$r1" 'BEGIN {
	wall = t1 - t0; cpu = (c1 - c0) / tck; pct = 100 * cpu / wall
	printf "bench-tray: rambar with 3 disks, default refresh, %.0f s idle\n", wall
	printf "  CPU time  %.2f s in %.0f s = %.3f%% of one core (target < 1%%)\n", cpu, wall, pct
	printf "  VmRSS     %.1f MB after start-up, %.1f MB at the end (target < 40 MB)\n", r0 / 1024, r1 / 1024
	ok = pct < 1 && r1 / 1024 < 40
	print(ok ? "  PASS" : "  FAIL")
	exit !ok
}'
