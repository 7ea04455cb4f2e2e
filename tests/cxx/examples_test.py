#!/usr/bin/env python3
"""End-to-end tests of the C++ front end on examples/cxx, against example_expectations.txt
(one line per expected finding: example, rule, line:column; `-` for an example without any).

    examples_test.py lint QLINT BUILD_DIR
        `qlint cxx -p BUILD_DIR` on every example (the build's compile_commands.json), JSON and SARIF.
    examples_test.py plugin CLANGXX PLUGIN -- FLAGS...
        each example compiled with `-fplugin`: its warnings are the expected ones; S1 compiled to
        an object with -Werror=qlint fails, with -Wno-qlint it builds silently.
    examples_test.py fixes QLINT APPLY CLANGXX -- FLAGS...
        S1 and S2 copied to a scratch directory: `qlint cxx --export-fixes` (each diagnostic named by
        its rule and message, at the finding, as clang-tidy exports them), clang-apply-replacements
        on the YAML, a rebuild with clang++, and `qlint cxx` finds nothing.
    examples_test.py runs QLINT BUILD_DIR
        every example copied to a scratch project, fixed in project mode (`qlint cxx -p
        --fix --unsafe-fixes`), built against LibTorch with CMake and run: each printed line
        that is not a hazard's (a clean form's report, a `kept:` line) is the same as the
        original program's (BUILD_DIR/examples/cxx), and no hazard's report is wrong any more.
"""
import shutil
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(SOURCE, "examples", "cxx")


