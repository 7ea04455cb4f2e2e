"""Hostile input, round two (issue #27): the real qlint binary against archives that would run
their code while loading, the server in an untrusted workspace, the C++ front end as a project
tool, deep and long inputs, and the server's protocol bounds.

    round_two.py QLINT WORK_DIR GROUP [-- CXX_FLAGS...]

GROUP is one of:
  no_exec   archives whose classes define __setstate__, spelt every way TorchScript accepts (tabs,
            runs of blanks, form feeds, `\\` continuations, comments, CRLF, a decorator, an
            upper-case record name, a child module): their code writes a marker file (through
            torch.from_file(shared=True)); without --no-exec qlint check must run it (the test can
            fail), with --no-exec check, dump, --diff, --fix, sim and `qlint cxx` must
            not, and refuse; an archive whose pickle builds a registered C++ class's object
            (packed parameters) is refused too;
  server    `qlint server` in an untrusted workspace holding such an archive: never loads it, says
            so; a configuration outside the workspace is never used (its `export` never runs, its
            `models` are never scanned), also with --trusted; `models` outside the workspace named
            by the workspace's own configuration are not watched;
  cxx       `qlint cxx`: an include of a file outside the project is never quoted; a database
            entry whose directory is gone fails alone; a file that crashes Clang itself is reported
            and the next file checked; --export-fixes onto a FIFO, /dev/full and a directory; a
            FIFO and a directory named as sources;
  deep      a 40,000-op FX chain, a 14,000-statement scripted chain (checked, and simulated: PyTorch
            itself overflows its stack on it; refused in one line past --limit chain-length),
            20,000 `if`s in a row, a 100,000-term sum and 10,000 functions calling each other in
            C++, a 50,000-part dotted key in .qlint.toml (check, cxx, server), a FIFO and a
            directory .qlint.toml, --config /dev/zero;
  protocol  the server on a message nested 100,000 deep, a 1 MiB header line, a Content-Length of
            1 GiB with no body, a missing and a non-string `method`.
Every run has a timeout and an address-space cap; a signal, a timeout or a marker file fails.
"""
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

TIMEOUT = 240
FAILURES = []


def fail(what):
    FAILURES.append(what)
    print("FAIL:", what)


def limit_memory():
    cap = 6 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run(args, cwd=None, stdin=None, env=None, timeout=TIMEOUT):
    """(exit code, stdout, stderr) of the real binary; a timeout or a signal is a failure."""
    try:
        p = subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, timeout=timeout,
                           preexec_fn=limit_memory, env=env)
    except subprocess.TimeoutExpired:
        fail(f"timed out after {timeout} s: {args}")
        return None, b"", b""
    if p.returncode < 0:
        fail(f"killed by signal {-p.returncode}: {args}\n{p.stderr.decode(errors='replace')[-2000:]}")
    return p.returncode, p.stdout, p.stderr


def error_lines(err):
    return [line for line in err.decode(errors="replace").splitlines() if line.startswith("qlint: error:")]


def expect_one_error(args, rc, err, *words):
    """Exit 2 and exactly one error line holding each of `words`."""
    lines = error_lines(err)
    if rc != 2 or len(lines) != 1 or not all(w in lines[0] for w in words):
        fail(f"{args}: expected exit 2 and one error line with {words}; got exit {rc}:\n"
             f"{err.decode(errors='replace')[-1500:]}")


# ---- archives that run code while loading ----

PLACEHOLDER = "MARKER_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"  # the same literal is in the payload below
DEFINITION = "  def __setstate__(self: __torch__.P,"
SPELLINGS = {
    "plain": DEFINITION,
    "tab": "  def\t__setstate__(self: __torch__.P,",
    "blanks": "  def    __setstate__   (self: __torch__.P,",
    "formfeed": "  def\f__setstate__(self: __torch__.P,",
    "continuation": "  def \\\n__setstate__(self: __torch__.P,",
    "comments": "  # no hook here\n  def __setstate__(  # it runs on load\n    self: __torch__.P,",
    "crlf": "  def __setstate__(self: __torch__.P,\r",
    "decorator": "  @torch.jit.export\n  def __setstate__(self: __torch__.P,",  # LibTorch refuses it
}


