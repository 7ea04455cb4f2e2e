#!/usr/bin/env bash
# scripts/add_rule on a copy of the source tree: it refuses bad names and existing rules, and a
# new rule, with no other file edited by hand, is registered (rules/rules.cmake is the only
# list), builds, and passes its fixture and the registry tests. Builds only the LibTorch-free
# unit tests. Usage: add_rule_test.sh SOURCE_DIR
set -euo pipefail
export LC_ALL=C
source_dir=$(cd "$1" && pwd)
new_id=mask-probe-hazard # sorts between existing rules, so the registry must sort it in
new_stem=mask_probe_hazard

work=$(mktemp -d "${TMPDIR:-/tmp}/qlint-add-rule.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/src
mkdir "$tree"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The checkout's files: tracked ones and new ones git does not ignore, without build trees.
list=$work/files
: >"$list"
while IFS= read -r -d '' file; do
  top=${file%%/*}
  if [ "$top" != "$file" ] && [ -e "$source_dir/$top/CMakeCache.txt" ]; then continue; fi
  [ -f "$source_dir/$file" ] || continue # deleted in the work tree
  printf '%s\0' "$file" >>"$list"
done < <(git -C "$source_dir" ls-files -z --cached --others --exclude-standard)
tar -C "$source_dir" --null -T "$list" -cf - | tar -C "$tree" -xf -
[ -x "$tree/scripts/add_rule" ] || fail "scripts/add_rule was not copied"

snapshot() { (cd "$tree" && find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 md5sum); }
snapshot >"$work/before"

# Refusals: one line on stderr, exit 2, nothing written.
refuses() {
  local status=0
  "$tree/scripts/add_rule" "$@" >"$work/out" 2>"$work/err" || status=$?
  [ "$status" = 2 ] || fail "add_rule $* exited $status, not 2"
  [ "$(wc -l <"$work/err")" = 1 ] || fail "add_rule $* did not say why in one line: $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "add_rule $* printed: $(cat "$work/out")"
}
refuses Mask_Probe
refuses mask--probe
refuses 9-lives
refuses bool-arith
refuses shared-stub-mask
refuses
snapshot >"$work/after_refusals"
cmp -s "$work/before" "$work/after_refusals" || fail "a refused add_rule changed files"

(cd "$tree" && scripts/add_rule "$new_id") >"$work/add_rule.log" 2>&1 || {
  cat "$work/add_rule.log"
  fail "scripts/add_rule $new_id failed"
}
cat "$work/add_rule.log"
refuses "$new_id"

# Exactly these files appear or change.
snapshot >"$work/after"
changed=$({ diff "$work/before" "$work/after" || true; } | sed -n 's/^[<>] [0-9a-f]*  \.\///p' | sort -u | tr '\n' ' ')
want="examples/rules/$new_stem.py rules/$new_stem.cpp rules/rules.cmake tests/e2e/example_expectations.txt tests/fixtures/rules/$new_stem.qir "
[ "$changed" = "$want" ] || fail "add_rule changed: $changed; expected: $want"
grep -qx "  rules/$new_stem.cpp" "$tree/rules/rules.cmake" || fail "rules/rules.cmake does not list rules/$new_stem.cpp"
sed -n '/^set(QLINT_RULE_SOURCES/,/^)/p' "$tree/rules/rules.cmake" | grep '^  ' >"$work/listed"
sort -c "$work/listed" || fail "rules/rules.cmake is not sorted"
grep -q "^rules/$new_stem  *-$" "$tree/tests/e2e/example_expectations.txt" ||
  fail "tests/e2e/example_expectations.txt does not list rules/$new_stem"
clang-format --dry-run -Werror "$tree/rules/$new_stem.cpp" || fail "rules/$new_stem.cpp is not clang-formatted"

# Configure and build only the LibTorch-free unit tests (no optimization: this is about wiring).
build=$tree/build
cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=None >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log"
  fail "configuring the copy failed"
}
cmake --build "$build" -j2 --target qlint_unit_tests >"$work/build.log" 2>&1 || {
  tail -50 "$work/build.log"
  fail "building qlint_unit_tests with the new rule failed"
}
grep -qx "QLINT_RULE($new_stem)" "$build/generated/rules/rule_list.inc" || fail "the generated rule list lacks $new_stem"

tests=$build/tests/qlint_unit_tests
"$tests" --gtest_list_tests >"$work/list"
grep -q "^  HasAFixture/$new_stem  # GetParam() = \"$new_id\"" "$work/list" ||
  fail "the registry does not list $new_id (Rules/RegisteredRule)"
grep -q "^  DiagnosticsMatchInlineExpectations/$new_stem\b" "$work/list" || fail "no fixture test for $new_stem"
"$tests" --gtest_filter="Fixtures/RuleFixture.*:Rules/RegisteredRule.*:RuleRegistry.*" >"$work/run.log" 2>&1 || {
  cat "$work/run.log"
  fail "the unit tests fail with the new rule"
}
for name in "Fixtures/RuleFixture.DiagnosticsMatchInlineExpectations/$new_stem" \
  "Rules/RegisteredRule.HasAFixture/$new_stem" "RuleRegistry.IsSortedAndDocumented"; do
  grep -q "^\[       OK \] $name " "$work/run.log" || fail "$name did not pass"
done
echo "PASS: scripts/add_rule $new_id gives a registered rule whose fixture passes"
