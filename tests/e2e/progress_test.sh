#!/usr/bin/env bash
# `qlint sim` shows a progress line on stderr when many batches run and stderr is a terminal
# (script(1) gives it one), and none when stderr is not a terminal.
#   progress_test.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd="$build/qlint sim $build/examples/sim/two_stub_convnet.pt --random-input 1x3x8x8,1x4 --batches 20"

script -qec "$cmd > /dev/null" /dev/null | tr '\r' '\n' > "$tmp/terminal.log"
grep -q "^calibrating 20/20 batches" "$tmp/terminal.log" || { echo "FAILED: no calibration progress"; cat "$tmp/terminal.log"; exit 1; }
grep -q "^simulating 20/20 batches" "$tmp/terminal.log" || { echo "FAILED: no simulation progress"; cat "$tmp/terminal.log"; exit 1; }

$cmd > /dev/null 2> "$tmp/pipe.log"
[ ! -s "$tmp/pipe.log" ] || { echo "FAILED: progress written to a pipe"; cat "$tmp/pipe.log"; exit 1; }
echo "progress line on a terminal only"