def payload_sources(work):
    """A scripted module whose __setstate__ creates a file, and one holding it as a child."""
    import torch
    from typing import Tuple

    class P(torch.nn.Module):  # no submodules: __setstate__ would have to restore them
        def __init__(self):
            super().__init__()
            self.k = 1

        def forward(self, x):
            return x * self.k == 1

        @torch.jit.export
        def __getstate__(self):
            return (self.k, self.training)

        @torch.jit.export
        def __setstate__(self, state: Tuple[int, bool]):
            t = torch.from_file("MARKER_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", shared=True, size=4, dtype=torch.uint8)  # creates it
            self.k = state[0] + int(t.numel()) - 4
            self.training = state[1]

    class Parent(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.child = P()

        def forward(self, x):
            return self.child(x)

    base, parent = os.path.join(work, "base.pt"), os.path.join(work, "parent.pt")
    torch.jit.script(P()).save(base)
    torch.jit.script(Parent()).save(parent)
    return base, parent


def rewrite(src, dst, marker, spelling=DEFINITION, rename=None):
    """src with the marker path and the spelling of `def __setstate__` put into its code, its
    code's debug info dropped (its offsets would no longer fit), a code record renamed."""
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for info in z.infolist():
            name, data = info.filename, z.read(info.filename)
            if name.endswith(".debug_pkl"):
                continue
            if "/code/" in name and name.endswith(".py"):
                text = data.decode().replace(f'"{PLACEHOLDER}"', json.dumps(marker)).replace(DEFINITION, spelling)
                data = text.encode()
                if rename:
                    name = name.replace("code/__torch__.py", rename)
            out.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def payloads(work):
    """{name: (archive, marker, loads)}: `loads` says whether LibTorch accepts it (and so runs it)."""
    base, parent = payload_sources(work)
    out = {}
    for name, spelling in SPELLINGS.items():
        out[name] = (os.path.join(work, f"setstate_{name}.pt"), os.path.join(work, f"ran_{name}"), name != "decorator")
        rewrite(base, out[name][0], out[name][1], spelling)
    out["uppercase_record"] = (os.path.join(work, "setstate_uppercase_record.pt"), os.path.join(work, "ran_upper"), True)
    rewrite(base, out["uppercase_record"][0], out["uppercase_record"][1], rename="CODE/__TORCH__.PY")
    out["child_module"] = (os.path.join(work, "setstate_child_module.pt"), os.path.join(work, "ran_child"), True)
    rewrite(parent, out["child_module"][0], out["child_module"][1])
    os.remove(base)
    os.remove(parent)
    return out


def remove(path):
    if os.path.lexists(path):
        os.remove(path)


def cxx_loading(work, archive):
    source = os.path.join(work, os.path.basename(archive) + ".cpp")
    with open(source, "w") as f:
        f.write("#include <torch/script.h>\n\n"
                f"torch::Tensor run(const torch::Tensor& x) {{\n"
                f"  torch::jit::Module model = torch::jit::load({json.dumps(archive)});\n"
                "  return model.forward({x}).toTensor() == 1;\n}\n")
    return source


def group_no_exec(qlint, work, cxx_flags):
    cases = payloads(work)
    for name, (archive, marker, loads) in cases.items():
        remove(marker)
        # The control: allowed to, LibTorch runs the archive's code (else the test proves nothing).
        run([qlint, "check", archive])
        if loads and not os.path.exists(marker):
            fail(f"{name}: the payload did not run without --no-exec; the test cannot see execution")
        remove(marker)
        for command in (["check", "--no-exec"], ["check", "--no-exec", "--format", "json"], ["dump", "--no-exec"],
                        ["check", "--diff", "--no-exec"], ["check", "--fix", "--no-exec", "-o", archive + ".fixed.pt"],
                        ["sim", "--no-exec", "--random-input", "1x4"]):
            args = [qlint, *command, archive]
            rc, out, err = run(args)
            words = ("would run its own code while loading", "__setstate__", "refused because of --no-exec")
            if "json" in command:  # the error is in the report, stdout stays valid JSON
                errors = json.loads(out)["errors"] if rc == 2 else []
                if len(errors) != 1 or not all(w in errors[0]["message"] for w in words):
                    fail(f"{args}: expected exit 2 and one error in the JSON with {words}; got {rc}: {out[-800:]}")
            else:
                expect_one_error(args, rc, err, *words)
            if os.path.exists(marker):
                fail(f"{name}: {' '.join(command)} ran the archive's code")
                remove(marker)
    # qlint cxx reads an archive named in torch::jit::load("...") to see what it returns.
    archive, marker, _ = cases["tab"]
    source = cxx_loading(work, archive)
    remove(marker)
    run([qlint, "cxx", source, "--", *cxx_flags])
    if not os.path.exists(marker):
        fail("qlint cxx without --no-exec did not load the archive its source names; the test cannot see it")
    for name in ("tab", "continuation", "uppercase_record", "child_module"):
        archive, marker, _ = cases[name]
        remove(marker)
        args = [qlint, "cxx", "--no-exec", cxx_loading(work, archive), "--", *cxx_flags]
        rc, _, err = run(args)
        if rc not in (0, 1, 2):
            fail(f"{args}: exit {rc}")
        if os.path.exists(marker):
            fail(f"{name}: qlint cxx --no-exec ran the archive's code")


    # No code record defines __setstate__, but the pickle builds an object of a registered C++
    # class: LibTorch runs that class's registered __setstate__ on the archive's data.
    packed = registered_class_archive(work)
    for command in (["check", "--no-exec"], ["dump", "--no-exec"], ["sim", "--no-exec", "--random-input", "1x2"]):
        args = [qlint, *command, packed]
        rc, _, err = run(args)
        expect_one_error(args, rc, err, "torch.classes.quantized.LinearPackedParamsBase", "refused because of --no-exec")
    rc, _, err = run([qlint, "check", packed])
    if rc != 0:
        fail(f"check without --no-exec on an archive with packed parameters: exit {rc}: {err[-500:]}")


def registered_class_archive(work):
    """A scripted module holding torch.ops.quantized.linear_prepack's result as an attribute."""
    import torch
    source = os.path.join(work, "packed_attribute.py")
    with open(source, "w") as f:
        f.write("import torch\n\nclass Packed(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        w = torch.quantize_per_tensor(torch.ones(2, 2), 0.1, 0, torch.qint8)\n"
                "        self.p = torch.ops.quantized.linear_prepack(w, None)\n\n"
                "    def forward(self, x):\n        return x\n")
    sys.path.insert(0, work)
    import packed_attribute
    archive = os.path.join(work, "packed_attribute.pt")
    torch.jit.script(packed_attribute.Packed()).save(archive)
    return archive


# ---- the server ----

class Client:
    """A minimal LSP client over the server's stdin and stdout."""

    def __init__(self, args, cwd):
        self.p = subprocess.Popen(args, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, preexec_fn=limit_memory)
        self.messages = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = b""
        self.stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_thread.start()

    def _read_stderr(self):
        self.stderr = self.p.stderr.read()

    def _read(self):
        out = self.p.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            with self.lock:
                self.messages.append(json.loads(body))

    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def wait_for(self, predicate, seconds=120):
        deadline = time.time() + seconds
        while time.time() < deadline:
            with self.lock:
                for m in self.messages:
                    if predicate(m):
                        return m
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        return None

    def start(self, root, init=None):
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"rootUri": "file://" + root, "capabilities": {},
                              "initializationOptions": init or {}}})
        if not self.wait_for(lambda m: m.get("id") == 1):
            fail(f"the server did not answer initialize: {self.stderr[-1000:]}")
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def stop(self):
        try:
            self.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
            self.wait_for(lambda m: m.get("id") == 99, 60)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self.p.stdin.close()
            rc = self.p.wait(60)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            self.p.kill()
            rc = self.p.wait()
            fail("the server did not exit after shutdown and exit")
        if rc < 0:
            fail(f"the server was killed by signal {-rc}: {self.stderr[-2000:]}")
        return rc


