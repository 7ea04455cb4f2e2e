#!/usr/bin/env bash
# Runs one test script of this folder (a real LSP client against `qlint server`; server_test.js
# by default) once scripts/setup has installed the client (npm ci in tests/lsp).
#   run_test.sh [--script NAME.js] QLINT SOURCE_DIR BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script=server_test.js
if [ "${1:-}" = --script ]; then
  script=$2
  shift 2
fi
if [ ! -d "$here/node_modules/vscode-languageserver-protocol" ]; then
  echo "FAILED: the LSP client is not installed; run scripts/setup (npm ci in tests/lsp)"
  exit 1
fi
exec node "$here/$script" "$@"
