#!/usr/bin/env bash
# Checks the packages that `make dist-linux dist-windows` left in dist/
# (CI runs it after them): the .deb's contents, control fields, menu entry
# and binary; the tar.gz; the Windows GUI program and the NSIS installer;
# and the macOS bundle's layout and Info.plist (laid out here with
# LAYOUT_ONLY=1, since the rest needs a Mac).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
fail() { echo "check-dist: $*" >&2; exit 1; }
newest() { ls -t $1 2>/dev/null | head -1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

deb=$(newest "$DIST/metaclaw_*_amd64.deb")
[ -n "$deb" ] || fail "no dist/metaclaw_*_amd64.deb: run make dist-linux"
step "$deb"
contents=$(dpkg-deb -c "$deb")
for want in "-rwxr-xr-x root/root .* ./usr/bin/metaclaw" \
  "-rw-r--r-- root/root .* ./usr/share/applications/metaclaw.desktop" \
  "./usr/share/icons/hicolor/16x16/apps/metaclaw.png" \
  "./usr/share/icons/hicolor/48x48/apps/metaclaw.png" \
  "./usr/share/icons/hicolor/256x256/apps/metaclaw.png" \
  "./usr/share/icons/hicolor/512x512/apps/metaclaw.png"; do
  grep -qE -- "$want\$" <<<"$contents" || fail "$deb lacks $want:"$'\n'"$contents"
done
[ "$(dpkg-deb -f "$deb" Package)" = metaclaw ] || fail "Package is not metaclaw"
[ "$(dpkg-deb -f "$deb" Architecture)" = amd64 ] || fail "Architecture is not amd64"
[ "$(dpkg-deb -f "$deb" Version)" = "$(debian_version)" ] || echo "note: $deb is version $(dpkg-deb -f "$deb" Version), not $(debian_version)"
dpkg-deb -x "$deb" "$tmp/deb"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$tmp/deb/usr/share/applications/metaclaw.desktop" || fail "the .desktop file is invalid"
elif [ "${METACLAW_E2E:-}" = 1 ]; then
  fail "desktop-file-validate not found (apt-get install desktop-file-utils)"
fi
file "$tmp/deb/usr/bin/metaclaw" | grep -q "statically linked" || fail "/usr/bin/metaclaw is not a static binary"
"$tmp/deb/usr/bin/metaclaw" version | grep -q "^metaclaw " || fail "/usr/bin/metaclaw version does not answer"

tgz=$(newest "$DIST/metaclaw-*-linux-amd64.tar.gz")
[ -n "$tgz" ] || fail "no dist/metaclaw-*-linux-amd64.tar.gz"
step "$tgz"
list=$(tar -tzf "$tgz")
for want in /metaclaw /metaclaw.desktop /install.sh /icons/hicolor/256x256/apps/metaclaw.png; do
  grep -q -- "^metaclaw-[^/]*-linux-amd64$want\$" <<<"$list" || fail "$tgz lacks $want"
done
tar -xzf "$tgz" -C "$tmp"
PREFIX="$tmp/prefix" sh "$tmp"/metaclaw-*-linux-amd64/install.sh >/dev/null
[ -x "$tmp/prefix/bin/metaclaw" ] && grep -q "^Exec=$tmp/prefix/bin/metaclaw\$" "$tmp/prefix/share/applications/metaclaw.desktop" \
  || fail "install.sh from $tgz did not install the binary and its menu entry"

exe=$(newest "$DIST/metaclaw-*-windows-amd64.exe")
[ -n "$exe" ] || fail "no dist/metaclaw-*-windows-amd64.exe: run make dist-windows"
step "$exe"
file "$exe" | grep -q "PE32+ executable (GUI) x86-64" || fail "$exe is not a 64-bit GUI program: $(file -b "$exe")"
setup=$(newest "$DIST/MetaClaw-*-setup.exe")
[ -n "$setup" ] || fail "no dist/MetaClaw-*-setup.exe"
step "$setup"
file "$setup" | grep -q "Nullsoft Installer" || fail "$setup is not an NSIS installer: $(file -b "$setup")"
[ "$(stat -c %s "$setup")" -gt 5000000 ] || fail "$setup is too small to hold MetaClaw"

step "macOS bundle layout"
LAYOUT_ONLY=1 build/macos/package.sh >/dev/null
plist=$WORK/macos/dmg/MetaClaw.app/Contents/Info.plist
if command -v python3 >/dev/null; then
  python3 - "$plist" "$VERSION" <<'PY' || fail "Info.plist is wrong"
import plistlib, sys
p = plistlib.load(open(sys.argv[1], "rb"))
want = {"CFBundleExecutable": "metaclaw", "CFBundleIdentifier": "com.metaclaw.MetaClaw",
        "CFBundlePackageType": "APPL", "CFBundleIconFile": "MetaClaw", "LSUIElement": True,
        "CFBundleVersion": sys.argv[2]}
bad = {k: (p.get(k), v) for k, v in want.items() if p.get(k) != v}
sys.exit("Info.plist: %r" % bad if bad else 0)
PY
else
  grep -q "<key>LSUIElement</key>" "$plist" || fail "Info.plist lacks LSUIElement"
fi
[ "$(ls "$WORK/macos/MetaClaw.iconset" | wc -l)" = 10 ] || fail "the iconset does not hold 10 images"
echo "check-dist: all packages look right"