def published(uri_suffix):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"].endswith(uri_suffix))


def group_server(qlint, work, cxx_flags):
    outside = os.path.join(work, "outside")
    workspace = os.path.join(outside, "workspace")
    os.makedirs(os.path.join(workspace, "models"))
    cases = payloads(os.path.join(workspace, "models"))
    # Models outside the workspace, and a configuration above it that would run a command.
    os.makedirs(os.path.join(outside, "elsewhere"))
    shutil.copy(cases["plain"][0], os.path.join(outside, "elsewhere", "far.pt"))
    export_marker = os.path.join(work, "export_ran")
    with open(os.path.join(outside, ".qlint.toml"), "w") as f:
        f.write(f'export = "touch {export_marker}"\nmodels = ["elsewhere"]\n')
    with open(os.path.join(workspace, "model.py"), "w") as f:
        f.write("x = 1\n")

    # Untrusted: every payload is reported, none is loaded; the log says why once.
    client = Client([qlint, "server", "--poll-interval", "200"], workspace)
    client.start(workspace)
    for name, (archive, marker, _) in cases.items():
        m = client.wait_for(published(os.path.basename(archive)))
        if m is None:
            fail(f"server: no diagnostics for {name}")
        elif not any("would run its own code" in d["message"] and "not trusted" in d["message"]
                     for d in m["params"]["diagnostics"]):
            fail(f"server: {name} was not refused as an untrusted archive: {m['params']['diagnostics']}")
    logs = [m for m in client.messages if m.get("method") == "window/logMessage"
            and "workspace is not trusted" in m["params"]["message"]]
    if len(logs) != 1:
        fail(f"server: expected one log message saying the workspace is not trusted, got {len(logs)}")
    client.send({"jsonrpc": "2.0", "method": "textDocument/didSave",
                 "params": {"textDocument": {"uri": "file://" + os.path.join(workspace, "model.py")}}})
    time.sleep(2)
    if client.wait_for(published("far.pt"), 1):
        fail("server: it checked a model named by a configuration outside the workspace")
    client.stop()
    for name, (archive, marker, _) in cases.items():
        if os.path.exists(marker):
            fail(f"server: the untrusted workspace's archive {name} ran its code")

    # Trusted: still no configuration from outside the workspace (its export never runs).
    client = Client([qlint, "server", "--trusted", "--poll-interval", "200"], workspace)
    client.start(workspace)
    client.send({"jsonrpc": "2.0", "method": "textDocument/didSave",
                 "params": {"textDocument": {"uri": "file://" + os.path.join(workspace, "model.py")}}})
    time.sleep(3)
    if client.wait_for(published("far.pt"), 1):
        fail("server --trusted: it checked a model named by a configuration outside the workspace")
    client.stop()
    if os.path.exists(export_marker):
        fail("server --trusted: it ran the export command of a configuration outside the workspace")

    # The workspace's own configuration cannot point the server outside it.
    inner = os.path.join(work, "inner")
    os.makedirs(inner)
    shutil.copy(cases["plain"][0], os.path.join(inner, "inside.pt"))
    with open(os.path.join(inner, ".qlint.toml"), "w") as f:
        f.write(f'models = ["/usr", "{os.path.join(outside, "elsewhere")}", "inside.pt"]\n')
    client = Client([qlint, "server", "--poll-interval", "200"], inner)
    client.start(inner)
    if client.wait_for(published("inside.pt")) is None:
        fail("server: the model inside the workspace that its configuration names was not checked")
    warnings = [m for m in client.messages if m.get("method") == "window/showMessage"
                and "outside the workspace" in m["params"]["message"]]
    if len(warnings) != 2:
        fail(f"server: expected a warning for each of the 2 `models` outside the workspace, got {len(warnings)}")
    time.sleep(1)
    if client.wait_for(published("far.pt"), 1):
        fail("server: it checked a model outside the workspace named by `models`")
    client.stop()


