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
# measure LABEL TARGET LOG CMD...: start CMD, let it settle, read its CPU
# time (utime+stime) and VmRSS over SECS, stop it; fails past TARGET % of
# one core or 40 MB.
measure() {
	local label=$1 target=$2 log=$3
	shift 3
	"$@" 2>"$log" &
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
	[ "$alive" = 1 ] || { echo "bench-tray: $label exited early:" >&2; cat "$log" >&2; exit 1; }
	awk -v label="$label" -v target="$target" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v tck="$(getconf CLK_TCK)" -v r0="$r0" -v r1="$r1" 'BEGIN {
		wall = t1 - t0; cpu = (c1 - c0) / tck; pct = 100 * cpu / wall
		printf "bench-tray: %s with 3 disks, default refresh, %.0f s idle\n", label, wall
		printf "  CPU time  %.2f s in %.0f s = %.3f%% of one core (target < %s%%)\n", cpu, wall, pct, target
		printf "  VmRSS     %.1f MB after start-up, %.1f MB at the end (target < 40 MB)\n", r0 / 1024, r1 / 1024
		ok = pct < target && r1 / 1024 < 40
		print(ok ? "  PASS" : "  FAIL")
		exit !ok
	}'
}
status=0
measure "rambar (the menu-bar app)" 0.5 "$RAMBAR_HOME/tray.log" "$BIN" || status=1
# The agent alone: the same keeping, no menu (a server's rambar agent).
measure "rambar agent (no menu)" 0.5 "$RAMBAR_HOME/agent.log" "$BIN" agent || status=1
exit $status
