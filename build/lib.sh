# Shared by the packaging scripts in build/: sourced, not run.
# Inputs: VERSION (default: git describe, else "dev"); GO (default: go).
# Sets VERSION, NUMVER (dotted numbers only), LDFLAGS, GO, and the dist/ paths.

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
VERSION=${VERSION#v}
# A release version starts with x.y ("1.2", "1.2.3", "1.2.3-4-gabc"); any
# other (a bare commit hash, "dev") counts as 0.0.0. NUMVER is the release's
# x.y.z, for the fields that take numbers only (Windows' VIProductVersion).
if [[ $VERSION =~ ^([0-9]+)\.([0-9]+)(\.([0-9]+))? ]]; then
  NUMVER="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[4]:-0}"
  RELEASE=1
else
  NUMVER=0.0.0
  RELEASE=0
fi
LDFLAGS="-s -w -X main.version=$VERSION"
DIST=dist
WORK=dist/.work

# debian_version turns VERSION into a Debian version: digits first, then
# only [A-Za-z0-9.+~]. "1.2.0" stays; "1.2.0-3-gabc" becomes "1.2.0+3.gabc";
# "dev" becomes "0.0.0~dev", "039d9db-dirty" "0.0.0~039d9db.dirty".
debian_version() {
  local v=$VERSION
  if [ "$RELEASE" = 1 ]; then
    v=${v/-/+}
  else
    v="0.0.0~$v"
  fi
  v=${v//-/.}
  echo "${v//[^A-Za-z0-9.+~]/.}"
}

# app_icons DIR writes the application icon (PNGs 16..1024, metaclaw.ico).
app_icons() {
  "$GO" run ./assets/internal/iconsgen -app "$1"
}

step() { echo "==> $*"; }