# ---- qlint cxx as a project tool ----

def group_cxx(qlint, work, cxx_flags):
    project = os.path.join(work, "project")
    os.makedirs(project)
    # Outside the project and outside any git repository (the build tree is in one), like
    # /etc/passwd: its first token must never be quoted.
    secret_dir = tempfile.mkdtemp(prefix="qlint-hostile-cxx-")
    secret = os.path.join(secret_dir, "secret_header")
    with open(secret, "w") as f:
        f.write("QLINT_SECRET_TOKEN:x:0:0:root:/root:/bin/bash\n")
    for included, token in ((secret, b"QLINT_SECRET_TOKEN"), ("/etc/passwd", b"'root'")):
        if not os.path.exists(included):
            continue
        leak = os.path.join(project, "leak.cpp")
        with open(leak, "w") as f:
            f.write(f'#include "{included}"\nint main() {{ return 0; }}\n')
        args = [qlint, "cxx", leak, "--", "-std=c++17"]
        rc, out, err = run(args, cwd=project)
        expect_one_error(args, rc, err, "outside the project's source tree", included)
        if token in out + err:
            fail(f"qlint cxx quoted {included}, a file outside the project, in its error: {err[-300:]}")
    shutil.rmtree(secret_dir)
    # The same include inside the project is quoted as Clang says it (the rule is not "never").
    local = os.path.join(project, "local_header")
    with open(local, "w") as f:
        f.write("QLINT_SECRET_TOKEN:x:0:0:root:/root:/bin/bash\n")
    with open(os.path.join(project, "local.cpp"), "w") as f:
        f.write('#include "local_header"\nint main() { return 0; }\n')
    args = [qlint, "cxx", os.path.join(project, "local.cpp"), "--", "-std=c++17"]
    rc, out, err = run(args, cwd=project)
    if b"QLINT_SECRET_TOKEN" not in err:
        fail(f"qlint cxx no longer shows Clang's error for a file in the project: {err[-500:]}")
    # A header outside the project that includes one this machine lacks (LibTorch's CUDA headers
    # on a CPU-only machine): the missing header is named, an #include's name and no file's text.
    vendor = tempfile.mkdtemp(prefix="qlint-hostile-cxx-vendor-")
    with open(os.path.join(vendor, "vendor.h"), "w") as f:
        f.write('#include "qlint_missing_cuda_header.h"\n')
    with open(os.path.join(project, "vendored.cpp"), "w") as f:
        f.write(f'#include "{vendor}/vendor.h"\nint main() {{ return 0; }}\n')
    args = [qlint, "cxx", os.path.join(project, "vendored.cpp"), "--", "-std=c++17"]
    rc, out, err = run(args, cwd=project)
    expect_one_error(args, rc, err, "'qlint_missing_cuda_header.h' file not found", "-I")
    shutil.rmtree(vendor)

    # A database made elsewhere: one entry's directory is gone; the other file is still checked.
    good = os.path.join(project, "good.cpp")
    with open(good, "w") as f:
        f.write("#include <torch/script.h>\n"
                "torch::Tensor f(const torch::Tensor& input) {\n"
                "  torch::Tensor x = torch::fake_quantize_per_tensor_affine(input, 0.03, 0, -32768, 32767);\n"
                "  return x == 1;\n}\n")
    moved = os.path.join(project, "moved.cpp")
    shutil.copy(good, moved)
    build = os.path.join(project, "build")
    os.makedirs(build)
    flags = " ".join(["clang++", *cxx_flags, "-c"])
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump([{"directory": "/nonexistent/qlint/build", "command": f"{flags} {moved}", "file": moved},
                   {"directory": project, "command": f"{flags} {good}", "file": good}], f)
    args = [qlint, "cxx", "-p", build, moved, good]
    rc, out, err = run(args)
    expect_one_error(args, rc, err, "moved.cpp", "/nonexistent/qlint/build", "does not exist")
    if b"good.cpp:4" not in out:
        fail(f"qlint cxx: the file with a usable entry was not checked after the bad one: {out[-500:]}")
    if b"LLVM ERROR" in err:
        fail("qlint cxx: LLVM aborted on a missing directory")

    # A translation unit that crashes Clang itself (a million nested parentheses, with the
    # bracket limit lifted as a compile command may lift it; plain clang++-14 dies on it too):
    # reported as such, and the file after it is still checked.
    crasher = os.path.join(project, "parens.cpp")
    with open(crasher, "w") as f:
        f.write("int f() { return " + "(" * 1000000 + "1" + ")" * 1000000 + "; }\n")
    args = [qlint, "cxx", crasher, good, "--", *cxx_flags, "-fbracket-depth=2000000"]
    rc, out, err = run(args)
    expect_one_error(args, rc, err, "parens.cpp", "Clang itself crashed")
    if b"good.cpp:4" not in out:
        fail(f"qlint cxx: the file after one that crashed Clang was not checked: {out[-500:]}")

    # A translation unit Clang takes minutes on (200,000 nested braceless `if`s: its name lookup
    # is quadratic there) is given up after --limit parse-seconds, and the next file is checked.
    slow = os.path.join(project, "slow.cpp")
    with open(slow, "w") as f:
        f.write("int f(int x) {\n" + "if (x)\n" * 200000 + "return 1;\nreturn 0;\n}\n")
    args = [qlint, "cxx", "--limit", "parse-seconds=30", slow, good, "--", *cxx_flags]
    rc, out, err = run(args, timeout=120)
    expect_one_error(args, rc, err, "slow.cpp", "exceeds the limit parse-seconds")
    if b"good.cpp:4" not in out:
        fail(f"qlint cxx: the file after one Clang was too slow on was not checked: {out[-500:]}")

    # --export-fixes onto what cannot hold them.
    fifo = os.path.join(work, "fixes.fifo")
    os.mkfifo(fifo)
    for target, words in ((fifo, ("a FIFO",)), ("/dev/full", ("a device",)), (project, ("a directory",))):
        args = [qlint, "cxx", good, "--export-fixes", target, "--", *cxx_flags]
        rc, _, err = run(args, timeout=120)
        expect_one_error(args, rc, err, *words)
    exported = os.path.join(work, "fixes.yaml")
    args = [qlint, "cxx", good, "--export-fixes", exported, "--", *cxx_flags]
    rc, _, err = run(args)
    if rc not in (0, 1) or not os.path.exists(exported) or not open(exported).read().startswith("---"):
        fail(f"--export-fixes onto a new file: exit {rc}, {err[-500:]}")

    # Sources that are not regular files are named as what they are.
    source_fifo = os.path.join(work, "source.cpp")
    os.mkfifo(source_fifo)
    for target, words in ((source_fifo, ("a FIFO",)), (project, ("is a directory",))):
        args = [qlint, "cxx", target, "--", "-std=c++17"]
        rc, _, err = run(args, timeout=120)
        expect_one_error(args, rc, err, *words)


