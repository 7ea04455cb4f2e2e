#!/usr/bin/env python3
"""Runs `qlint cxx` on a C++ fixture and checks its inline expectations, in clang-tidy's style.

    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: `==` compares {{.*}} [eq-nonzero-const]

expects a diagnostic on the line above (or [[@LINE]], [[@LINE+N]]) at that column, whose
"message [rule]" contains the text; `{{...}}` is a regular expression. `note:` instead of
`warning:` expects a located note on standard error (`file:line:column: note: text`). Every
diagnostic and located note must be expected, and every expectation met; a fixture without
expectations asserts silence. Each located note must also be in the JSON document's `notes` and,
as a warning, in SARIF's toolExecutionNotifications: a model qlint did not analyse is no clean
result to a CI job that reads those.

A line `// QLINT-ARGS: ARGS` adds command-line arguments; @BUILD@ in them is the build directory.

    // CHECK-FIXES: torch::Tensor keep = {{.*}}.to(torch::kFloat);

Lines like this make the check run `qlint cxx --fix` (on a copy whose CHECK comments are blanked,
as clang-tidy's check_clang_tidy.py does, so a pattern cannot match its own comment) and expect
each pattern, in order, on a later line of the fixed file than the one before. A fixture with
CHECK-FIXES lines must be changed by the fixes; one without is not fixed at all.

usage: check_fixture.py QLINT BUILD_DIR FIXTURE -- COMPILER_FLAGS...
"""
import json
import os
import re
import subprocess
import sys
import tempfile

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
                found.append((number + int(m.group(1) or 0), int(m.group(2)), m.group(4).strip(), number,
                              m.group(3) == "note"))
    return found


def fix_expectations(text):
    return [(number, m.group(1).strip()) for number, line in enumerate(text.splitlines(), start=1)
            for m in [re.search(r"//\s*CHECK-FIXES:\s*(.*)$", line)] if m]


def check_fixes(fixture, original, fixed, expected):
    """Each CHECK-FIXES pattern on a line of `fixed` after the previous pattern's line."""
    failures = []
    if fixed == original:
        failures.append(f"{fixture}: expected fixes, but qlint cxx --fix left the file as it was")
    lines = fixed.splitlines()
    position = 0
    for written, text in expected:
        regex = pattern(text)
        hit = next((i for i in range(position, len(lines)) if regex.search(lines[i])), None)
        if hit is None:
            failures.append(f"{fixture}:{written}: CHECK-FIXES not found after line {position} of the fixed file: "
                            f"{text}")
        else:
            position = hit + 1
    if failures:
        failures.append("the fixed file:\n" + fixed)
    return failures


def fixable_copy(tmp, fixture, source):
    """A copy with the CHECK comments blanked (`//`, same line numbers), reached through a
    symbolic link, mode 0640: --fix must write through the link (which stays one) and keep the
    mode, as it does for models."""
    blanked = re.sub(r"//\s*CHECK-[A-Z-]*:[^\n]*", "//", source)
    real = os.path.join(tmp, "real.cpp")
    with open(real, "w", encoding="utf-8") as f:
        f.write(blanked)
    os.chmod(real, 0o640)
    target = os.path.join(tmp, os.path.basename(fixture))
    os.symlink(real, target)
    return blanked, real, target


