#!/usr/bin/env bash
# Validates qlint's SARIF output against the SARIF 2.1.0 JSON schema (tests/sarif, installed by
# scripts/setup with npm ci): findings with and without fixes from every example set, clean
# models, the opt-in rule, a run where a model cannot be read, and paths that must be
# percent-escaped or lie outside the working directory (file: URIs; docs/code-scanning.md).
#   sarif_schema_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
validator=$src/tests/sarif/validate.js
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -d "$src/tests/sarif/node_modules/@microsoft/jest-sarif" ]; then
  echo "FAILED: the SARIF schema is not installed; run scripts/setup (npm ci in tests/sarif)"
  exit 1
fi

# The validator must reject a log that breaks the schema, or passing means nothing.
if node "$validator" "$src/tests/sarif/broken_log.sarif" > "$tmp/broken.out"; then
  echo "FAILED: the validator accepted tests/sarif/broken_log.sarif"
  exit 1
fi
grep -q "startLine should be >= 1" "$tmp/broken.out" || { echo "FAILED: unexpected validator output:"; cat "$tmp/broken.out"; exit 1; }

# qlint's exit code says whether it found something; here only the log's shape matters, but a
# crash (or a usage error) must not pass as a finding. qlint runs in $src, or in $run_dir.
sarif_of() {
  local name=$1 status=0
  shift
  (cd "${run_dir:-$src}" && "$build/qlint" check --isolated --format sarif "$@") > "$tmp/$name.sarif" 2> "$tmp/$name.err" || status=$?
  if [ "$status" -gt 2 ]; then
    echo "FAILED: qlint $* exited with $status"
    cat "$tmp/$name.err"
    exit 1
  fi
  logs+=("$tmp/$name.sarif")
}

logs=()
sarif_of findings "$build/examples/seed" "$build/examples/rules" "$build/examples/qat" "$build/examples/sim"
sarif_of torchvision "$build/examples/torchvision"
sarif_of clean "$build/examples/clean"
sarif_of suppressions --select unused-suppression "$build/examples/rules/suppressed.pt"
sarif_of unreadable "$build/tests/models/state_dict.pt" "$build/examples/seed/s1_eq_one.pt"
# Model files whose names need escaping (a space, #, %, ?, non-ASCII) outside the working
# directory, and a run whose working directory holds none of the files.
odd="$tmp/my models #1/模型 100%"
mkdir -p "$odd"
cp "$build/examples/seed/s1_eq_one.pt" "$odd/s1 eq?.pt"
cp "$build/tests/models/state_dict.pt" "$odd/state dict.pt"
sarif_of escaped "$odd/s1 eq?.pt" "$odd/state dict.pt"
mkdir -p "$tmp/elsewhere"
run_dir=$tmp/elsewhere sarif_of elsewhere "$build/examples/seed/s1_eq_one.pt"
node "$validator" "${logs[@]}"

# The logs above must hold what they are meant to: fixes, no results, a failed invocation.
grep -q '"fixes"' "$tmp/findings.sarif" || { echo "FAILED: no result with fixes in findings.sarif"; exit 1; }
grep -q '"results": \[\]' "$tmp/clean.sarif" || { echo "FAILED: clean models gave results"; exit 1; }
grep -q '"executionSuccessful": false' "$tmp/unreadable.sarif" || { echo "FAILED: unreadable model not reported"; exit 1; }
# Relative URIs are relative to %SRCROOT%, the working directory as a file URI ending in `/`.
grep -q '"uriBaseId": "%SRCROOT%"' "$tmp/findings.sarif" || { echo "FAILED: no %SRCROOT%-relative URI in findings.sarif"; exit 1; }
grep -q '"originalUriBaseIds"' "$tmp/findings.sarif" || { echo "FAILED: findings.sarif has no originalUriBaseIds"; exit 1; }
grep -q '"uri": "file:///.*/"' "$tmp/findings.sarif" || { echo "FAILED: %SRCROOT% is not a file URI ending in /"; exit 1; }
grep -qF 'my%20models%20%231/%E6%A8%A1%E5%9E%8B%20100%25/state%20dict.pt"' "$tmp/escaped.sarif" \
  || { echo "FAILED: the unreadable model's URI is not percent-escaped:"; grep '"uri"' "$tmp/escaped.sarif"; exit 1; }
if grep -q '"uriBaseId"' "$tmp/elsewhere.sarif"; then
  echo "FAILED: files outside the working directory must have file: URIs:"
  grep -A1 '"uri"' "$tmp/elsewhere.sarif"
  exit 1
fi
grep -q '"uri": "file:///.*/examples/seed/s1_eq_one.py"' "$tmp/elsewhere.sarif" \
  || { echo "FAILED: no file URI of examples/seed/s1_eq_one.py in elsewhere.sarif"; exit 1; }
