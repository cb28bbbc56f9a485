#!/usr/bin/env bash
# Builds the Windows packages into dist/ (make dist-windows):
#   metaclaw-<version>-windows-amd64.exe   the GUI program (-H windowsgui: no
#                                          console window; what the Start menu
#                                          and sign-in start)
#   MetaClaw-<version>-setup.exe           the NSIS installer: both programs,
#                                          Start-menu entry, uninstaller,
#                                          optional start at sign-in
# The installer also holds metaclaw-cli.exe, the same program built for the
# console, for `metaclaw-cli status` and the other commands in a terminal.
# Everything is pure Go (CGO_ENABLED=0; app/autostart writes the Run key
# itself), so no mingw is needed. Needs makensis (apt-get install nsis).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
command -v makensis >/dev/null || { echo "dist-windows needs makensis: apt-get install nsis" >&2; exit 1; }

work=$WORK/windows-amd64
rm -rf "$work"
mkdir -p "$work" "$DIST"
step "metaclaw $VERSION for windows/amd64 (GUI and console builds)"
export CGO_ENABLED=0 GOOS=windows GOARCH=amd64
"$GO" build -trimpath -ldflags "$LDFLAGS -H windowsgui" -o "$work/metaclaw.exe" ./app/cmd/metaclaw
"$GO" build -trimpath -ldflags "$LDFLAGS" -o "$work/metaclaw-cli.exe" ./app/cmd/metaclaw
unset CGO_ENABLED GOOS GOARCH
app_icons "$work/icons"
cp "$work/icons/metaclaw.ico" "$work/metaclaw.ico"
cp "$work/metaclaw.exe" "$DIST/metaclaw-$VERSION-windows-amd64.exe"

setup=$DIST/MetaClaw-$VERSION-setup.exe
step "$setup"
makensis -V2 -DVERSION="$VERSION" -DVIVERSION="$NUMVER.0" -DSRCDIR="$(pwd)/$work" \
  -DOUTFILE="$(pwd)/$setup" build/windows/installer.nsi
