#!/usr/bin/env bash
# Runs docs/server.md's Neovim 0.7 snippet, as written there, in Debian's Neovim (headless) on a
# workspace made of the seed example S1, and drives the editor's own LSP client against
# `qlint server` with tests/editor/neovim_driver.lua.
#
#   tests/editor/neovim_test.sh QLINT SOURCE_DIR
set -euo pipefail
qlint="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
source_dir=$2
here="$(cd "$(dirname "$0")" && pwd)"

command -v nvim > /dev/null || { echo "nvim is not installed (scripts/setup installs Debian's neovim)" >&2; exit 1; }
ws="$(mktemp -d "${TMPDIR:-/tmp}/qlint-nvim-XXXXXX")"
trap 'rm -rf "$ws"' EXIT

# The workspace: S1's source and its archive exported there, so the archive names this source.
cp "$source_dir/examples/seed/s1_eq_one.py" "$ws/"
(cd "$ws" && /usr/bin/python3 "$source_dir/examples/export.py" --out models --inputs inputs s1_eq_one.py > /dev/null)
printf 'models = ["models"]\n' > "$ws/.qlint.toml"

# The snippet: the first ```lua block after the "### Neovim 0.7" heading.
awk '/^### Neovim 0.7/ { section = 1 } section && /^```lua/ { inside = 1; next }
     inside && /^```/ { exit } inside { print }' "$source_dir/docs/server.md" > "$ws/init.lua"
grep -q 'start_client' "$ws/init.lua" || { echo "no Neovim 0.7 snippet in docs/server.md" >&2; exit 1; }

# `qlint` as the snippet calls it: from PATH. A private config and state directory: no user
# plugin or swap file takes part.
export PATH="$(dirname "$qlint"):$PATH"
export XDG_CONFIG_HOME="$ws/.config" XDG_DATA_HOME="$ws/.data" XDG_STATE_HOME="$ws/.state" XDG_CACHE_HOME="$ws/.cache"
cd "$ws"
timeout 300 nvim --headless -n -i NONE -u "$ws/init.lua" s1_eq_one.py -c "luafile $here/neovim_driver.lua"