# ---- deep and long input ----

def fx_chain(path, ops):
    """x -> QuantStub -> `ops` additions of 1 in a row -> == 1."""
    nodes = [{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}, "type": "Tensor",
              "dtype": "float32", "shape": [4]},
             {"name": "quant", "op": "call_module", "target": "quant", "args": [{"node": "x"}], "kwargs": {},
              "type": "Tensor", "dtype": "float32", "shape": [4]}]
    previous = "quant"
    for i in range(ops):
        nodes.append({"name": f"add_{i}", "op": "call_function", "target": "_operator.add",
                      "args": [{"node": previous}, 1], "kwargs": {}, "type": "Tensor", "dtype": "float32",
                      "shape": [4]})
        previous = f"add_{i}"
    nodes.append({"name": "eq", "op": "call_function", "target": "_operator.eq", "args": [{"node": previous}, 1],
                  "kwargs": {}, "type": "Tensor", "dtype": "bool", "shape": [4]})
    nodes.append({"name": "output", "op": "output", "target": "output", "args": [{"node": "eq"}], "kwargs": {}})
    doc = {"format": "qlint-fx", "version": 1, "model_class": "Chain",
           "modules": [{"path": "", "class": "Chain"},
                       {"path": "quant", "class": "torch.ao.quantization.stubs.QuantStub"}],
           "nodes": nodes}
    with open(path, "w") as f:
        json.dump(doc, f)


