#!/usr/bin/python3
"""Cold `qlint check` against a warm re-check in a running `qlint server`.

For each model: the median wall time of N cold runs of `qlint check --isolated MODEL` (a new
process: LibTorch's start-up, import, analysis, output), and the median time a running server
takes from being told the model changed (workspace/didChangeWatchedFiles, as an editor sends it)
to publishing its diagnostics again, over N changes: once with the same bytes copied over it
(the server finds it unchanged and does not load it), once alternating with a twin that differs
in one extra record (a real change: load, import and analysis; LibTorch stays loaded). The
changed re-check is set against the model's torch::jit::load (QLINT_TIMINGS of a cold check).
The server's own polling is switched off (a long --poll-interval), so only the notification
triggers the checks. Run from the repository root after scripts/setup:

    /usr/bin/python3 bench/server_bench.py [N]      # default N = 9
"""
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import re
import time
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
QLINT = ROOT / "build" / "qlint"
MODELS = [
    ("seed S1 (s1_eq_one.pt)", ROOT / "build/examples/seed/s1_eq_one.pt"),
    ("seed S6 (s6_separate_stubs.pt)", ROOT / "build/examples/seed/s6_separate_stubs.pt"),
    ("torchvision mobilenet_v2.pt", ROOT / "build/examples/torchvision/mobilenet_v2.pt"),
]


class Client:
    """Just enough of an LSP client: framed JSON-RPC over the server's stdin and stdout."""

    def __init__(self, workspace, poll_ms=3600000):
        self.process = subprocess.Popen([str(QLINT), "server", "--poll-interval", str(poll_ms)], cwd=workspace,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server ended")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result")

    def wait_published(self, uri):
        while True:
            message = self.receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return message["params"]["diagnostics"]

    def close(self):
        self.request("shutdown", None)
        self.send({"method": "exit"})
        self.process.wait(timeout=30)


def cold_ms(model, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(QLINT), "check", "--isolated", "--format", "concise", str(model)], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def twin_of(model, directory):
    """A copy of `model` with one more record (extra/bench.txt): other bytes, the same model."""
    twin = pathlib.Path(directory) / ("twin-" + model.name)
    shutil.copyfile(model, twin)
    with zipfile.ZipFile(twin, "a") as archive:
        folder = archive.namelist()[0].split("/")[0]
        archive.writestr(folder + "/extra/bench.txt", "twin")
    return twin


def load_ms(model):
    run = subprocess.run([str(QLINT), "check", "--isolated", "--format", "concise", str(model)], cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, QLINT_TIMINGS="1"))
    match = re.search(r"torch::jit::load\s+([\d.]+) ms", run.stderr)
    return float(match.group(1)) if match else float("nan")


def warm_ms(model, runs, changed):
    with tempfile.TemporaryDirectory() as workspace, tempfile.TemporaryDirectory() as twins:
        versions = [model, twin_of(model, twins)] if changed else [model]
        target = pathlib.Path(workspace) / model.name
        shutil.copyfile(model, target)
        uri = target.as_uri()
        client = Client(workspace)
        client.request("initialize", {"processId": os.getpid(), "rootUri": pathlib.Path(workspace).as_uri(),
                                      "capabilities": {}})
        client.send({"method": "initialized", "params": {}})
        client.wait_published(uri)  # the first check loads LibTorch
        times = []
        for i in range(runs):
            shutil.copyfile(versions[(i + 1) % len(versions)], target)
            start = time.perf_counter()
            client.send({"method": "workspace/didChangeWatchedFiles", "params": {"changes": [{"uri": uri, "type": 2}]}})
            client.wait_published(uri)
            times.append((time.perf_counter() - start) * 1000)
        client.close()
    return statistics.median(times)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    print("| model | cold `qlint check` ms | re-check, unchanged ms | re-check, changed ms | cold / changed | "
          "its `jit::load` ms | changed / load |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, model in MODELS:
        if not model.exists():
            print(f"| {name} | (not built) | | | | | |")
            continue
        cold, same, changed = cold_ms(model, runs), warm_ms(model, runs, False), warm_ms(model, runs, True)
        load = statistics.median(load_ms(model) for _ in range(runs))
        print(f"| {name} | {cold:.0f} | {same:.1f} | {changed:.1f} | {cold / changed:.0f}x | {load:.1f} | "
              f"{changed / load:.2f}x |")


if __name__ == "__main__":
    main()
