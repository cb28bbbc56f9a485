#!/usr/bin/env bash
# Builds the Linux packages into dist/ (make dist-linux):
#   metaclaw_<version>_<arch>.deb              binary, menu entry, hicolor icons
#   metaclaw-<version>-linux-<arch>.tar.gz     the same, with install.sh
# ARCHES="amd64 arm64" builds several architectures (default amd64); the
# binary is pure Go (CGO_ENABLED=0). Needs dpkg-deb.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
ARCHES=${ARCHES:-amd64}
MAINTAINER=${DEB_MAINTAINER:-MetaClaw developers <metaclaw@users.noreply.github.com>}
ICON_SIZES="16 22 24 32 48 64 128 256 512"

debver=$(debian_version)
icons=$WORK/linux-icons
rm -rf "$icons"
app_icons "$icons"
mkdir -p "$DIST"

for arch in $ARCHES; do
  work=$WORK/linux-$arch
  rm -rf "$work"
  mkdir -p "$work"
  step "metaclaw $VERSION for linux/$arch"
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$work/metaclaw" ./app/cmd/metaclaw

  root=$work/deb
  install -Dm755 "$work/metaclaw" "$root/usr/bin/metaclaw"
  install -Dm644 build/linux/metaclaw.desktop "$root/usr/share/applications/metaclaw.desktop"
  for s in $ICON_SIZES; do
    install -Dm644 "$icons/metaclaw-$s.png" "$root/usr/share/icons/hicolor/${s}x${s}/apps/metaclaw.png"
  done
  install -Dm644 README.md "$root/usr/share/doc/metaclaw/README.md"
  mkdir -p "$root/DEBIAN"
  size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
  sed -e "s|@VERSION@|$debver|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$MAINTAINER|" -e "s|@SIZE@|$size|" \
    build/linux/control.in > "$root/DEBIAN/control"
  deb=$DIST/metaclaw_${debver}_$arch.deb
  step "$deb"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null

  name=metaclaw-$VERSION-linux-$arch
  stage=$work/$name
  install -Dm755 "$work/metaclaw" "$stage/metaclaw"
  install -Dm644 build/linux/metaclaw.desktop "$stage/metaclaw.desktop"
  install -Dm755 build/linux/install.sh "$stage/install.sh"
  install -Dm644 README.md "$stage/README.md"
  for s in $ICON_SIZES; do
    install -Dm644 "$icons/metaclaw-$s.png" "$stage/icons/hicolor/${s}x${s}/apps/metaclaw.png"
  done
  step "$DIST/$name.tar.gz"
  tar --owner=0 --group=0 --numeric-owner -czf "$DIST/$name.tar.gz" -C "$work" "$name"
done
