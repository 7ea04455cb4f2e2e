#!/usr/bin/env bash
# Installs qlint into a temporary prefix and runs the installed binary; builds the .deb and
# checks that it depends on the Debian runtime packages.
#   install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
test -x "$tmp/prefix/bin/qlint" || { echo "FAILED: no bin/qlint"; exit 1; }
test -f "$tmp/prefix/share/man/man1/qlint.1" || { echo "FAILED: no man page"; exit 1; }
test -f "$tmp/prefix/share/doc/qlint/json-output.md" || { echo "FAILED: no docs"; exit 1; }
"$tmp/prefix/bin/qlint" rules | grep -q eq-nonzero-const || { echo "FAILED: installed qlint rules"; exit 1; }
status=0
"$tmp/prefix/bin/qlint" check "$build/examples/seed/s1_eq_one.pt" > "$tmp/out" || status=$?
[ "$status" -eq 1 ] && grep -q "\[eq-nonzero-const\]" "$tmp/out" || { echo "FAILED: installed qlint check"; cat "$tmp/out"; exit 1; }

(cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -G DEB > cpack.log 2>&1) || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/qlint_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends" | grep -q "libtorch1.13" || { echo "FAILED: Depends lacks libtorch1.13: $depends"; exit 1; }
contents=$(dpkg-deb -c "$deb")
grep -q "\./usr/bin/qlint$" <<< "$contents" || { echo "FAILED: the .deb has no /usr/bin/qlint"; exit 1; }
echo "installed and packaged: Depends: $depends"
