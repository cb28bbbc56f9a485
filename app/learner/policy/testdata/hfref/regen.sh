#!/bin/sh
# regen.sh regenerates the golden files of app/learner/policy with Hugging
# Face's JavaScript reference implementations. The npm packages go to a
# cache directory, never into the repository.
#
# golden_kimi.mjs reads ../golden/kimi_python.json, which kimi_ref.py
# writes (it needs Moonshot's tool_declaration_ts.py; run it first when the
# Kimi cases change).
#
#   sh regen.sh            rewrite ../golden
#   sh regen.sh OUTDIR     write to OUTDIR instead (the e2e test compares)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${HFREF_PREFIX:-$HOME/.cache/metaclaw-hfref}
mkdir -p "$prefix"
cp "$here/package.json" "$prefix/package.json"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error >/dev/null
HFREF_PREFIX=$prefix node "$here/golden.mjs" "$@"
HFREF_PREFIX=$prefix node "$here/golden_kimi.mjs" "$@"
