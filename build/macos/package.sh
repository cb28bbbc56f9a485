#!/usr/bin/env bash
# Builds MetaClaw.app and MetaClaw-<version>.dmg into dist/ (make dist-macos).
# Runs on a Mac with the Xcode command line tools: the tray needs cgo
# (Cocoa), and lipo, iconutil, codesign and hdiutil are macOS tools.
#   1. a universal binary: arm64 and amd64 builds joined with lipo
#   2. MetaClaw.app: Contents/MacOS/metaclaw, Contents/Info.plist
#      (LSUIElement: a menu-bar app, no Dock icon), Contents/Resources/
#      MetaClaw.icns made by iconutil from the generated icons
#   3. codesign: with CODESIGN_IDENTITY="Developer ID Application: …" a
#      hardened-runtime signature, otherwise ad hoc (-s -)
#   4. the .dmg (hdiutil), with a link to /Applications
#   5. with NOTARY_PROFILE (a `xcrun notarytool store-credentials` profile):
#      notarization, then stapling
# LAYOUT_ONLY=1 (any OS) stops after laying out the bundle without a binary
# or .icns: build/check-dist.sh uses it to check Info.plist.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

work=$WORK/macos
app=$work/dmg/MetaClaw.app
rm -rf "$work"
mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources" "$DIST"
sed -e "s|@VERSION@|$VERSION|" -e "s|@NUMVER@|$NUMVER|" build/macos/Info.plist.in > "$app/Contents/Info.plist"
app_icons "$work/icons"
iconset=$work/MetaClaw.iconset
mkdir -p "$iconset"
for s in 16 32 128 256 512; do
  cp "$work/icons/metaclaw-$s.png" "$iconset/icon_${s}x${s}.png"
  cp "$work/icons/metaclaw-$((s * 2)).png" "$iconset/icon_${s}x${s}@2x.png"
done
if [ "${LAYOUT_ONLY:-}" = 1 ]; then
  step "laid out $app (no binary, no .icns)"
  exit 0
fi
if [ "$(uname -s)" != Darwin ]; then
  cat >&2 <<'MSG'
dist-macos runs on a Mac: the tray uses Cocoa through cgo, and the bundle
needs lipo, iconutil, codesign and hdiutil from the Xcode command line tools
(xcode-select --install). Here, `make check` type-checks the macOS sources
(build/check-darwin.sh) and LAYOUT_ONLY=1 build/macos/package.sh lays out
the bundle.
MSG
  exit 1
fi

for arch in arm64 amd64; do
  step "metaclaw $VERSION for darwin/$arch"
  CGO_ENABLED=1 GOOS=darwin GOARCH=$arch "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$work/metaclaw-$arch" ./app/cmd/metaclaw
done
lipo -create -output "$app/Contents/MacOS/metaclaw" "$work/metaclaw-arm64" "$work/metaclaw-amd64"
iconutil -c icns -o "$app/Contents/Resources/MetaClaw.icns" "$iconset"
plutil -lint "$app/Contents/Info.plist"

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  step "signing with $CODESIGN_IDENTITY"
  codesign --force --options runtime --timestamp -s "$CODESIGN_IDENTITY" "$app"
else
  step "signing ad hoc (set CODESIGN_IDENTITY for a Developer ID)"
  codesign --force -s - "$app"
fi
codesign --verify --strict "$app"

ln -s /Applications "$work/dmg/Applications"
dmg=$DIST/MetaClaw-$VERSION.dmg
step "$dmg"
hdiutil create -volname MetaClaw -srcfolder "$work/dmg" -format UDZO -ov "$dmg"
if [ -n "${NOTARY_PROFILE:-}" ]; then
  step "notarizing"
  xcrun notarytool submit "$dmg" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "$dmg"
fi
