#!/usr/bin/env bash
# Runs server_test.js (a real LSP client against `qlint server`) once scripts/setup has
# installed the client (npm ci in tests/lsp).
#   run_test.sh QLINT SOURCE_DIR BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/vscode-languageserver-protocol" ]; then
  echo "FAILED: the LSP client is not installed; run scripts/setup (npm ci in tests/lsp)"
  exit 1
fi
exec node "$here/server_test.js" "$@"
