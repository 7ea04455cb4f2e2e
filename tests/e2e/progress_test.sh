#!/usr/bin/env bash
# `qlint sim` shows a progress line on stderr when many batches run and stderr is a terminal
# (script(1) gives it one), also for the passes of --sensitivity, and none when stderr is not a
# terminal or the report is JSON.
#   progress_test.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd="$build/qlint sim $build/examples/sim/two_stub_convnet.pt --random-input 1x3x8x8,1x4 --batches 20"

script -qec "$cmd > /dev/null" /dev/null | tr '\r' '\n' > "$tmp/terminal.log"
grep -q "^calibrating 20/20 batches" "$tmp/terminal.log" || { echo "FAILED: no calibration progress"; cat "$tmp/terminal.log"; exit 1; }
grep -q "^simulating 20/20 batches" "$tmp/terminal.log" || { echo "FAILED: no simulation progress"; cat "$tmp/terminal.log"; exit 1; }

# The passes of --sensitivity (and --attribute) show theirs too; JSON never has one.
script -qec "$cmd --sensitivity > /dev/null" /dev/null | tr '\r' '\n' > "$tmp/passes.log"
grep -q "^sensitivity: pass 4 20/20 batches \[####################\]" "$tmp/passes.log" || { echo "FAILED: no progress of the passes"; cat "$tmp/passes.log"; exit 1; }
script -qec "$cmd --sensitivity --format json > /dev/null" /dev/null > "$tmp/json.log"
[ ! -s "$tmp/json.log" ] || { echo "FAILED: progress beside JSON"; cat "$tmp/json.log"; exit 1; }

$cmd > /dev/null 2> "$tmp/pipe.log"
[ ! -s "$tmp/pipe.log" ] || { echo "FAILED: progress written to a pipe"; cat "$tmp/pipe.log"; exit 1; }
echo "progress line on a terminal only"
