"""Runs the qlint binary on the hostile-input corpus (tests/hostile/make_corpus.py).

    run_corpus.py QLINT CORPUS_DIR GROUP

GROUP is one of archives, fx, onnx, special, fix. Every run is under a timeout and an address-space
cap and must: exit 0, 1 or 2 (never a signal, never a hang); print at most one error line per
model on stderr, as UTF-8 text without control characters or LibTorch/nlohmann internals; keep
JSON output parseable whatever the archive does; never print the secret file an archive's debug
info names; and, with --fix -o, leave the input byte for byte and no temporary file behind.
Prints every violation and exits 1 if there is any.
"""
import concurrent.futures
import hashlib
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60
MEMORY = 6 << 30  # address space: LibTorch reserves much more than it touches
INTERNALS = ["INTERNAL ASSERT", "report a bug", "stoi", "value()", "terminate", "Traceback", "c10::",
             "json.exception", "basic_string", "vector::", "_M_", "what():", "Exception raised from",
             "std::", "bad_alloc", "filesystem error"]
SECRET = "QLINT-SECRET-DO-NOT-PRINT"

failures = []


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(args, cwd=None, env=None):
    e = dict(os.environ)
    e.pop("QLINT_DEBUG", None)
    e.update(env or {})
    start = time.time()
    try:
        p = subprocess.run(args, capture_output=True, timeout=TIMEOUT, preexec_fn=limit, cwd=cwd, env=e)
        return p.returncode, p.stdout, p.stderr, time.time() - start
    except subprocess.TimeoutExpired as t:
        return "timeout", t.stdout or b"", t.stderr or b"", TIMEOUT


def fail(what, args, detail):
    failures.append(f"{what}: {' '.join(map(str, args))}\n    {detail}")


def check_streams(args, rc, out, err, models=1, json_out=False, no_exec=False):
    if rc == "timeout":
        return fail("hang", args, f"no exit within {TIMEOUT} s")
    if rc < 0:
        return fail("signal", args, f"killed by {signal.Signals(-rc).name}; stderr: {err[-300:]!r}")
    if rc not in (0, 1, 2):
        return fail("exit code", args, f"{rc}; stderr: {err[-300:]!r}")
    try:
        text = err.decode("utf-8")
    except UnicodeDecodeError:
        return fail("raw bytes", args, f"stderr is not UTF-8: {err[:300]!r}")
    lines = [line for line in text.split("\n") if line]
    errors = [line for line in lines if line.startswith("qlint: error:")]
    if len(errors) > models:
        fail("lines", args, f"{len(errors)} error lines for {models} model(s): {text[:600]!r}")
    for line in lines:
        if not line.startswith(("qlint: error:", "qlint: warning:", "qlint: note: the model printed:")):
            fail("stray output", args, f"{line[:300]!r}")
    for line in lines:
        if any(ord(c) < 32 and c != "\t" for c in line):
            fail("control chars", args, repr(line[:300]))
        if len(line) > 2000:
            fail("long line", args, f"{len(line)} characters")
        for word in INTERNALS:
            if word in line:
                fail("internals", args, f"{word!r} in {line[:300]!r}")
    if rc == 2 and not lines and not json_out:
        fail("silent error", args, "exit 2 without a message")
    if SECRET.encode() in out or SECRET.encode() in err:
        fail("secret", args, "printed a line of a file outside the tree")
    if json_out:
        try:
            json.loads(out)
        except ValueError as e:
            fail("json", args, f"stdout does not parse ({e}): {out[:200]!r}")
    # Loading runs an archive's __setstate__ (LibTorch does; docs/reliability.md): what it
    # prints goes to stderr as a note, never to stdout; --no-exec refuses such archives.
    if b"PAYLOAD RAN" in out:
        fail("stdout", args, "the archive's print reached stdout")
    if no_exec and b"PAYLOAD RAN" in err:
        fail("executed", args, "the archive's __setstate__ ran under --no-exec")


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


# Archives that load, or get past the probe, and so reach the simulator's instrumentation and
# the rewriter; the others stop at the same probe whatever the command.
DEEP = ("content_", "debug_", "traced_", "setstate", "extra_files", "names_many", "names_long", "zip_bomb")