def group_deep(qlint, work, cxx_flags):
    chain = os.path.join(work, "chain.fx.json")
    fx_chain(chain, 40000)
    for command in (["check"], ["check", "--format", "json"], ["dump", "--facts"]):
        args = [qlint, *command, chain]
        rc, out, err = run(args)
        if rc not in (0, 1, 2) or len(error_lines(err)) > 1:
            fail(f"{args}: exit {rc}: {err[-500:]}")
    rc, out, _ = run([qlint, "check", chain])
    if b"eq-nonzero-const" not in out:
        fail(f"the 40,000-op chain's comparison was not found: {out[-500:]}")

    # A scripted chain of 14,000 statements: the same walks on a TorchScript archive.
    import torch
    source = os.path.join(work, "scripted_chain.py")
    with open(source, "w") as f:
        f.write("import torch\n\nclass Chain(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self.quant = torch.ao.quantization.QuantStub()\n\n    def forward(self, x):\n"
                "        x = self.quant(x)\n" + "        x = x + 1\n" * 14000 + "        return x == 1\n")
    sys.path.insert(0, work)
    import scripted_chain
    archive = os.path.join(work, "scripted_chain.pt")
    torch.jit.script(scripted_chain.Chain()).save(archive)
    for command in (["check"], ["check", "--diff"], ["dump"]):
        args = [qlint, *command, archive]
        rc, out, err = run(args)
        if rc not in (0, 1, 2) or len(error_lines(err)) > 1:
            fail(f"{args}: exit {rc}: {err[-500:]}")
        if command == ["check"] and b"eq-nonzero-const" not in out:
            fail(f"the 14,000-statement chain's comparison was not found: {out[-500:]}")

    # LibTorch's interpreter prepares a graph by recursing along its chains (PyTorch itself
    # overflows its stack at about 7,000 statements): qlint runs it on a large stack, and a
    # chain past the limit chain-length is refused in one line.
    args = [qlint, "sim", "--random-input", "4", archive]
    rc, out, err = run(args)
    if rc != 0 or b"aten::eq" not in out:
        fail(f"sim on the 14,000-statement chain: exit {rc}: {err[-500:]}")
    args = [qlint, "sim", "--random-input", "4", "--limit", "chain-length=10000", archive]
    rc, _, err = run(args)
    expect_one_error(args, rc, err, "forward", "exceeds the limit chain-length", "--limit chain-length=N")

    # C++ that made the lowering quadratic: a 100,000-term sum (Clang's begin location of a
    # left-nested sum recurses) and 10,000 functions calling each other (a linear function
    # lookup per call). Each must finish within the timeout.
    long_sum = os.path.join(work, "long_sum.cpp")
    with open(long_sum, "w") as f:
        f.write("int g(int x) { return " + "x + " * 100000 + "x; }\n")
    calls = os.path.join(work, "calls.cpp")
    with open(calls, "w") as f:
        f.write("#include <torch/script.h>\ntorch::Tensor f0(const torch::Tensor& x) { return x + 1; }\n")
        for i in range(1, 10000):
            f.write(f"torch::Tensor f{i}(const torch::Tensor& x) {{ return f{i - 1}(x) + 1; }}\n")
        f.write("torch::Tensor top(const torch::Tensor& input) {\n"
                "  return torch::fake_quantize_per_tensor_affine(f9999(input), 0.03, 0, -32768, 32767) == 1;\n}\n")  # 1 becomes 0.99
    for source in (long_sum, calls):
        args = [qlint, "cxx", source, "--", *cxx_flags]
        rc, out, err = run(args)
        if rc not in (0, 1) or error_lines(err):
            fail(f"{args[:3]}: exit {rc}: {err[-500:]}")
        if source == calls and b"eq-nonzero-const" not in out:
            fail("qlint cxx on 10,000 functions calling each other missed the comparison at the end")

    ifs = os.path.join(work, "ifs.cpp")
    with open(ifs, "w") as f:
        f.write("#include <torch/script.h>\n"
                "torch::Tensor f(const torch::Tensor& input, bool c) {\n"
                "  torch::Tensor x = torch::fake_quantize_per_tensor_affine(input, 0.01, 0, -32768, 32767);\n")
        f.write("  if (c) x = x + 1;\n" * 20000)
        f.write("  return x == 1;\n}\n")
    args = [qlint, "cxx", ifs, "--", *cxx_flags]
    rc, out, err = run(args)
    if rc not in (0, 1, 2) or len(error_lines(err)) > 1:
        fail(f"qlint cxx on 20,000 ifs: exit {rc}: {err[-500:]}")
    elif b"eq-nonzero-const" not in out:
        fail(f"qlint cxx on 20,000 ifs did not find the comparison after them: {out[-500:]}")

    # Configuration files: a 50,000-part dotted key, and files that are not regular.
    for name, text in (("dotted", "a" + ".a" * 49999 + " = 1\n"), ("header", "[" + ".".join(["t"] * 50000) + "]\n"),
                       ("nested", "x = " + "[" * 50000 + "]" * 50000 + "\n")):
        d = os.path.join(work, "config_" + name)
        os.makedirs(d)
        fx_chain(os.path.join(d, "m.fx.json"), 1)
        with open(os.path.join(d, ".qlint.toml"), "w") as f:
            f.write(text)
        args = [qlint, "check", os.path.join(d, "m.fx.json")]
        rc, _, err = run(args)
        expect_one_error(args, rc, err, ".qlint.toml")
        args = [qlint, "cxx", os.path.join(d, "x.cpp"), "--", "-std=c++17"]
        with open(os.path.join(d, "x.cpp"), "w") as f:
            f.write("int main() { return 0; }\n")
        rc, _, err = run(args)
        expect_one_error(args, rc, err, ".qlint.toml")
    for kind in ("fifo", "directory"):
        d = os.path.join(work, "config_" + kind)
        os.makedirs(d)
        fx_chain(os.path.join(d, "m.fx.json"), 1)
        config = os.path.join(d, ".qlint.toml")
        os.mkfifo(config) if kind == "fifo" else os.makedirs(config)
        args = [qlint, "check", os.path.join(d, "m.fx.json")]
        rc, _, err = run(args, timeout=120)
        expect_one_error(args, rc, err, ".qlint.toml", "a FIFO" if kind == "fifo" else "is a directory")
    args = [qlint, "check", "--config", "/dev/zero", chain]
    rc, _, err = run(args, timeout=120)
    expect_one_error(args, rc, err, "/dev/zero", "a device")


