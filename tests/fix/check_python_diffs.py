"""Checks the Python changes `qlint --fix` suggests (its `python_diff`) with PyTorch itself.

    check_python_diffs.py SOURCE_DIR MANIFEST.json

MANIFEST is a list of {"model": "seed/s1_eq_one", "diff": "...", "notes": ["..."]}: the
example model examples/<model>.py and the report's `python_diff` and `python_notes` for it.
For each, the diff is applied to a copy of the examples tree; it must apply exactly (every
context and removed line as in the file). Then, unless a note says the change is incomplete in
a way this check cannot complete, the patched example's `Model` must compute in float what the
original computes, bit for bit, on its `example_input()` (the same seeded construction, the
original's state loaded), and an example that was exported scripted must still script.

A note `add \\`self.NAME = QuantStub()\\` to the __init__ of the module \\`PATH\\`` (or of a class's
modules) is done as it says before the comparison; any other note leaves only the apply check.
Each example runs in a forked child of this process, so examples never share imported modules.
Exits non-zero with one line per example that broke.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import traceback

import torch

ADD_STUB = re.compile(r"add `self\.(\w+) = QuantStub\(\)` to the __init__ of "
                      r"(?:the module `([\w.]*)`|class `\w+` \(modules ((?:`[\w.]+`(?:, )?)+)\))$")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_diff(diff, root):
    """Applies a unified diff to the files under `root`; raises ValueError where it does not fit."""
    lines = diff.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("--- "):
            i += 1
            continue
        path = lines[i + 1][len("+++ b/"):]
        with open(os.path.join(root, path)) as f:
            old = f.read().splitlines()
        new, at = [], 0
        i += 2
        while i < len(lines) and lines[i].startswith("@@"):
            hunk = HUNK.match(lines[i])
            start = int(hunk.group(1)) - 1
            old_left, new_left = int(hunk.group(2) or 1), int(hunk.group(4) or 1)
            new.extend(old[at:start])
            at = start
            i += 1
            # A hunk is as long as its header says: the next file's `--- a/...` is no removed line.
            while i < len(lines) and (old_left > 0 or new_left > 0):
                tag, text = lines[i][:1], lines[i][1:]
                old_left -= tag in (" ", "-", "")
                new_left -= tag in (" ", "+", "")
                if tag in (" ", "-", ""):
                    if at >= len(old) or old[at] != text:
                        raise ValueError(f"{path}:{at + 1}: the diff expects {text!r}, the file has "
                                         f"{old[at] if at < len(old) else 'its end'!r}")
                    at += 1
                if tag in (" ", "", "+"):
                    new.append(text)
                i += 1
        new.extend(old[at:])
        with open(os.path.join(root, path), "w") as f:
            f.write("\n".join(new) + "\n")


def load(examples, model):
    """examples/<model>.py from the tree `examples`, as a module of its own."""
    import importlib.util
    # Whatever an example tree imported before (its `qat` helpers, the zoo model a QAT example
    # wraps) comes from the other tree: forgotten, so that this tree's files are read.
    for name, loaded in list(sys.modules.items()):
        if "/examples/" in (getattr(loaded, "__file__", None) or "") or name == "checked_example":
            del sys.modules[name]
    sys.path[:] = [p for p in sys.path if not p.endswith(os.path.join("examples", "common"))]
    sys.path.insert(0, os.path.join(examples, "common"))
    path = os.path.join(examples, model + ".py")
    spec = importlib.util.spec_from_file_location("checked_example", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["checked_example"] = module  # TorchScript looks classes up through their module
    spec.loader.exec_module(module)
    return module


def add_noted_stubs(model, notes):
    """Does what the notes ask of __init__ methods; False when a note asks something else."""
    complete = True
    for note in notes:
        m = ADD_STUB.match(note)
        if m is None:
            complete = False
            continue
        name, path, modules = m.groups()
        paths = [path] if path is not None else re.findall(r"`([\w.]+)`", modules)
        for p in paths:
            setattr(model.get_submodule(p) if p else model, name, torch.ao.quantization.QuantStub())
    return complete


def outputs(examples, model, seed_state=None, notes=()):
    """The example's float outputs on its input, and whether it was checked completely."""
    module = load(examples, model)
    torch.manual_seed(0)
    net = module.Model()
    complete = add_noted_stubs(net, notes)
    if seed_state is not None:
        unexpected = net.load_state_dict(seed_state, strict=False).unexpected_keys
        if unexpected:
            raise ValueError(f"the patched model has no {unexpected}")
    net.eval()
    example = module.example_input()
    args = tuple(example) if isinstance(example, (tuple, list)) else (example,)
    with torch.no_grad():
        torch.manual_seed(1)  # a model that draws random numbers draws the same ones in each run
        eager = net(*args)
        if seed_state is not None and complete and not hasattr(module, "build"):
            scripted_net = torch.jit.script(net)  # the examples are exported scripted
            torch.manual_seed(1)
            scripted = scripted_net(*args)
            if not same(eager, scripted):
                raise ValueError("the scripted patched model computes other floats than in eager mode")
    return net.state_dict(), eager, complete


def same(a, b):
    if isinstance(a, torch.Tensor):
        # NaN where the original has NaN is the same result.
        return (isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape
                and (torch.equal(a, b) or (a.is_floating_point() and bool(torch.all((a == b) | (a.isnan() & b.isnan()))))))
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def check(source_dir, entry):
    """None when the example's diff holds, else what broke."""
    examples = os.path.join(source_dir, "examples")
    state, expected, _ = outputs(examples, entry["model"])
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(examples, os.path.join(tmp, "examples"))
        apply_diff(entry["diff"], tmp)
        _, got, complete = outputs(os.path.join(tmp, "examples"), entry["model"], state, entry.get("notes", []))
    if complete and not same(expected, got):
        return "the patched model computes other floats"
    return None


def in_child(source_dir, entry):
    """Runs check() in a forked child; its verdict comes back through a pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            verdict = check(source_dir, entry) or ""
        except Exception as e:  # noqa: BLE001  any failure of the patched code is the finding
            verdict = f"{type(e).__name__}: {e}".splitlines()[0] or traceback.format_exc(limit=1)
        os.write(write, verdict.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        verdict = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        verdict = verdict or f"the check died (status {status})"
    return verdict


def main():
    source_dir, manifest = sys.argv[1], sys.argv[2]
    with open(manifest) as f:
        entries = json.load(f)
    broken = []
    for entry in entries:
        verdict = in_child(source_dir, entry)
        if verdict:
            broken.append(f"{entry['model']}: {verdict}")
    for line in broken:
        print(line, file=sys.stderr)
    print(f"{len(entries) - len(broken)} of {len(entries)} Python changes hold")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
