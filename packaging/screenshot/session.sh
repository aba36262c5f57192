#!/usr/bin/env bash
# The inside of screenshot.sh: runs in a private DBus session on the Xvfb display.
set -euo pipefail
xfce4-panel --disable-wm-check >/dev/null 2>&1 &
panel=$!
sleep 4

# Three disks with something on them, made with the CLI as a user would.
"$BIN" create Scratch 4G >/dev/null
"$BIN" create Build 2G >/dev/null
"$BIN" create Cache 512M --keep >/dev/null
"$BIN" preset add Scratch 4G --auto-mount >/dev/null
"$BIN" preset add Photos 8G --keep --save-every 10m >/dev/null
dd if=/dev/urandom of="/mnt/rambar/Scratch/data" bs=1M count=1200 status=none
dd if=/dev/urandom of="/mnt/rambar/Build/obj" bs=1M count=300 status=none
dd if=/dev/urandom of="/mnt/rambar/Cache/c" bs=1M count=470 status=none

# The menu's language: RAMBar reads LANGUAGE, LC_ALL, LC_MESSAGES and LANG.
LANGUAGE=$SHOT_LANG LC_ALL='' LC_MESSAGES='' LANG=en_US.UTF-8 "$BIN" 2>"$SCRATCH/rambar.log" &
app=$!
sleep 3

shot=$SCRATCH/shot.png
import -window root "$shot"
# The tray icon is the leftmost dark outline pixel in the panel row (the
# panel is light; the clock is further right).
pos=$(convert "$shot" -crop 1024x30+0+0 +repage txt:- | awk -F'[,: ]+' '!found && /#222222|#232323|#212121/ {print $1, $2; found=1}')
[ -n "$pos" ] || { echo "screenshot: tray icon not found" >&2; kill "$app" "$panel"; exit 1; }
read -r x y <<<"$pos"
xdotool mousemove $((x + 8)) 15 click 1
sleep 1.5
import -window root "$SCRATCH/menu.png"
# Hover the second disk (Cache, nearly full): its submenu opens.
xdotool mousemove $((x - 200)) 71
sleep 1.5
import -window root "$SCRATCH/submenu.png"
xdotool key Escape
sleep 0.5
kill "$app"
wait "$app" || true
kill "$panel" || true
for f in menu submenu; do
	# Keep the right end of the panel and the open menus: find the menus'
	# box below the panel (the screen around them is black), pad it by 12 px.
	geo=$(convert "$SCRATCH/$f.png" -crop 1024x449+0+31 +repage -fuzz 2% -format '%@' info:)
	read -r w h mx my <<<"${geo//[x+]/ }"
	left=$((mx > 12 ? mx - 12 : 0))
	convert "$SCRATCH/$f.png" -crop "$((1024 - left))x$((31 + my + h + 12))+$left+0" +repage "$SCRATCH/$f-trim.png"
done
cp "$SCRATCH/menu-trim.png" "$OUT/tray$SUFFIX.png"
cp "$SCRATCH/submenu-trim.png" "$OUT/tray$SUFFIX-submenu.png"
