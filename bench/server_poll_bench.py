#!/usr/bin/python3
"""What `qlint server` costs while it watches a workspace of 200 archives.

A scratch workspace of 200 TorchScript archives (the seed and clean example models, copied round
robin into 20 directories), 2,000 Python files and a `.git` directory of 5,000 files (skipped by
discovery), watched with the default poll interval (1 s), once without a `models` key (the whole
folder is scanned) and once with `models = ["models"]`. Printed per set-up:

- the first check of all 200 archives (LibTorch loads once, then each archive is imported and
  analysed), from `initialized` to the 200th publishDiagnostics;
- idle: the server's CPU time per poll over 10 s in which nothing changes, and the bytes it read
  (/proc/PID/io rchar: read(2) of file contents; listing a directory and stat(2) are not reads);
- one archive rewritten: the time until its diagnostics are published again, and the bytes read
  meanwhile (the archive, not the 199 others).

Run from the repository root after scripts/setup:

    /usr/bin/python3 bench/server_poll_bench.py
"""
import os
import pathlib
import shutil
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from server_bench import Client, ROOT  # noqa: E402

ARCHIVES = 200
SOURCES = sorted((ROOT / "build/examples/seed").glob("*.pt")) + sorted((ROOT / "build/examples/clean").glob("*.pt"))
IDLE_SECONDS = 10


def make_workspace(root, models_key):
    models = root / "models"
    for i in range(ARCHIVES):
        target = models / f"group{i % 20:02d}" / f"model{i:03d}.pt"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCES[i % len(SOURCES)], target)
    for i in range(2000):
        source = root / "src" / f"pkg{i % 40:02d}" / f"module{i:04d}.py"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("x = 1\n")
    for i in range(5000):
        obj = root / ".git" / "objects" / f"{i % 256:02x}" / f"{i:038x}"
        obj.parent.mkdir(parents=True, exist_ok=True)
        obj.write_bytes(b"x")
    (root / ".qlint.toml").write_text('models = ["models"]\n' if models_key else "")
    return sorted(models.rglob("*.pt"))


def cpu_ms(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")  # utime + stime


def bytes_read(pid):
    for line in pathlib.Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


def wait_all_published(client, uris):
    waiting = set(uris)
    while waiting:
        message = client.receive()
        if message.get("method") == "textDocument/publishDiagnostics":
            waiting.discard(message["params"]["uri"])


def measure(models_key):
    with tempfile.TemporaryDirectory(prefix="qlint-poll-bench-") as scratch:
        root = pathlib.Path(scratch)
        archives = make_workspace(root, models_key)
        client = Client(root, poll_ms=1000)
        pid = client.process.pid
        client.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}})
        start = time.perf_counter()
        client.send({"method": "initialized", "params": {}})
        wait_all_published(client, [a.as_uri() for a in archives])
        first = time.perf_counter() - start

        time.sleep(2)  # the last checks' publications are out
        cpu, read = cpu_ms(pid), bytes_read(pid)
        time.sleep(IDLE_SECONDS)
        idle_cpu = (cpu_ms(pid) - cpu) / IDLE_SECONDS
        idle_read = bytes_read(pid) - read

        changed = archives[0]
        read = bytes_read(pid)
        start = time.perf_counter()
        shutil.copyfile(SOURCES[1], changed.with_suffix(".tmp"))
        os.replace(changed.with_suffix(".tmp"), changed)
        wait_all_published(client, [changed.as_uri()])
        recheck = time.perf_counter() - start
        recheck_read = bytes_read(pid) - read
        client.close()
    return first, idle_cpu, idle_read, recheck, recheck_read, changed.stat().st_size if changed.exists() else 0


def main():
    if len(SOURCES) == 0:
        sys.exit("build the examples first (scripts/setup)")
    size = SOURCES[1].stat().st_size
    print(f"{ARCHIVES} archives; the rewritten one has {size} bytes")
    print("| set-up | first check of all, s | idle CPU per poll, ms | idle bytes read | one archive rewritten: "
          "published after, s | bytes read meanwhile |")
    print("|---|---:|---:|---:|---:|---:|")
    for models_key in (False, True):
        first, idle_cpu, idle_read, recheck, recheck_read, _ = measure(models_key)
        name = '`models = ["models"]`' if models_key else "whole folder (no `models`)"
        print(f"| {name} | {first:.1f} | {idle_cpu:.1f} | {idle_read} | {recheck:.2f} | {recheck_read} |")


if __name__ == "__main__":
    main()