def fix_run(qlint, fixture, source, extra, flags, expected_fixes):
    """`qlint cxx --fix` on a copy: the CHECK-FIXES hold, the file's link and mode stay, nothing
    is left behind; and with a fix that breaks the file (a failpoint), nothing is written."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        blanked, real, target = fixable_copy(tmp, fixture, source)
        run = subprocess.run([qlint, "cxx", "--isolated", "--fix"] + extra + [target, "--"] + flags,
                             capture_output=True, text=True)
        if run.returncode not in (0, 1) or "was checked again" not in run.stdout:
            return [f"{fixture}: qlint cxx --fix failed ({run.returncode}):\n{run.stdout}{run.stderr}"]
        with open(target, encoding="utf-8") as f:
            failures += check_fixes(fixture, blanked, f.read(), expected_fixes)
        if not os.path.islink(target) or os.stat(real).st_mode & 0o777 != 0o640:
            failures.append(f"{fixture}: --fix replaced the symbolic link or changed the mode")
        if sorted(os.listdir(tmp)) != sorted(["real.cpp", os.path.basename(fixture)]):
            failures.append(f"{fixture}: --fix left files behind: {os.listdir(tmp)}")
    with tempfile.TemporaryDirectory() as tmp:
        blanked, real, target = fixable_copy(tmp, fixture, source)
        env = dict(os.environ, QLINT_FAILPOINT="corrupt-fixed-source")
        run = subprocess.run([qlint, "cxx", "--isolated", "--fix"] + extra + [target, "--"] + flags,
                             capture_output=True, text=True, env=env)
        with open(real, encoding="utf-8") as f:
            unchanged = f.read() == blanked
        if run.returncode != 2 or not unchanged or "nothing was written" not in run.stderr:
            failures.append(f"{fixture}: a fixed source that does not compile must not be written (exit "
                            f"{run.returncode}, file {'unchanged' if unchanged else 'CHANGED'}):\n{run.stderr}")
    return failures


def located_notes(stderr, fixture):
    """The notes on standard error located in the fixture: `file:line:column: note: text`."""
    notes = []
    for line in stderr.splitlines():
        m = re.match(r"(.*?):(\d+):(\d+): note: (.*)$", line)
        if m and os.path.basename(m.group(1)) == os.path.basename(fixture):
            notes.append((int(m.group(2)), int(m.group(3)), m.group(4)))
    return notes


def machine_readable_notes(qlint, fixture, extra, flags, report, stderr_notes):
    """The notes on stderr, as JSON `notes` and SARIF notifications give them."""
    failures = []
    name = os.path.basename(fixture)
    in_json = sorted((n["line"], n["column"], n["message"]) for n in report.get("notes", [])
                     if n["file"] and os.path.basename(n["file"]) == name)
    if in_json != sorted(stderr_notes):
        failures.append(f"{fixture}: JSON notes {in_json} differ from the notes on stderr {sorted(stderr_notes)}")
    if not stderr_notes:
        return failures
    run = subprocess.run([qlint, "cxx", "--isolated", "--format", "sarif"] + extra + [fixture, "--"] + flags,
                         capture_output=True, text=True)
    notifications = json.loads(run.stdout)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    in_sarif = sorted((n["locations"][0]["physicalLocation"]["region"]["startLine"],
                       n["locations"][0]["physicalLocation"]["region"]["startColumn"], n["message"]["text"])
                      for n in notifications if n["level"] == "warning" and n.get("locations") and
                      n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("/" + name))
    if in_sarif != sorted(stderr_notes):
        failures.append(f"{fixture}: SARIF notifications {in_sarif} differ from the notes on stderr")
    return failures


def main():
    qlint, build, fixture = sys.argv[1], sys.argv[2], sys.argv[3]
    flags = sys.argv[sys.argv.index("--") + 1:]
    extra = []
    with open(fixture, encoding="utf-8") as f:
        source = f.read()
    for line in source.splitlines():
        m = re.search(r"//\s*QLINT-ARGS:\s*(.*)$", line)
        if m:
            extra += m.group(1).replace("@BUILD@", build).split()
    run = subprocess.run([qlint, "cxx", "--isolated", "--format", "json"] + extra + [fixture, "--"] + flags,
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        print(f"qlint cxx failed ({run.returncode}):\n{run.stdout}{run.stderr}")
        return 1
    failures = []
    expected_fixes = fix_expectations(source)
    if expected_fixes:
        failures += fix_run(qlint, fixture, source, extra, flags, expected_fixes)
    report = json.loads(run.stdout)
    if report.get("errors"):
        print("qlint cxx reported input errors:", report["errors"])
        return 1
    found = {False: [(d["line"], d["column"], f'{d["message"]} [{d["rule"]}]') for d in report["diagnostics"]],
             True: located_notes(run.stderr, fixture)}
    failures += machine_readable_notes(qlint, fixture, extra, flags, report, found[True])
    unmatched = {kind: list(items) for kind, items in found.items()}
    for line, column, text, written, note in expectations(fixture):
        regex = pattern(text)
        hit = next((d for d in unmatched[note] if d[0] == line and d[1] == column and regex.search(d[2])), None)
        if hit is None:
            near = [d for d in found[note] if d[0] == line]
            failures.append(f"{fixture}:{written}: expected at {line}:{column}: {text}\n  found on that line: {near}")
        else:
            unmatched[note].remove(hit)
    for note, items in unmatched.items():
        for line, column, text in items:
            failures.append(f"{fixture}:{line}:{column}: unexpected {'note' if note else 'diagnostic'}: {text}")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
