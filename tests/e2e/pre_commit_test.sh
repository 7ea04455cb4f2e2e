#!/usr/bin/env bash
# pre-commit, for real: in a fresh git repository with a hazardous and a clean model, the
# `qlint` hook fails, `qlint-fix` rewrites the model, and then `qlint` passes. Then an FX
# export: `qlint` checks it, `qlint-fix` leaves it alone (qlint cannot rewrite FX exports).
#   pre_commit_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PRE_COMMIT_HOME="$tmp/cache" HOME="$tmp" PATH="$build:$PATH"
export GIT_AUTHOR_NAME=qlint GIT_AUTHOR_EMAIL=qlint@localhost GIT_COMMITTER_NAME=qlint GIT_COMMITTER_EMAIL=qlint@localhost

git init -q "$tmp/repo"
cd "$tmp/repo"
cp "$build/examples/seed/s1_eq_one.pt" hazard.pt
cp "$build/examples/seed/s6_separate_stubs.pt" clean.pt
git add .

fail() { echo "FAILED: $1"; cat "$2"; exit 1; }

if pre-commit try-repo "$src" qlint --all-files > first.log 2>&1; then fail "the qlint hook passed a hazardous model" first.log; fi
grep -q "\[eq-nonzero-const\]" first.log || fail "the qlint hook did not name the hazard" first.log

# A hook that modifies files fails the run, as pre-commit hooks do; the model is fixed.
pre-commit try-repo "$src" qlint-fix --all-files > fix.log 2>&1 || true
grep -q "Resolved 3 of 3 problems in hazard.pt" fix.log || fail "qlint-fix did not fix the model" fix.log
git add .

pre-commit try-repo "$src" qlint --all-files > second.log 2>&1 || fail "the qlint hook still fails after the fix" second.log

cp "$build/examples/fx/seed/s1_eq_one.fx.json" hazard.fx.json
git add .
if pre-commit try-repo "$src" qlint --all-files > fx.log 2>&1; then fail "the qlint hook passed a hazardous FX export" fx.log; fi
grep -q "\[eq-nonzero-const\]" fx.log || fail "the qlint hook did not name the hazard in the FX export" fx.log
pre-commit try-repo "$src" qlint-fix --all-files > fxfix.log 2>&1 || fail "qlint-fix took the FX export" fxfix.log
echo "pre-commit: qlint failed, qlint-fix fixed, qlint passed; FX exports are checked, not fixed"
