"""Applies the fixes in qlint's SARIF output to the example models' Python source, as an editor
or code-scanning integration would, and checks the result with PyTorch and qlint itself.

    apply_fixes_test.py QLINT SOURCE_DIR BUILD_DIR

For every scripted example (examples/seed, examples/rules) whose SARIF log offers fixes, from
its TorchScript archive and from its FX export (build/examples/fx):
- each fix's artifact URI is resolved as a SARIF viewer would: a relative URI against its
  uriBaseId, which the run's originalUriBaseIds maps to the working directory's file URI
  (qlint ran in SOURCE_DIR), or a file: URI as it is, percent-decoded;
- the first fix of each result is applied to a copy of examples/ (identical replacements
  that two results share are applied once; a fix that overlaps a different one is skipped);
- the fixed Python still defines a model that torch.jit.script accepts;
- its float outputs are bit-identical to the original's on the example input and on three
  seeded random inputs (qlint's fixes keep float results);
- qlint finds nothing in the re-exported fixed model beyond what had no fix;
- an FX export offers no more fixes than the TorchScript archive of the same example (fewer
  where a fix passes a float value down a call, which FX inlines).
Prints one line per model and exits 1 if any check fails.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from urllib.parse import unquote, urljoin, urlsplit

import torch


def qlint_results(qlint, source_dir, model, fmt):
    run = subprocess.run([qlint, "check", "--isolated", "--format", fmt, model], cwd=source_dir,
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"qlint exited with {run.returncode} on {model}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def overlaps(a, b):
    """Whether two replacements on one file touch the same text (insertions touch nothing)."""
    (a_start, a_end), (b_start, b_end) = a, b
    return a_start < b_end and b_start < a_end


def span(region):
    return ((region["startLine"], region["startColumn"]), (region["endLine"], region["endColumn"]))


def artifact_path(location, base_ids):
    """The local path of a SARIF artifactLocation: a relative URI resolved against the absolute
    URI its uriBaseId stands for (originalUriBaseIds, which may chain), or a file: URI."""
    uri = location["uri"]
    if "uriBaseId" in location:
        base = location["uriBaseId"]
        if base not in base_ids:
            raise ValueError(f"uriBaseId {base} of {uri} is not in the run's originalUriBaseIds")
        base_uri = base_ids[base]
        base_uri = artifact_uri(base_uri, base_ids) if "uriBaseId" in base_uri else base_uri["uri"]
        if not base_uri.endswith("/"):
            raise ValueError(f"the URI of {base} does not end in a slash: {base_uri}")
        if urlsplit(uri).scheme or uri.startswith("/"):
            raise ValueError(f"{uri} has uriBaseId {base} but is not a relative path reference")
        uri = urljoin(base_uri, uri)
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        raise ValueError(f"{uri} is not a local file URI (a relative URI needs a uriBaseId)")
    return unquote(parts.path, errors="strict")


def artifact_uri(location, base_ids):
    """The absolute URI of an artifactLocation, for uriBaseIds defined by other ones."""
    return pathlib.Path(artifact_path(location, base_ids)).as_uri() + ("/" if location["uri"].endswith("/") else "")


def choose_fixes(results, base_ids):
    """{path: {(span, text)}} from the first fix of each result, and the number of results fixed."""
    chosen, fixed = {}, 0
    for result in results:
        if not result.get("fixes"):
            continue
        edits = [(artifact_path(change["artifactLocation"], base_ids), span(r["deletedRegion"]),
                  r["insertedContent"]["text"])
                 for change in result["fixes"][0]["artifactChanges"] for r in change["replacements"]]
        conflict = any(edit[1] != other_span and overlaps(edit[1], other_span)
                       for edit in edits for other_span, _ in chosen.get(edit[0], ()))
        if conflict:
            continue
        for uri, where, text in edits:
            chosen.setdefault(uri, set()).add((where, text))
        fixed += 1
    return chosen, fixed


def apply(path, replacements):
    with open(path) as f:
        lines = f.read().split("\n")
    # From the bottom up, so that earlier positions stay valid.
    for ((start_line, start_col), (end_line, end_col)), text in sorted(replacements, reverse=True):
        before = lines[start_line - 1][:start_col - 1]
        after = lines[end_line - 1][end_col - 1:]
        lines[start_line - 1:end_line] = (before + text + after).split("\n")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def outputs(model, batch):
    with torch.no_grad():
        out = model(*batch)
    return out if isinstance(out, (tuple, list)) else (out,)


OFFERED = {}  # (example set, stem) -> {"pt": fixes applied, "fx.json": ...}


def check_model(qlint, source_dir, model_path, work):
    stem = os.path.basename(model_path).removesuffix(".fx.json").removesuffix(".pt")
    example_set = os.path.basename(os.path.dirname(model_path))
    run = qlint_results(qlint, source_dir, model_path, "sarif")["runs"][0]
    results = run["results"]
    base_ids = run.get("originalUriBaseIds", {})
    # qlint ran in source_dir (whose physical path getcwd gives): %SRCROOT% is its file URI.
    root = os.path.realpath(source_dir)
    expected_root = pathlib.Path(root).as_uri() + "/"
    if base_ids.get("%SRCROOT%", {}).get("uri") != expected_root:
        return f"{os.path.basename(model_path)}: originalUriBaseIds is {base_ids}, not %SRCROOT% at {expected_root}"
    chosen, fixed = choose_fixes(results, base_ids)
    kind = "fx.json" if model_path.endswith(".fx.json") else "pt"
    OFFERED.setdefault((example_set, stem), {})[kind] = fixed
    if not chosen:
        return None
    copy = os.path.join(work, os.path.basename(model_path))
    shutil.copytree(os.path.join(source_dir, "examples"), os.path.join(copy, "examples"))
    for path, replacements in chosen.items():
        relative = os.path.relpath(os.path.realpath(path), root)
        if relative.startswith(os.pardir + os.sep):
            return f"{os.path.basename(model_path)}: a fix edits {path}, outside {root}"
        apply(os.path.join(copy, relative), replacements)

    original = export.load_example(os.path.join(source_dir, "examples", example_set, stem + ".py"))
    # Each patched copy under a module name of its own: a model with a TorchScript class (a
    # `Masked` pair) is patched once for its archive and once for its FX export.
    patched = export.load_example(os.path.join(copy, "examples", example_set, stem + ".py"),
                                  "_patched_" + kind.replace(".", "_"))
    torch.manual_seed(0)
    original_model = original.Model().eval()
    torch.manual_seed(0)
    fixed_model = torch.jit.script(patched.Model().eval())
    example = original.example_input()
    example = tuple(example) if isinstance(example, (tuple, list)) else (example,)
    torch.manual_seed(1)
    # Random batches like the example; non-float inputs (a bool mask) stay as the example has them.
    def like(t):
        if isinstance(t, dict):  # a batch dict passed as one argument
            return {key: like(value) for key, value in t.items()}
        return torch.randn_like(t) if t.is_floating_point() else t
    for b, batch in enumerate([example] + [tuple(like(t) for t in example) for _ in range(3)]):
        # One seed for both runs: forward may draw random numbers (a random start point).
        torch.manual_seed(100 + b)
        expected = outputs(original_model, batch)
        torch.manual_seed(100 + b)
        actual = outputs(fixed_model, batch)
        if not all(torch.equal(e, a) for e, a in zip(expected, actual)):
            return f"float outputs changed after applying the SARIF fixes to {stem}"

    fixed_path = os.path.join(copy, stem + ".pt")
    fixed_model.save(fixed_path)
    # A bias that masks with -inf or a stand-in for it (`(1.0 - m) * finfo.min`), once made from the
    # float mask, is what the fix leaves on purpose: no quant point holds it, and the finding says
    # to keep it out of the quantized domain, with no fix of its own.
    remaining = [d for d in qlint_results(qlint, source_dir, fixed_path, "json")["diagnostics"]
                 if "keep it out of the quantized domain" not in d["message"] or d.get("suggestions")]
    if len(remaining) > len(results) - fixed:
        rules = ", ".join(d["rule"] for d in remaining)
        return f"{stem}: {fixed} of {len(results)} findings had fixes, but {len(remaining)} remain ({rules})"
    print(f"{os.path.basename(model_path)}: applied {fixed} SARIF fixes; float outputs identical; {len(remaining)} findings remain")
    return ""


def fx_findings_that_differ(source_dir):
    """The examples whose FX export finds other things than their archive, and says why
    (tests/e2e/fx_example_expectations.txt): "zoo/mask_cat", ..."""
    models = set()
    with open(os.path.join(source_dir, "tests", "e2e", "fx_example_expectations.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                models.add(line.split()[0])
    return models


def main():
    qlint, source_dir, build_dir = (os.path.abspath(a) for a in sys.argv[1:4])
    sys.path.insert(0, os.path.join(source_dir, "examples"))
    global export
    import export  # examples/export.py: loads an example the way the build exported it

    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as work:
        for example_set in ("seed", "rules", "zoo", "fx/seed", "fx/rules", "fx/zoo"):
            directory = os.path.join(build_dir, "examples", example_set)
            for name in sorted(os.listdir(directory)):
                try:
                    outcome = check_model(qlint, source_dir, os.path.join(directory, name), work)
                except Exception as error:  # a fix that breaks the Python is a failure, not a crash
                    first = next((line for line in str(error).splitlines() if line.strip()), "")
                    outcome = f"{name}: {type(error).__name__}: {first}"
                if outcome is None:
                    continue
                checked += 1
                if outcome:
                    failures.append(outcome)
    differing = fx_findings_that_differ(source_dir)
    for (example_set, stem), offered in sorted(OFFERED.items()):
        # FX inlines child modules into one graph, so a fix that passes a float value down a call
        # (an extra parameter on the child's method) exists only for the TorchScript archive.
        # An export whose findings legitimately differ (fx_example_expectations.txt) may differ here too.
        if f"{example_set}/{stem}" in differing:
            continue
        if "fx.json" in offered and offered["fx.json"] > offered.get("pt", 0):
            failures.append(f"{example_set}/{stem}: the FX export offers {offered['fx.json']} fixes, "
                            f"the TorchScript archive {offered.get('pt')}")
    for failure in failures:
        print("FAILED:", failure)
    if checked == 0:
        print("FAILED: no example offered a SARIF fix")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
