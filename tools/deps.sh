#!/usr/bin/env bash
# deps: make sure every program the tests run is installed (.ci/tools lists
# them with their Debian packages). As root, installs what is missing with
# apt-get; otherwise names the packages and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
# The programs listed run the Linux tests (real tmpfs, the tray over DBus);
# on a Mac the tests use the system's own tools.
[ "$(uname -s)" = Linux ] || exit 0
need=()
# A user's PATH often lacks the sbin folders, where mkfs.ext4, zramctl and
# mount.exfat-fuse are: look there too, as RAMBar does.
search="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
while read -r cmd pkg; do
	case "$cmd" in '' | '#'*) continue ;; esac
	PATH="$search" command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done <.ci/tools
[ ${#need[@]} -eq 0 ] && exit 0
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
if [ "$(id -u)" != 0 ]; then
	echo "make test needs these Debian packages: ${need[*]}" >&2
	echo "install them as root (sudo apt-get install ${need[*]}) or run make test as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}"
