#!/usr/bin/env python3
"""Runs `qlint cxx` on a C++ fixture and checks its inline expectations, in clang-tidy's style.

    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: `==` compares {{.*}} [eq-nonzero-const]

expects a diagnostic on the line above (or [[@LINE]], [[@LINE+N]]) at that column, whose
"message [rule]" contains the text; `{{...}}` is a regular expression. Every diagnostic must be
expected, and every expectation met; a fixture without expectations asserts silence.

A line `// QLINT-ARGS: ARGS` adds command-line arguments; @BUILD@ in them is the build directory.

usage: check_fixture.py QLINT BUILD_DIR FIXTURE -- COMPILER_FLAGS...
"""
import json
import re
import subprocess
import sys

EXPECT = re.compile(r"//\s*CHECK-MESSAGES:\s*:\[\[@LINE([+-]\d+)?\]\]:(\d+):\s*(warning|error|note):\s*(.*)$")


def pattern(text):
    """clang-tidy's message syntax: literal text with {{regex}} parts."""
    out, pos = "", 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        out += re.escape(text[pos:m.start()]) + m.group(1)
        pos = m.end()
    return re.compile(out + re.escape(text[pos:]))


def expectations(path):
    found = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            m = EXPECT.search(line)
            if m:
                found.append((number + int(m.group(1) or 0), int(m.group(2)), m.group(4).strip(), number))
    return found


def main():
    qlint, build, fixture = sys.argv[1], sys.argv[2], sys.argv[3]
    flags = sys.argv[sys.argv.index("--") + 1:]
    extra = []
    with open(fixture, encoding="utf-8") as f:
        for line in f:
            m = re.search(r"//\s*QLINT-ARGS:\s*(.*)$", line)
            if m:
                extra += m.group(1).replace("@BUILD@", build).split()
    run = subprocess.run([qlint, "cxx", "--isolated", "--format", "json"] + extra + [fixture, "--"] + flags,
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        print(f"qlint cxx failed ({run.returncode}):\n{run.stdout}{run.stderr}")
        return 1
    report = json.loads(run.stdout)
    if report.get("errors"):
        print("qlint cxx reported input errors:", report["errors"])
        return 1
    diagnostics = [(d["line"], d["column"], f'{d["message"]} [{d["rule"]}]') for d in report["diagnostics"]]
    failures = []
    unmatched = list(diagnostics)
    for line, column, text, written in expectations(fixture):
        regex = pattern(text)
        hit = next((d for d in unmatched if d[0] == line and d[1] == column and regex.search(d[2])), None)
        if hit is None:
            near = [d for d in diagnostics if d[0] == line]
            failures.append(f"{fixture}:{written}: expected at {line}:{column}: {text}\n  found on that line: {near}")
        else:
            unmatched.remove(hit)
    for line, column, text in unmatched:
        failures.append(f"{fixture}:{line}:{column}: unexpected diagnostic: {text}")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
