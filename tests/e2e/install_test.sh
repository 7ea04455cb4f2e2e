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
test -f "$tmp/prefix/lib/qlint/libqlint_torch.so" || { echo "FAILED: no lib/qlint/libqlint_torch.so"; exit 1; }
test -f "$tmp/prefix/share/man/man1/qlint.1" || { echo "FAILED: no man page"; exit 1; }
test -f "$tmp/prefix/share/doc/qlint/json-output.md" || { echo "FAILED: no docs"; exit 1; }
"$tmp/prefix/bin/qlint" rules | grep -q eq-nonzero-const || { echo "FAILED: installed qlint rules"; exit 1; }
status=0
"$tmp/prefix/bin/qlint" check "$build/examples/seed/s1_eq_one.pt" > "$tmp/out" || status=$?
[ "$status" -eq 1 ] && grep -q "\[eq-nonzero-const\]" "$tmp/out" || { echo "FAILED: installed qlint check"; cat "$tmp/out"; exit 1; }

# The installed FX exporter, and the installed qlint reading what it wrote.
PYTHONPATH="$src/examples/common" "$tmp/prefix/bin/qlint-fx-export" "$src/examples/seed/s1_eq_one.py" -o "$tmp/s1.fx.json" \
  || { echo "FAILED: installed qlint-fx-export"; exit 1; }
status=0
"$tmp/prefix/bin/qlint" check "$tmp/s1.fx.json" > "$tmp/fx.out" || status=$?
[ "$status" -eq 1 ] && grep -q "\[eq-nonzero-const\]" "$tmp/fx.out" || { echo "FAILED: installed qlint on an FX export"; cat "$tmp/fx.out"; exit 1; }
PYTHONPATH="$tmp/prefix/lib/python3/dist-packages" /usr/bin/python3 -c "import qlint_fx; qlint_fx.export" \
  || { echo "FAILED: the installed qlint_fx module does not import"; exit 1; }
# The installed qlint on an ONNX model, and the installed export helper.
status=0
"$tmp/prefix/bin/qlint" check "$build/examples/onnx/seed/s1_eq_one.onnx" > "$tmp/onnx.out" || status=$?
[ "$status" -eq 1 ] && grep -q "\[eq-nonzero-const\]" "$tmp/onnx.out" || { echo "FAILED: installed qlint on an ONNX model"; cat "$tmp/onnx.out"; exit 1; }
PYTHONPATH="$tmp/prefix/lib/python3/dist-packages" /usr/bin/python3 -c "import qlint_onnx; qlint_onnx.export" \
  || { echo "FAILED: the installed qlint_onnx module does not import"; exit 1; }

(cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -G DEB > cpack.log 2>&1) || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/qlint_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends" | grep -q "libtorch1.13" || { echo "FAILED: Depends lacks libtorch1.13: $depends"; exit 1; }
contents=$(dpkg-deb -c "$deb")
grep -q "\./usr/bin/qlint$" <<< "$contents" || { echo "FAILED: the .deb has no /usr/bin/qlint"; exit 1; }
grep -q "\./usr/lib/qlint/libqlint_torch.so$" <<< "$contents" || { echo "FAILED: the .deb has no LibTorch plugin"; exit 1; }
grep -q "\./usr/bin/qlint-fx-export$" <<< "$contents" || { echo "FAILED: the .deb has no qlint-fx-export"; exit 1; }
grep -q "\./usr/lib/python3/dist-packages/qlint_fx.py$" <<< "$contents" || { echo "FAILED: the .deb has no qlint_fx module"; exit 1; }
grep -q "\./usr/lib/python3/dist-packages/qlint_onnx.py$" <<< "$contents" || { echo "FAILED: the .deb has no qlint_onnx module"; exit 1; }
echo "$depends" | grep -q "libonnx1" || { echo "FAILED: Depends lacks libonnx1: $depends"; exit 1; }
[ "$(dpkg-deb -f "$deb" Recommends)" = "python3-torch" ] || { echo "FAILED: the .deb does not recommend python3-torch"; exit 1; }
echo "installed and packaged: Depends: $depends"