# ---- the server's protocol ----

def group_protocol(qlint, work, cxx_flags):
    root = os.path.join(work, "protocol")
    os.makedirs(root)
    client = Client([qlint, "server"], root)
    client.start(root)
    deep = ("[" * 100000 + "]" * 100000).encode()
    client.raw(b"Content-Length: %d\r\n\r\n" % len(deep) + deep)
    if not client.wait_for(lambda m: m.get("error", {}).get("code") == -32700 and "nests" in m["error"]["message"]):
        fail("server: no parse error (-32700) for a message nested 100,000 deep")
    client.send({"jsonrpc": "2.0", "id": 7})
    if not client.wait_for(lambda m: m.get("id") == 7 and m.get("error", {}).get("code") == -32600):
        fail("server: no invalid request (-32600) for a request without `method`")
    client.send({"jsonrpc": "2.0", "id": 8, "method": 42})
    if not client.wait_for(lambda m: m.get("id") == 8 and m.get("error", {}).get("code") == -32600):
        fail("server: no invalid request (-32600) for a non-string `method`")
    client.raw(b"X-Long: " + b"a" * (1 << 20) + b"\r\nContent-Length: 2\r\n\r\n{}")
    client.send({"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover",
                 "params": {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}}})
    if not client.wait_for(lambda m: m.get("id") == 9):
        fail("server: no answer after a 1 MiB header line")
    # Over the maximum: skipped as it arrives (here it never does), never allocated up front.
    client.raw(b"Content-Length: 1073741824\r\n\r\n")
    client.p.stdin.close()
    rc = client.p.wait(120)
    client.stderr_thread.join(30)
    if rc < 0:
        fail(f"server: killed by signal {-rc} after a 1 GiB Content-Length")
    if b"header line longer than" not in client.stderr:
        fail(f"server: the long header line was not reported: {client.stderr[-500:]}")


GROUPS = {"no_exec": group_no_exec, "server": group_server, "cxx": group_cxx, "deep": group_deep,
          "protocol": group_protocol}


def main():
    qlint, work, group = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    cxx_flags = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    work = os.path.join(os.path.abspath(work), group)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    GROUPS[group](qlint, work, cxx_flags)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print(f"{group}: all checks passed")


if __name__ == "__main__":
    main()
