#!/usr/bin/env bash
# The inside of screenshot.sh: runs in a private DBus session on the Xvfb display.
set -euo pipefail
xfce4-panel --disable-wm-check >/dev/null 2>&1 &
panel=$!
sleep 4

# Three disks with something on them, made with the CLI as a user would.
"$BIN" create Scratch 4G >/dev/null
"$BIN" create Build 2G >/dev/null
"$BIN" create Cache 512M >/dev/null
dd if=/dev/urandom of="$RAMBAR_MOUNT_ROOT/Scratch/data" bs=1M count=1200 status=none
dd if=/dev/urandom of="$RAMBAR_MOUNT_ROOT/Build/obj" bs=1M count=300 status=none
dd if=/dev/urandom of="$RAMBAR_MOUNT_ROOT/Cache/c" bs=1M count=470 status=none

"$BIN" 2>"$SCRATCH/rambar.log" &
app=$!
sleep 3

shot=$SCRATCH/shot.png
import -window root "$shot"
# The tray icon is the leftmost dark outline pixel in the panel row (the
# panel is light; the clock is further right).
pos=$(convert "$shot" -crop 1024x30+0+0 +repage txt:- | awk -F'[,: ]+' '/#222222|#232323|#212121/ {print $1, $2; exit}')
[ -n "$pos" ] || { echo "screenshot: tray icon not found" >&2; kill "$app" "$panel"; exit 1; }
read -r x y <<<"$pos"
xdotool mousemove $((x + 8)) 15 click 1
sleep 1.5
import -window root "$SCRATCH/menu.png"
# Hover the first disk: its submenu opens.
xdotool mousemove $((x + 30)) 44
sleep 1.5
import -window root "$SCRATCH/submenu.png"
xdotool key Escape
sleep 0.5
kill "$app"
wait "$app" || true
kill "$panel" || true
for f in menu submenu; do
	# Keep the panel and what the menus cover; the rest of the screen is black.
	convert "$SCRATCH/$f.png" -bordercolor black -border 1 -fuzz 2% -trim +repage "$SCRATCH/$f-trim.png"
done
cp "$SCRATCH/menu-trim.png" "$OUT/tray.png"
cp "$SCRATCH/submenu-trim.png" "$OUT/tray-submenu.png"