def archive_runs(qlint, path, scratch):
    name = os.path.basename(path)
    if not name.startswith(DEEP):
        return  # the batch check covers the probe, the same for every command
    args = [qlint, "dump", path]
    rc, out, err, _ = run(args)
    check_streams(args, rc, out, err)
    args = [qlint, "sim", path, "--random-input", "1x2x4x4"]
    rc, out, err, _ = run(args)
    check_streams(args, rc, out, err)
    fix_run(qlint, path, scratch)


def fix_run(qlint, path, scratch):
    """--fix -o into a fresh directory: the input stays byte for byte, nothing is left behind but
    the written model."""
    name = os.path.basename(path)
    before = sha(path)
    out_dir = tempfile.mkdtemp(dir=scratch)
    target = os.path.join(out_dir, name)
    args = [qlint, "check", "--isolated", "--fix", "-o", target, path]
    rc, out, err, _ = run(args)
    check_streams(args, rc, out, err)
    if sha(path) != before:
        fail("input changed", args, "--fix -o changed its input")
    left = [f for f in os.listdir(out_dir) if f != name]
    if left:
        fail("leak", args, f"left {left}")


def fx_runs(qlint, path):
    """check (text and JSON) and dump."""
    for args in ([qlint, "check", "--isolated", "--format", "json", path], [qlint, "check", "--isolated", path],
                 [qlint, "dump", path]):
        rc, out, err, elapsed = run(args)
        check_streams(args, rc, out, err, json_out="json" in args)
        if elapsed > 20:
            fail("slow", args, f"{elapsed:.0f} s")


def onnx_runs(qlint, path, scratch):
    """As for FX exports, and --fix -o (ONNX models are rewritten)."""
    fx_runs(qlint, path)
    fix_run(qlint, path, scratch)


def group_files(corpus, sub):
    d = os.path.join(corpus, sub)
    return sorted(os.path.join(d, f) for f in os.listdir(d))


def batch(qlint, files, good, no_exec=False):
    """check on every file in one run: one model's failure never stops the others (each bad model
    is one error, the good ones are checked), and JSON stays valid whatever the archives print."""
    again = f"{good}.again-{'noexec' if no_exec else 'json'}.pt"
    shutil.copy(good, again)
    fmt = ["--no-exec"] if no_exec else ["--format", "json"]
    args = [qlint, "check", "--isolated", *fmt, "-j", "2", good] + files + [again]
    rc, out, err, _ = run(args)
    check_streams(args, rc, out, err, models=len(files) + 2, json_out=not no_exec, no_exec=no_exec)
    if isinstance(rc, int) and rc >= 0 and not no_exec:
        try:
            doc = json.loads(out)
        except ValueError:
            return
        if good not in doc.get("models", []) or again not in doc.get("models", []):
            fail("batch", args, "the good models' results are missing")
        errors = {e["model"] for e in doc.get("errors", [])}
        if len(doc.get("errors", [])) != len(errors):
            fail("batch", args, "a model has more than one error")
    os.remove(again)


def special(qlint, corpus, scratch, good):
    d = tempfile.mkdtemp(dir=scratch)
    fifo = os.path.join(d, "fifo.fx.json")
    os.mkfifo(fifo)
    fifo_pt = os.path.join(d, "fifo.pt")
    os.mkfifo(fifo_pt)
    loop_a, loop_b = os.path.join(d, "loop_a.pt"), os.path.join(d, "loop_b.pt")
    os.symlink(loop_b, loop_a)
    os.symlink(loop_a, loop_b)
    dangling = os.path.join(d, "dangling.pt")
    os.symlink(os.path.join(d, "nothing-here.pt"), dangling)
    for path, expect in ((fifo, "not a regular file"), (fifo_pt, "not a regular file"), (loop_a, "symbolic links"),
                         (dangling, "no such file")):
        for args in ([qlint, "check", "--isolated", path], [qlint, "dump", path]):
            rc, out, err, _ = run(args)
            check_streams(args, rc, out, err)
            if rc != 2 or expect not in err.decode(errors="replace"):
                fail("message", args, f"exit {rc}, wanted {expect!r}: {err[:300]!r}")
    # A directory scan skips the FIFO instead of hanging on it.
    shutil.copy(good, os.path.join(d, "good.pt"))
    args = [qlint, "check", "--isolated", d]
    rc, out, err, _ = run(args)
    check_streams(args, rc, out, err, models=4)
    # A config beside a model that names an operator library is not trusted by default.
    repo = tempfile.mkdtemp(dir=scratch)
    shutil.copy(good, os.path.join(repo, "model.pt"))
    with open(os.path.join(repo, ".qlint.toml"), "w") as f:
        f.write('operator-libraries = ["evil.so"]\n')
    args = [qlint, "check", os.path.join(repo, "model.pt")]
    rc, out, err, _ = run(args)
    check_streams(args, rc, out, err)
    if rc != 2 or b"trust" not in err:
        fail("untrusted library", args, f"exit {rc}: {err[:300]!r}")


