#!/usr/bin/env bash
# Type-checks every package for macOS (GOOS=darwin, cgo files included)
# with gopls, which needs no C compiler: a Linux machine cannot build the
# darwin tray (Cocoa through cgo), but it can catch type errors in it.
# Needs gopls v0.23.0 (v0.24 needs Go 1.27):
#   go install golang.org/x/tools/gopls@v0.23.0
# Without gopls it says so and succeeds, unless METACLAW_E2E=1.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export PATH="$PATH:$(go env GOPATH)/bin"
if ! command -v gopls >/dev/null; then
  msg="check-darwin: gopls not found (go install golang.org/x/tools/gopls@v0.23.0)"
  if [ "${METACLAW_E2E:-}" = 1 ]; then echo "$msg" >&2; exit 1; fi
  echo "$msg; skipped"
  exit 0
fi
for arch in arm64; do # amd64 differs only in dependencies' assembly
  export GOOS=darwin GOARCH=$arch CGO_ENABLED=1
  # Packages of ours with their own cgo files (idle's IOKit call) cannot be
  # checked by gopls without clang and the macOS SDK: every C.name reads as
  # undefined. They are vetted with CGO_ENABLED=0 instead, which checks all
  # their Go except the file that imports "C" (kept to a few thin calls).
  # Cgo inside dependencies (systray's Cocoa) is fine for gopls.
  files=$(go list -f '{{if not .CgoFiles}}{{range .GoFiles}}{{$.Dir}}/{{.}} {{end}}{{end}}' ./...)
  cgopkgs=$(go list -f '{{if .CgoFiles}}{{.ImportPath}}{{end}}' ./...)
  # gopls check exits 0 even when it reports problems.
  out=$(gopls check -severity=error $files 2>&1) || { echo "$out"; exit 1; }
  if [ -n "$out" ]; then
    echo "check-darwin ($arch):"
    echo "$out"
    exit 1
  fi
  if [ -n "$cgopkgs" ]; then CGO_ENABLED=0 go vet $cgopkgs; fi
done
echo "check-darwin: the macOS build type-checks"
