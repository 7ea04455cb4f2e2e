"""The editor set-ups of docs/server.md are valid in their own languages, and its feature table
names tests that exist.

    server_docs_test.py SOURCE_DIR

- every ```json block parses (a leading `// file name` comment line is the doc's, not JSON's);
- every ```toml block parses with Python's tomllib (Helix's languages.toml, qlint's keys);
- every ```js block compiles with `node --check` (the VS Code extension);
- every ```lua block has balanced `function`/`do`/`then` ... `end` (Neovim 0.7 runs one of them
  in tests/editor; this catches the other's slips without a Lua of its own);
- every file the feature table's "tested by" column names is a test in tests/.
Prints one line per block and exits 1 on the first failure.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import tomllib


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


def lua_balanced(code):
    code = re.sub(r"--[^\n]*", "", code)
    code = re.sub(r"'(\\.|[^'\\])*'|\"(\\.|[^\"\\])*\"", "''", code)
    opened = len(re.findall(r"\b(function|do|then)\b", code)) - len(re.findall(r"\belseif\b", code))
    # `while ... do`, `for ... do` open one block with `do`; `if ... then` with `then`.
    return opened == len(re.findall(r"\bend\b", code))


def main():
    source_dir = pathlib.Path(sys.argv[1])
    text = (source_dir / "docs" / "server.md").read_text()
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, re.S)
    for language, code in blocks:
        first = code.splitlines()[0] if code else ""
        if language == "json":
            body = "\n".join(line for line in code.splitlines() if not line.startswith("//"))
            try:
                json.loads(body)
            except json.JSONDecodeError as e:
                fail(f"a json block does not parse ({e}):\n{code}")
        elif language == "toml":
            try:
                tomllib.loads(code)
            except tomllib.TOMLDecodeError as e:
                fail(f"a toml block does not parse ({e}):\n{code}")
        elif language == "js":
            with tempfile.NamedTemporaryFile("w", suffix=".js") as f:
                f.write(code)
                f.flush()
                run = subprocess.run(["node", "--check", f.name], capture_output=True, text=True)
                if run.returncode != 0:
                    fail(f"a js block does not compile:\n{run.stderr}")
        elif language == "lua":
            if not lua_balanced(code):
                fail(f"a lua block's blocks do not balance:\n{code}")
        else:
            continue
        print(f"ok - {language}: {first.strip()[:70]}")

    table = text[text.index("## What clients expect"):]
    tested = set(re.findall(r"\b([\w.]+\.(?:js|cpp|sh))\b", table))
    tests = {p.name for p in (source_dir / "tests").rglob("*") if p.is_file() and "node_modules" not in p.parts}
    missing = tested - tests
    if missing:
        fail(f"the feature table names tests that do not exist: {sorted(missing)}")
    print(f"ok - the feature table's tests exist: {', '.join(sorted(tested))}")


if __name__ == "__main__":
    main()