def fix_group(qlint, corpus, scratch):
    """--fix respects the file: extra files, folder name, mode, symlinks, -o onto special files,
    temporary files, kill -9, determinism."""
    import zipfile

    build = os.path.dirname(os.path.abspath(qlint))
    src = os.path.join(build, "examples", "seed", "s1_eq_one.pt")
    d = tempfile.mkdtemp(dir=scratch)

    def fresh(name, from_path=src):
        path = os.path.join(d, name)
        shutil.copy(from_path, path)
        return path

    def fix(*args):
        full = [qlint, "check", "--isolated", "--fix", *args]
        rc, out, err, _ = run(full)
        check_streams(full, rc, out, err)
        return rc, out, err, full

    def names(path):
        with zipfile.ZipFile(path) as z:
            return z.namelist()

    # Extra files and the inner folder name survive; so do a 0600 mode and, where this process
    # may give a file away (as root), another user's ownership.
    extra = fresh("extra.pt", os.path.join(corpus, "archives", "extra_files.pt"))
    os.chmod(extra, 0o600)
    owner = (os.getuid(), os.getgid())
    if os.geteuid() == 0:
        owner = (4321, 4322)  # no such user needed: an id is enough
        os.chown(extra, *owner)
    folder = names(extra)[0].split("/")[0]
    rc, out, err, args = fix(extra)
    if rc not in (0, 1):
        fail("fix", args, f"exit {rc}: {err[:300]!r}")
    else:
        n = names(extra)
        if not any(x.endswith("extra/meta.json") for x in n):
            fail("extra files", args, f"meta.json dropped: {n}")
        if n[0].split("/")[0] != folder:
            fail("folder", args, f"inner folder {n[0].split('/')[0]!r}, was {folder!r}")
        if stat.S_IMODE(os.stat(extra).st_mode) != 0o600:
            fail("mode", args, oct(os.stat(extra).st_mode))
        if (os.stat(extra).st_uid, os.stat(extra).st_gid) != owner:
            fail("owner", args, f"{(os.stat(extra).st_uid, os.stat(extra).st_gid)}, was {owner}")
    if [f for f in os.listdir(d) if "qlint" in f]:
        fail("leak", args, str(os.listdir(d)))

    # Byte-identical output for the same input and options.
    a, b = os.path.join(d, "a.pt"), os.path.join(d, "b.pt")
    fix("-o", a, src)
    time.sleep(1.1)  # a timestamp in the zip would differ now
    fix("-o", b, src)
    if not (os.path.exists(a) and os.path.exists(b)) or sha(a) != sha(b):
        fail("determinism", ["--fix -o a.pt / b.pt"], "two runs differ")

    # Through a symbolic link: the target is fixed, the link stays a link.
    target = fresh("target.pt")
    link = os.path.join(d, "link.pt")
    os.symlink(target, link)
    before = sha(target)
    rc, out, err, args = fix(link)
    if not os.path.islink(link):
        fail("symlink", args, "the link was replaced by a file")
    elif rc in (0, 1) and sha(target) == before:
        fail("symlink", args, "the link's target was not fixed")

    # -o onto a FIFO or a device is refused, and leaves it alone.
    fifo = os.path.join(d, "out.fifo")
    os.mkfifo(fifo)
    for out_path in (fifo, "/dev/null"):
        rc, out, err, args = fix("-o", out_path, src)
        if rc != 2 or b"not a regular file" not in err:
            fail("-o special", args, f"exit {rc}: {err[:300]!r}")
    if not stat.S_ISFIFO(os.stat(fifo).st_mode):
        fail("-o special", ["-o", fifo], "the FIFO was replaced")

    # A read-only directory: one line, nothing left behind, the original intact.
    ro = tempfile.mkdtemp(dir=scratch)
    ro_model = os.path.join(ro, "m.pt")
    shutil.copy(src, ro_model)
    os.chmod(ro, 0o555)
    before = sha(ro_model)
    if os.geteuid() != 0:  # root writes anyway
        rc, out, err, args = fix(ro_model)
        if rc != 2 or sha(ro_model) != before:
            fail("read-only", args, f"exit {rc}: {err[:300]!r}")
    os.chmod(ro, 0o755)

    # A full disk: "no space left on device", the original intact, nothing left behind. Needs a
    # small tmpfs (root); skipped where mount is not permitted.
    full = tempfile.mkdtemp(dir=scratch)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", full], capture_output=True).returncode == 0:
        try:
            model = os.path.join(full, "m.pt")
            shutil.copy(src, model)
            before = sha(model)
            filler = os.path.join(full, "filler")
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
            for block in (65536, 4096, 512, 1):  # to the last byte
                try:
                    while True:
                        os.write(fd, b"\0" * block)
                except OSError:
                    pass
            os.close(fd)
            rc, out, err, args = fix(model)
            if rc != 2 or b"no space left on device" not in err.lower():
                fail("full disk", args, f"exit {rc}: {err[:300]!r}")
            if sha(model) != before:
                fail("full disk", args, "the model changed")
            left = sorted(set(os.listdir(full)) - {"m.pt", "filler"})
            if left:
                fail("full disk", args, f"left {left}")
        finally:
            subprocess.run(["umount", full])

    # kill -9 during --fix: the original is whole, and the next run names and removes the
    # temporary directory the killed one left.
    victim = fresh("victim.pt")
    before = sha(victim)
    for delay in (0.3, 0.8, 1.5):
        p = subprocess.Popen([qlint, "check", "--isolated", "--fix", victim], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, preexec_fn=limit)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        with zipfile.ZipFile(victim) as z:
            if z.testzip() is not None:
                fail("kill -9", ["--fix", victim], "the model is damaged")
        shutil.copy(src, victim)
    os.makedirs(os.path.join(d, ".qlint-fix-999999999-0.tmp"))  # a dead process's
    rc, out, err, args = fix(victim)
    if os.path.exists(os.path.join(d, ".qlint-fix-999999999-0.tmp")):
        fail("stale temp", args, "not removed")
    elif b".qlint-fix-999999999-0.tmp" not in err:
        fail("stale temp", args, f"not named: {err[:300]!r}")


