#!/bin/sh
# Installs MetaClaw from this folder for the current user (no root needed):
# the binary into ~/.local/bin, the menu entry and icons into ~/.local/share.
# PREFIX=/usr/local sh install.sh installs elsewhere (run as root for that).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
install -Dm755 "$here/metaclaw" "$prefix/bin/metaclaw"
sed "s|^Exec=metaclaw|Exec=$prefix/bin/metaclaw|" "$here/metaclaw.desktop" > "$here/.metaclaw.desktop.tmp"
install -Dm644 "$here/.metaclaw.desktop.tmp" "$prefix/share/applications/metaclaw.desktop"
rm -f "$here/.metaclaw.desktop.tmp"
for png in "$here"/icons/hicolor/*/apps/metaclaw.png; do
  size=$(basename "$(dirname "$(dirname "$png")")")
  install -Dm644 "$png" "$prefix/share/icons/hicolor/$size/apps/metaclaw.png"
done
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$prefix/share/applications" 2>/dev/null || true
echo "MetaClaw installed in $prefix. Start it from the menu, or run: $prefix/bin/metaclaw"
echo "Start at login: $prefix/bin/metaclaw autostart on"
