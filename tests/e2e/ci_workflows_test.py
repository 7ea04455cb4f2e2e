"""Runs the CI set-ups docs/code-scanning.md shows, as written there, and checks what they upload.

    ci_workflows_test.py QLINT SOURCE_DIR

- The GitHub Actions workflow (the ```yaml block that starts `# .github/workflows/qlint.yml`):
  valid YAML with the triggers, the permission code scanning needs, a checkout, a step that
  writes qlint's SARIF and an upload-sarif step that uploads that file even when the step before
  failed. Its `run` steps are run in order by bash in a scratch repository (the seed example S1,
  and the `./scripts/export_models.sh` the workflow calls, which exports it into models/): the
  log must validate against the SARIF 2.1.0 schema (tests/sarif/validate.js) and locate every
  result in a file of the repository, relative to its root, as code scanning needs. Then a model
  that cannot be read is added: the step fails (exit 2), and the log it still writes says why.
- The GitLab CI job (the block that starts `# .gitlab-ci.yml`): valid YAML whose Code Quality
  report artifact is the file its script writes, kept `when: always`; the script run as written
  gives a report with the fields GitLab reads (check_name, description, a severity GitLab knows,
  unique fingerprints, a path relative to the repository's root that exists, a line).
Prints one line per check and exits 1 on the first failure.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


def documented_yaml(source_dir, first_line):
    """The ```yaml block of docs/code-scanning.md whose first line is `first_line`."""
    text = (source_dir / "docs" / "code-scanning.md").read_text()
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        if block.startswith(first_line + "\n"):
            return yaml.safe_load(block)
    fail(f"docs/code-scanning.md has no yaml block starting with {first_line!r}")


def make_repository(source_dir, root):
    """A user's repository: S1's source and an export script that writes its archive to models/."""
    shutil.copy(source_dir / "examples" / "seed" / "s1_eq_one.py", root / "s1_eq_one.py")
    script = root / "scripts" / "export_models.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\nset -e\n"
                      f"/usr/bin/python3 {source_dir / 'examples' / 'export.py'} --out models --inputs inputs s1_eq_one.py\n")
    script.chmod(0o755)


def run_steps(commands, root, qlint):
    """Runs each command with bash in `root`, qlint on PATH; returns the first failing exit code or 0."""
    env = dict(os.environ, PATH=f"{pathlib.Path(qlint).parent}:{os.environ['PATH']}")
    for command in commands:
        run = subprocess.run(["bash", "-e", "-c", command], cwd=root, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            return run.returncode, run.stderr
    return 0, ""


def output_file(command, fmt):
    match = re.search(r"qlint check --format " + fmt + r"\b.*>\s*(\S+)", command)
    return match.group(1) if match else None


def check_github(source_dir, qlint, root):
    workflow = documented_yaml(source_dir, "# .github/workflows/qlint.yml")
    # YAML 1.1 (PyYAML) reads the key `on` as True; GitHub reads it as "on".
    triggers = workflow.get("on", workflow.get(True))
    if not {"push", "pull_request"} <= set(triggers):
        fail(f"the workflow does not run on push and pull_request: {triggers}")
    [job] = workflow["jobs"].values()
    if job.get("permissions", {}).get("security-events") != "write":
        fail("the workflow's job lacks `security-events: write`, which upload-sarif needs")
    steps = job["steps"]
    if not steps[0].get("uses", "").startswith("actions/checkout@"):
        fail("the workflow's first step does not check the repository out")
    runs = [step["run"] for step in steps if "run" in step]
    sarif = next((output_file(run, "sarif") for run in runs if output_file(run, "sarif")), None)
    if sarif is None:
        fail(f"no step writes `qlint check --format sarif` to a file: {runs}")
    upload = [step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    if len(upload) != 1 or upload[0]["with"]["sarif_file"] != sarif or upload[0].get("if") != "always()":
        fail(f"the workflow does not upload {sarif} with `if: always()`: {upload}")

    code, stderr = run_steps(runs, root, qlint)
    if code != 0:
        fail(f"the workflow's steps failed ({code}): {stderr}")
    log_file = root / sarif
    validate_sarif(source_dir, log_file)
    log = json.loads(log_file.read_text())
    results = log["runs"][0]["results"]
    for result in results:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        if location.get("uriBaseId") != "%SRCROOT%" or not (root / location["uri"]).is_file():
            fail(f"a result is not in a file of the repository, relative to its root: {location}")
    if not any(r["ruleId"] == "eq-nonzero-const" and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 16
               for r in results):
        fail(f"no eq-nonzero-const on line 16 of s1_eq_one.py in {log_file}")
    print(f"ok - the GitHub workflow's steps upload a valid SARIF log of {len(results)} results, "
          "each in a file of the repository")

    (root / "models" / "broken.pt").write_bytes(b"PK\x03\x04 not an archive")
    code, _ = run_steps(runs, root, qlint)
    if code != 2:
        fail(f"the qlint step exited {code} on an unreadable model, not 2")
    validate_sarif(source_dir, log_file)
    invocation = json.loads(log_file.read_text())["runs"][0]["invocations"][0]
    if invocation["executionSuccessful"] or "broken.pt" not in json.dumps(invocation["toolExecutionNotifications"]):
        fail(f"the log of a failed run does not name the unreadable model: {invocation}")
    (root / "models" / "broken.pt").unlink()
    print("ok - an unreadable model fails the step, and the log uploaded anyway names it")


def validate_sarif(source_dir, log_file):
    run = subprocess.run(["node", str(source_dir / "tests" / "sarif" / "validate.js"), str(log_file)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{log_file} is not valid SARIF 2.1.0: {run.stdout}{run.stderr}")


def check_gitlab(source_dir, qlint, root):
    pipeline = documented_yaml(source_dir, "# .gitlab-ci.yml")
    [job] = pipeline.values()
    script = job["script"]
    report = next((output_file(line, "gitlab") for line in script if output_file(line, "gitlab")), None)
    artifacts = job["artifacts"]
    if report is None or artifacts["reports"]["codequality"] != report or artifacts.get("when") != "always":
        fail(f"the job does not keep its Code Quality report {report} (when: always): {artifacts}")
    code, stderr = run_steps(script, root, qlint)
    if code != 0:
        fail(f"the GitLab job's script failed ({code}): {stderr}")
    issues = json.loads((root / report).read_text())
    if not isinstance(issues, list) or not issues:
        fail(f"the Code Quality report is no list of issues: {issues}")
    fingerprints = set()
    for issue in issues:
        if not issue.get("check_name") or not issue.get("description") or issue.get("severity") not in GITLAB_SEVERITIES:
            fail(f"an issue lacks what GitLab reads: {issue}")
        path = issue["location"]["path"]
        if os.path.isabs(path) or not (root / path).is_file() or issue["location"]["lines"]["begin"] < 1:
            fail(f"an issue is not on a line of a file of the repository: {issue}")
        fingerprints.add(issue["fingerprint"])
    if len(fingerprints) != len(issues):
        fail("two issues share a fingerprint (GitLab would show one)")
    if not any(i["check_name"] == "eq-nonzero-const" and i["location"] == {"path": "s1_eq_one.py", "lines": {"begin": 16}}
               for i in issues):
        fail(f"no eq-nonzero-const at s1_eq_one.py:16 in {issues}")
    for artifact in artifacts.get("paths", []):
        if artifact.endswith(".sarif"):
            validate_sarif(source_dir, root / artifact)
    print(f"ok - the GitLab job's script writes a Code Quality report of {len(issues)} issues GitLab can show")


def main():
    qlint, source_dir = str(pathlib.Path(sys.argv[1]).resolve()), pathlib.Path(sys.argv[2]).resolve()
    with tempfile.TemporaryDirectory(prefix="qlint-ci-") as scratch:
        root = pathlib.Path(scratch)
        make_repository(source_dir, root)
        check_github(source_dir, qlint, root)
        check_gitlab(source_dir, qlint, root)


if __name__ == "__main__":
    main()