def main():
    qlint, corpus, group = sys.argv[1:4]
    scratch = tempfile.mkdtemp(prefix="qlint-hostile-")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from make_corpus import secret_path

    secret = secret_path(corpus)
    with open(secret, "w") as f:
        f.write("\n".join([SECRET] * 40) + "\n")
    good = os.path.join(scratch, "good.pt")
    build = os.path.dirname(os.path.abspath(qlint))
    shutil.copy(os.path.join(build, "examples", "seed", "s1_eq_one.pt"), good)
    try:
        jobs = []
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            if group == "archives":
                files = group_files(corpus, "archives")
                jobs = [pool.submit(batch, qlint, files, good), pool.submit(batch, qlint, files, good, True)]
                jobs += [pool.submit(archive_runs, qlint, f, scratch) for f in files]
            elif group == "fx":
                files = group_files(corpus, "fx")
                jobs = [pool.submit(fx_runs, qlint, f) for f in files]
                jobs.append(pool.submit(batch, qlint, files, good))
            elif group == "onnx":
                files = [f for f in group_files(corpus, "onnx") if f.endswith(".onnx")]
                jobs = [pool.submit(onnx_runs, qlint, f, scratch) for f in files]
                jobs.append(pool.submit(batch, qlint, files, good))
            elif group == "fix":
                jobs = [pool.submit(fix_group, qlint, corpus, scratch)]
            elif group == "special":
                jobs = [pool.submit(special, qlint, corpus, scratch, good)]
            for j in jobs:
                j.result()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # the fake secret stays: other groups may run
    for f in failures:
        print(f)
    print(f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