def expected():
    found, examples = set(), []
    with open(os.path.join(HERE, "example_expectations.txt"), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if parts[0] not in examples:
                examples.append(parts[0])
            if parts[1] != "-":
                found.add((parts[0], parts[1], parts[2]))
    return examples, found


def compare(got, want, what):
    missing, extra = want - got, got - want
    for m in sorted(missing):
        print(f"{what}: missing {m}")
    for e in sorted(extra):
        print(f"{what}: unexpected {e}")
    return 0 if not missing and not extra else 1


def lint(qlint, build_dir):
    examples, want = expected()
    files = [os.path.join(EXAMPLES, e + ".cpp") for e in examples]
    run = subprocess.run([qlint, "cxx", "-p", build_dir, "--format", "json"] + files, capture_output=True, text=True)
    if run.returncode != 1:
        print(f"qlint cxx exited {run.returncode}, expected 1 (findings):\n{run.stdout[-2000:]}{run.stderr}")
        return 1
    report = json.loads(run.stdout)
    got = {(os.path.splitext(os.path.basename(d["file"]))[0], d["rule"], f'{d["line"]}:{d["column"]}')
           for d in report["diagnostics"]}
    status = compare(got, want, "qlint cxx")
    # C++ words: a finding's node is the call as written, never the IR's prim:: call; its
    # message, notes and fixes speak of quantize calls, not of QuantStubs and Python.
    for d in report["diagnostics"]:
        if d["node"].startswith("prim::"):
            print(f"qlint cxx --format json: node {d['node']} for {d['rule']} at {d['file']}:{d['line']}")
            status = 1
        for text in [d["message"], *d["notes"], *(s["description"] for s in d["suggestions"])]:
            if any(python in text for python in ("QuantStub", "self.", "torch.", "Python")):
                print(f"qlint cxx --format json: Python words for {d['rule']} at {d['file']}:{d['line']}: {text}")
                status = 1
    # SARIF renders the same findings, at the C++ locations.
    sarif = subprocess.run([qlint, "cxx", "-p", build_dir, "--format", "sarif"] + files, capture_output=True, text=True)
    run = json.loads(sarif.stdout)["runs"][0]
    results = run["results"]
    # The rules of a C++ run are described in C++ words: no QuantStub, no Python calls.
    for rule in run["tool"]["driver"]["rules"]:
        text = json.dumps(rule)
        for python in ("QuantStub", "torch.", "# qlint", "```python"):
            if python in text:
                print(f"qlint cxx --format sarif: rule {rule['id']} speaks Python ({python!r}): {text[:300]}")
                status = 1
    got = set()
    for r in results:
        where = r["locations"][0]["physicalLocation"]
        example = os.path.splitext(os.path.basename(where["artifactLocation"]["uri"]))[0]
        got.add((example, r["ruleId"], f'{where["region"]["startLine"]}:{where["region"]["startColumn"]}'))
    status |= compare(got, want, "qlint cxx --format sarif")
    return status


WARNING = re.compile(r"([\w./-]+\.cpp):(\d+):(\d+): (warning|error): .*\[([a-z-]+)\] \[(-Werror,)?-Wqlint\]$")


def plugin(clangxx, library, flags):
    examples, want = expected()
    got, status = set(), 0
    for example in examples:
        source = os.path.join(EXAMPLES, example + ".cpp")
        run = subprocess.run([clangxx, f"-fplugin={library}", "-fsyntax-only", source] + flags,
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{example}: clang++ -fplugin failed:\n{run.stderr}")
            status = 1
        for line in run.stderr.splitlines():
            m = WARNING.match(line)
            if m:
                got.add((example, m.group(5), f"{m.group(2)}:{m.group(3)}"))
    status |= compare(got, want, "clang++ -fplugin")
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(EXAMPLES, "s1_eq_one.cpp")
        obj = os.path.join(tmp, "s1.o")
        strict = subprocess.run([clangxx, f"-fplugin={library}", "-Wno-unknown-warning-option", "-Werror=qlint", "-c",
                                 source, "-o", obj] + flags, capture_output=True, text=True)
        if strict.returncode == 0 or "[-Werror,-Wqlint]" not in strict.stderr:
            print(f"-Werror=qlint did not fail the build of S1:\n{strict.stderr}")
            status = 1
        quiet = subprocess.run([clangxx, f"-fplugin={library}", "-Wno-unknown-warning-option", "-Wno-qlint", "-c",
                                source, "-o", obj] + flags, capture_output=True, text=True)
        if quiet.returncode != 0 or "qlint" in quiet.stderr or not os.path.exists(obj):
            print(f"-Wno-qlint: S1 should build silently:\n{quiet.stderr}")
            status = 1
        # The plugin reads no TorchScript archive: a remark at each model run says so, and a
        # -Werror=qlint build does not fail over it (public C++ round 20: it said nothing at all).
        runner = os.path.join(tmp, "runner.cpp")
        with open(runner, "w", encoding="utf-8") as f:
            f.write('#include <torch/script.h>\n'
                    'bool hit(const torch::Tensor& x) {\n'
                    '  torch::jit::Module m = torch::jit::load("m.pt");\n'
                    '  return (m.forward({x}).toTensor() == 1).any().item<bool>();\n'
                    '}\n')
        told = subprocess.run([clangxx, f"-fplugin={library}", "-Wno-unknown-warning-option", "-Werror=qlint",
                               "-fsyntax-only", runner] + flags, capture_output=True, text=True)
        if told.returncode != 0 or "4:11: remark: qlint: the TorchScript archive `m.pt` is not read by the compiler " \
                                   "plugin" not in told.stderr:
            print(f"a model run should get the plugin's remark, and build:\n{told.stderr}")
            status = 1
        # An archive named by a variable: the remark sends the user to `qlint cxx --archive`, which
        # reads it, not to an option the plugin has no use for (public C++ round 23).
        with open(runner, "w", encoding="utf-8") as f:
            f.write('#include <torch/script.h>\n'
                    'bool hit(const std::string& model_path, const torch::Tensor& x) {\n'
                    '  torch::jit::Module m = torch::jit::load(model_path);\n'
                    '  return (m.forward({x}).toTensor() == 1).any().item<bool>();\n'
                    '}\n')
        named = subprocess.run([clangxx, f"-fplugin={library}", "-Wno-unknown-warning-option", "-fsyntax-only",
                                runner] + flags, capture_output=True, text=True)
        if named.returncode != 0 or "the compiler plugin reads no archive (it loads no LibTorch): `qlint cxx " \
                                    "--archive model_path=PATH` checks this model's outputs" not in named.stderr:
            print(f"a model run whose archive a variable names should get the plugin's remark:\n{named.stderr}")
            status = 1
    return status


def exported_as_clang_tidy_does(yaml_file, sources, flags, qlint):
    """Each exported diagnostic is a finding of `qlint cxx --format json`: its rule, message and
    place (byte offset of its line and column), with at least one replacement."""
    import yaml  # python3-yaml, which pre-commit depends on
    with open(yaml_file, encoding="utf-8") as f:
        exported = yaml.safe_load(f)["Diagnostics"]
    run = subprocess.run([qlint, "cxx", "--format", "json"] + sources + ["--"] + flags, capture_output=True, text=True)
    findings = set()
    for d in json.loads(run.stdout)["diagnostics"]:
        with open(d["file"], encoding="utf-8") as f:
            lines = f.read().encode().split(b"\n")
        offset = sum(len(line) + 1 for line in lines[:d["line"] - 1]) + d["column"] - 1
        findings.add((d["rule"], d["message"], os.path.realpath(d["file"]), offset))
    status = 0 if exported else 1
    for e in exported:
        message = e["DiagnosticMessage"]
        key = (e["DiagnosticName"], message["Message"], os.path.realpath(message["FilePath"]), message["FileOffset"])
        if key not in findings:
            print(f"exported diagnostic {key} is no finding of qlint cxx: {sorted(findings)}")
            status = 1
        if not message["Replacements"]:
            print(f"exported diagnostic {key} has no replacement")
            status = 1
    return status


def fixes(qlint, apply, clangxx, flags):
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("seed.h", ".qlint.toml", "s1_eq_one.cpp", "s2_logical_not.cpp"):
            shutil.copy(os.path.join(EXAMPLES, name), tmp)
        sources = [os.path.join(tmp, "s1_eq_one.cpp"), os.path.join(tmp, "s2_logical_not.cpp")]
        fixes_dir = os.path.join(tmp, "fixes")
        os.mkdir(fixes_dir)
        export = subprocess.run([qlint, "cxx", "--export-fixes", os.path.join(fixes_dir, "qlint.yaml")] + sources +
                                ["--"] + flags, capture_output=True, text=True)
        if export.returncode != 1:
            print(f"qlint cxx --export-fixes should report the findings (exit 1):\n{export.stdout}{export.stderr}")
            return 1
        status |= exported_as_clang_tidy_does(os.path.join(fixes_dir, "qlint.yaml"), sources, flags, qlint)
        applied = subprocess.run([apply, fixes_dir], capture_output=True, text=True)
        if applied.returncode != 0:
            print(f"clang-apply-replacements failed:\n{applied.stdout}{applied.stderr}")
            return 1
        with open(sources[0], encoding="utf-8") as f:
            fixed = f.read()
        if "seed::quantize_int16(mask.index({Slice(), Slice(), Slice(), None}).to(torch::kFloat))" not in fixed:
            print(f"S1 after the fixes:\n{fixed}")
            status = 1
        for source in sources:
            build = subprocess.run([clangxx, "-fsyntax-only", source] + flags, capture_output=True, text=True)
            if build.returncode != 0:
                print(f"{source} does not compile after the fixes:\n{build.stderr}")
                status = 1
        again = subprocess.run([qlint, "cxx"] + sources + ["--"] + flags, capture_output=True, text=True)
        if again.returncode != 0:
            print(f"qlint cxx still finds something after the fixes:\n{again.stdout}{again.stderr}")
            status = 1
    return status


def program_lines(program):
    run = subprocess.run([program], capture_output=True, text=True)
    return run.returncode, run.stdout.splitlines()


def runs(qlint, build_dir):
    """Fixes never harm: the fixed programs print what the originals print, but for the hazards."""
    examples, _ = expected()
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "cxx")
        shutil.copytree(EXAMPLES, project)
        build = os.path.join(tmp, "build")
        configure = subprocess.run(["cmake", "-S", project, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
                                   capture_output=True, text=True)
        if configure.returncode != 0:
            print(f"cmake failed:\n{configure.stdout}{configure.stderr}")
            return 1
        fix = subprocess.run([qlint, "cxx", "-p", build, "--fix", "--unsafe-fixes"], capture_output=True, text=True,
                             cwd=project)
        if fix.returncode not in (0, 1) or "was checked again" not in fix.stdout:
            print(f"qlint cxx --fix in project mode failed ({fix.returncode}):\n{fix.stdout}{fix.stderr}")
            return 1
        made = subprocess.run(["cmake", "--build", build, "-j", "2"], capture_output=True, text=True)
        if made.returncode != 0:
            print(f"the fixed examples do not build:\n{made.stdout[-3000:]}{made.stderr[-3000:]}")
            return 1
        for example in examples:
            rc_before, before = program_lines(os.path.join(build_dir, "examples", "cxx", "cxx_" + example))
            rc_after, after = program_lines(os.path.join(build, "cxx_" + example))
            if rc_before != 0 or rc_after != 0 or len(before) != len(after):
                print(f"{example}: exit {rc_before} -> {rc_after}, output\n{before}\n->\n{after}")
                status = 1
                continue
            for was, now in zip(before, after):
                hazard = "clean" not in was and not was.startswith("kept:")
                if not hazard and was != now:
                    print(f"{example}: a line that is no hazard's changed with the fixes:\n  {was}\n  {now}")
                    status = 1
                if hazard and "wrong after quantization" in now:
                    print(f"{example}: still wrong after the fixes: {now}")
                    status = 1
            print(f"{example}: " + " | ".join(f"{a} -> {b}" if a != b else a for a, b in zip(before, after)))
    return status


def main():
    if sys.argv[1] == "lint":
        return lint(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "fixes":
        return fixes(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[sys.argv.index("--") + 1:])
    if sys.argv[1] == "runs":
        return runs(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "plugin":
        return plugin(sys.argv[2], sys.argv[3], sys.argv[sys.argv.index("--") + 1:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
