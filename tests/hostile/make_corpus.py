"""Makes qlint's hostile-input corpus from the exported examples (issue #13).

    make_corpus.py OUT_DIR BUILD_DIR

Writes into OUT_DIR (emptied first):
  archives/*.pt   corrupted and hostile TorchScript archives, derived from the examples:
                  truncations, byte flips in each zip record kind (local header, data,
                  central directory, end record), content flips in each member kind (data.pkl,
                  constants.pkl, code, debug info, version) with valid CRCs, a zip bomb, a
                  corrupted pickle length, hostile member names, debug info naming a file
                  outside the tree, /dev/zero and a huge line number, torch.save pickles and
                  state_dicts, an empty zip, an archive whose __setstate__ prints;
  fx/*.fx.json    mutated FX exports: deep nesting, huge and non-finite numbers, columns near
                  2^31, non-UTF-8 bytes, wrong types, truncations;
  onnx/*.onnx     broken and hostile ONNX models, derived from the S1 export: truncations, byte
                  flips, not a model at all, external data missing, outside the model's directory
                  or shorter than stated, scales that are zero, negative, not finite or tiny,
                  doc_string stacks naming a file outside the tree or a huge line, nesting past
                  protobuf's bound, a 100,000-node chain, absurd dims, a stride of 0;
  special/        a FIFO, a symlink loop, a dangling symlink (made by the test runner, which
                  owns their lifetime);
The "local secret" an archive's debug info names is made by run_corpus.py, outside the tree.
Every case is deterministic (seeded), so a failure names a file that reproduces it.
"""
import io
import json
import os
import random
import shutil
import struct
import sys
import zipfile
import zlib
from typing import Tuple

SECRET = "QLINT-SECRET-DO-NOT-PRINT"


def secret_path(corpus):
    """A file outside any repository that an archive's debug info names (run_corpus.py makes it)."""
    import hashlib

    return f"/tmp/qlint-hostile-secret-{hashlib.sha1(os.path.abspath(corpus).encode()).hexdigest()[:10]}.txt"


def members(path):
    with zipfile.ZipFile(path) as z:
        return [(i, z.read(i.filename)) for i in z.infolist()]


def write_zip(path, entries):
    """entries: (name, bytes, compress_type) in order."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data, compress in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = compress
            z.writestr(info, data)


def rezip(src, dst, change):
    """Copies src to dst with change(name, data) -> data | None (drop) per member."""
    out = []
    for info, data in members(src):
        new = change(info.filename, data)
        if new is not None:
            out.append((info.filename, new, info.compress_type))
    write_zip(dst, out)


def flip(data, rng, count=3):
    b = bytearray(data)
    if not b:
        return bytes(b)
    for _ in range(count):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def binunicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def replace_pickled_string(data, old, new):
    """Replaces a BINUNICODE string in a pickle (the debug info's string table)."""
    o = binunicode(old)
    assert o in data, old
    return data.replace(o, binunicode(new), 1)


def enclosing_string(data, i):
    """The BINUNICODE string of a pickle that contains offset i."""
    for start in range(i, max(i - 5000, 0), -1):
        if data[start : start + 1] == b"X":
            (length,) = struct.unpack("<I", data[start + 1 : start + 5])
            if start + 5 <= i < start + 5 + length <= len(data):
                return data[start + 5 : start + 5 + length].decode()
    raise ValueError("no string there")


def zip_offsets(raw):
    """Offsets of the first local header, central directory entry and end record."""
    local = raw.find(b"PK\x03\x04")
    central = raw.find(b"PK\x01\x02")
    end = raw.rfind(b"PK\x05\x06")
    return local, central, end


def make_archives(out, build):
    seed = os.path.join(build, "examples", "seed", "s1_eq_one.pt")
    traced = os.path.join(build, "examples", "flows", "eager_qat_default_traced.pt")
    convnet = os.path.join(build, "examples", "sim", "two_stub_convnet.pt")
    rng = random.Random(13)
    raw = open(seed, "rb").read()

    def put(name, data):
        with open(os.path.join(out, name + ".pt"), "wb") as f:
            f.write(data)

    # Truncation at every 10 %, and a few bytes short of the end.
    for pct in range(10, 100, 10):
        put(f"trunc_{pct:02d}", raw[: len(raw) * pct // 100])
    put("trunc_minus_1", raw[:-1])
    put("trunc_minus_30", raw[:-30])

    # Byte flips in each zip record kind.
    local, central, end = zip_offsets(raw)
    for kind, base, span in (("local_header", local, 30), ("central_dir", central, 46), ("end_record", end, 22)):
        for k in range(2):
            b = bytearray(raw)
            i = base + 4 + rng.randrange(span - 4)
            b[i] ^= 0xFF
            put(f"flip_{kind}_{k}", bytes(b))
    for k in range(2):  # somewhere in the members' data
        b = bytearray(raw)
        i = rng.randrange(local + 30, central)
        b[i] ^= 0xFF
        put(f"flip_data_{k}", bytes(b))

    # Content flips with valid CRCs, per member kind, for a scripted and a traced model.
    def kind_of(name):
        if name.endswith(".debug_pkl"):
            return "debug"
        if "/code/" in name:
            return "code"
        if name.endswith("data.pkl"):
            return "data_pkl"
        if name.endswith("constants.pkl"):
            return "constants"
        if name.endswith("/version"):
            return "version"
        return "tensor"

    for label, src in (("scripted", seed), ("traced", traced)):
        kinds = sorted({kind_of(i.filename) for i, _ in members(src)})
        for kind in kinds:
            for k in range(3):
                r = random.Random(f"{label}-{kind}-{k}")
                put_path = os.path.join(out, f"content_{label}_{kind}_{k}.pt")
                rezip(src, put_path, lambda n, d: flip(d, r, 1 + k) if kind_of(n) == kind else d)

    # A huge line number and a negative one in traced debug info.
    def traced_line(new):
        def change(name, data):
            if not name.endswith("eager_qat_default_traced.py.debug_pkl"):
                return data
            # The frame of the model's own file, whatever tree exported it.
            old = enclosing_string(data, data.find(b"eager_qat_default_traced.py(38): forward\n"))
            return replace_pickled_string(data, old, old.replace("(38)", f"({new})"))

        return change

    rezip(traced, os.path.join(out, "traced_huge_line.pt"), traced_line("99999999999999999999"))
    rezip(traced, os.path.join(out, "traced_int_max_line.pt"), traced_line("2147483647"))

    # Debug info naming a file outside the tree, /dev/zero, a directory; and a huge range.
    def seed_source(new_name):
        def change(name, data):
            if not name.endswith("s1_eq_one.py.debug_pkl"):
                return data
            old = enclosing_string(data, data.find(b"s1_eq_one.py"))
            return replace_pickled_string(data, old, new_name)

        return change

    rezip(seed, os.path.join(out, "debug_names_secret.pt"), seed_source(secret_path(os.path.dirname(out))))
    rezip(seed, os.path.join(out, "debug_names_dev_zero.pt"), seed_source("/dev/zero"))
    rezip(seed, os.path.join(out, "debug_names_passwd.pt"), seed_source("/etc/passwd"))
    rezip(seed, os.path.join(out, "debug_names_dir.pt"), seed_source("/"))

    # A zip bomb: a tensor record of 1 GiB of zeros, deflated to about 1 MB.
    bomb = []
    for info, data in members(convnet):
        compress = info.compress_type
        if info.filename.endswith("/data/0"):
            data, compress = b"\0" * (1 << 30), zipfile.ZIP_DEFLATED
        bomb.append((info.filename, data, compress))
    write_zip(os.path.join(out, "zip_bomb.pt"), bomb)

    # A pickle length field claiming 2 GiB (stored member, valid CRC).
    def long_length(name, data):
        if not name.endswith("data.pkl"):
            return data
        i = data.find(b"X")
        return data[: i + 1] + struct.pack("<I", 0x7FFFFFF0) + data[i + 5 :]

    rezip(seed, os.path.join(out, "pickle_length.pt"), long_length)

    def frame_length(name, data):  # protocol-4 FRAME / BINBYTES8 style 8-byte length
        if not name.endswith("data.pkl"):
            return data
        return data[:2] + b"\x95" + struct.pack("<Q", 1 << 40) + data[2:]

    rezip(seed, os.path.join(out, "pickle_frame_length.pt"), frame_length)

    # Code nested 100,000 deep (LibTorch's parser recurses on it).
    def deep_code(name, data):
        if not name.endswith("qlint_example_s1_eq_one.py"):
            return data
        return data.replace(b"return ", b"return " + b"(" * 100000, 1).rstrip() + b")" * 100000 + b"\n"

    rezip(seed, os.path.join(out, "code_deep_nesting.pt"), deep_code)

    # Hostile member names.
    entries = [(i.filename, d, i.compress_type) for i, d in members(seed)]
    write_zip(os.path.join(out, "names_traversal.pt"), entries + [("../../../../tmp/qlint-escape", b"x", 0)])
    write_zip(os.path.join(out, "names_absolute.pt"), entries + [("/tmp/qlint-absolute", b"x", 0)])
    write_zip(os.path.join(out, "names_long.pt"), entries + [("s1_eq_one/" + "a" * 60000, b"x", 0)])
    write_zip(os.path.join(out, "names_many.pt"), entries + [(f"s1_eq_one/extra/{k}", b"", 0) for k in range(3000)])
    renamed = [("\u00e9\u0001evil\u202e/" + n.split("/", 1)[1], d, c) for n, d, c in entries]
    write_zip(os.path.join(out, "names_control_chars.pt"), renamed)

    # Not TorchScript: an empty zip, garbage, an empty file, binary junk after PK.
    write_zip(os.path.join(out, "empty_zip.pt"), [])
    put("empty_file", b"")
    put("garbage", bytes(rng.randrange(256) for _ in range(4096)))
    put("pk_then_junk", b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(4096)))


def make_torch_files(out, build):
    """Files made by real PyTorch: pickles, state_dicts, __setstate__ payloads, extra files."""
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = torch.ao.quantization.QuantStub()
            self.lin = torch.nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(self.quant(x)) == 1

    torch.save(Net().state_dict(), os.path.join(out, "state_dict.pt"))
    torch.save({"a": torch.zeros(2)}, os.path.join(out, "tensor_dict.pt"))

    class Payload(torch.nn.Module):  # no submodules: __setstate__ would have to restore them
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
            print("PAYLOAD RAN: __setstate__ printed this {\"json\": broken")
            self.k = state[0]
            self.training = state[1]

    torch.jit.script(Payload()).save(os.path.join(out, "setstate_payload.pt"))
    scripted = torch.jit.load(os.path.join(build, "examples", "seed", "s1_eq_one.pt"))
    scripted.save(os.path.join(out, "extra_files.pt"), _extra_files={"meta.json": '{"owner": "qlint"}'})


def deep(n):
    return "[" * n + "]" * n


def make_fx(out, build):
    src = os.path.join(build, "examples", "fx", "seed", "s1_eq_one.fx.json")
    doc = json.load(open(src))
    text = open(src).read()

    def put(name, data):
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(os.path.join(out, name + ".fx.json"), mode) as f:
            f.write(data)

    def mutated(name, fn):
        d = json.loads(json.dumps(doc))
        fn(d)
        put(name, json.dumps(d))

    node = next(n for n in doc["nodes"] if n.get("location"))
    index = doc["nodes"].index(node)

    def set_loc(key, value):
        def fn(d):
            d["nodes"][index]["location"][key] = value

        return fn

    put("deep_100k", '{"format": "qlint-fx", "version": 1, "modules": [], "nodes": ' + deep(100000) + "}")
    put("deep_args_10k", text.replace('"args": []', '"args": ' + deep(10000), 1))
    put("deep_object", '{"format": "qlint-fx", "version": 1, "x": ' + '{"a":' * 50000 + "1" + "}" * 50000 + "}")
    put("line_1e999", text.replace('"line": ', '"line": 1e999, "x": ', 1))
    mutated("line_huge", set_loc("line", 10**30))
    mutated("line_negative", set_loc("line", -5))
    mutated("line_float", set_loc("line", 3.5))
    mutated("line_string", set_loc("line", "twelve"))
    mutated("column_2_31", set_loc("column", 2**31 - 1))
    mutated("end_column_2_31", set_loc("end_column", 2**31 - 2))
    mutated("column_2_63", set_loc("column", 2**63 - 1))
    mutated("end_line_huge", set_loc("end_line", 2**31 - 1))
    mutated("version_huge", lambda d: d.__setitem__("version", 10**40))
    mutated("version_float", lambda d: d.__setitem__("version", 1e308))
    mutated("source_line_number_huge", lambda d: d.__setitem__("source_lines", {"f.py": {"99999999999999999999": "x"}}))
    mutated("source_line_number_junk", lambda d: d.__setitem__("source_lines", {"f.py": {"1x": "x", "-3": "y"}}))
    mutated("shape_huge", lambda d: d["nodes"][0].__setitem__("shape", [2**63 - 1, 2**63 - 1]))
    mutated("shape_floats", lambda d: d["nodes"][0].__setitem__("shape", [1e300]))
    mutated("nodes_not_objects", lambda d: d.__setitem__("nodes", [1, "x", None]))
    mutated("modules_not_objects", lambda d: d.__setitem__("modules", [[1], 2]))
    mutated("args_object", lambda d: d["nodes"][1].__setitem__("args", {"node": 3}))
    mutated("kwargs_array", lambda d: d["nodes"][1].__setitem__("kwargs", [1, 2]))
    mutated("name_number", lambda d: d["nodes"][0].__setitem__("name", 12))
    mutated("location_array", lambda d: d["nodes"][index].__setitem__("location", [1, 2]))
    mutated("values_huge", lambda d: d["nodes"].insert(1, {"name": "c", "op": "get_attr", "target": "c",
                                                             "type": "Tensor", "values": [1e308] * 10}))
    mutated("value_huge_int", lambda d: d["nodes"].insert(1, {"name": "c", "op": "get_attr", "target": "c",
                                                                "type": "int", "value": 2**64 - 1}))
    put("non_utf8", text.replace('"x"', '"x\xff\xfe\x01"', 1).encode("latin-1"))
    put("non_utf8_raw", text.encode().replace(b'"quant"', b'"qu\xff\xc0ant"', 1))
    put("nul_bytes", text.replace('"x"', '"x\\u0000\\u001b[31m"', 1))
    put("empty", "")
    put("not_object", "[1, 2, 3]")
    for pct in (10, 50, 90, 99):
        put(f"trunc_{pct}", text[: len(text) * pct // 100])

    # One stub applied 10,000 times (a linear-time check of the rules per quant point).
    d = json.loads(json.dumps(doc))
    nodes = [n for n in d["nodes"] if n["op"] != "output"]
    output = next(n for n in d["nodes"] if n["op"] == "output")
    for k in range(10000):
        nodes.append({"name": f"q{k}", "op": "call_module", "target": "quant", "args": [{"node": "x"}],
                      "kwargs": {}, "type": "Tensor", "dtype": "float32"})
        nodes.append({"name": f"m{k}", "op": "call_function", "target": "_operator.eq",
                      "args": [{"node": f"q{k}"}, 1], "kwargs": {}, "type": "Tensor", "dtype": "bool"})
    d["nodes"] = nodes + [output]
    put("stub_10k_uses", json.dumps(d))

    # A structure-level random mutation sample (deterministic).
    rng = random.Random(1313)
    for k in range(40):
        d = json.loads(json.dumps(doc))
        for _ in range(3):
            mutate_json(d, rng)
        put(f"mutation_{k:02d}", json.dumps(d))


JUNK = [None, True, -1, 0, 2**31, 2**63 - 1, -(2**63), 1.5e308, "", "x" * 100, [], {}, [[]], {"node": "nope"},
        {"tuple": 1}, {"dict": [[1]]}, {"slice": [1]}, {"float": 3}, {"dtype": 5}, {"device": 1}]


def mutate_json(d, rng):
    """Replaces, deletes or duplicates one value somewhere in d."""
    path = []
    cur = d
    while isinstance(cur, (dict, list)) and cur and rng.random() < 0.8:
        key = rng.choice(list(cur.keys())) if isinstance(cur, dict) else rng.randrange(len(cur))
        path.append((cur, key))
        cur = cur[key]
    if not path:
        return
    parent, key = path[-1]
    action = rng.random()
    if action < 0.6:
        parent[key] = rng.choice(JUNK)
    elif action < 0.8 and isinstance(parent, dict):
        del parent[key]
    elif isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(parent[key])))


def make_onnx(out, build, secret):
    import onnx
    from onnx import helper, numpy_helper

    src = os.path.join(build, "examples", "onnx", "seed", "s1_eq_one.onnx")
    raw = open(src, "rb").read()
    model = onnx.load(src)

    def put(name, data):
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.SerializeToString())

    def changed(fn):
        m = onnx.ModelProto()
        m.CopyFrom(model)
        fn(m)
        return m

    for pct in (1, 10, 50, 90, 99):
        put(f"trunc_{pct}", raw[: len(raw) * pct // 100])
    rng = random.Random(2323)
    for k in range(20):
        put(f"flip_{k:02d}", flip(raw, rng, 1 + k % 4))
    put("empty", b"")
    put("random_bytes", bytes(rng.randrange(256) for _ in range(4096)))
    put("a_zip", open(os.path.join(build, "examples", "seed", "s1_eq_one.pt"), "rb").read())
    put("text", b"graph torch_jit { x = Equal(a, b) }\n")

    scale = next(t for t in model.graph.initializer if t.name.endswith(".scale"))

    def set_scale(value):
        def fn(m):
            t = next(t for t in m.graph.initializer if t.name == scale.name)
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(scale) * 0 + value, scale.name))

        return fn

    for name, value in (("zero", 0.0), ("negative", -1.0), ("nan", float("nan")), ("inf", float("inf")),
                        ("tiny", 1e-38)):
        put(f"scale_{name}", changed(set_scale(value)))

    def external(location, offset=None, length=None, write=None):
        def fn(m):
            t = next(t for t in m.graph.initializer if t.name == scale.name)
            t.ClearField("raw_data")
            t.ClearField("float_data")
            t.data_location = onnx.TensorProto.EXTERNAL
            entries = {"location": location}
            if offset is not None:
                entries["offset"] = str(offset)
            if length is not None:
                entries["length"] = str(length)
            for k, v in entries.items():
                e = t.external_data.add()
                e.key, e.value = k, v

        if write:
            with open(os.path.join(out, write), "wb") as f:
                f.write(b"\0" * 8)
        return changed(fn)

    put("external_missing", external("weights_missing.bin"))
    put("external_parent", external("../weights.bin"))
    put("external_absolute", external(secret))
    put("external_short", external("weights_short.bin", offset=4, length=100, write="weights_short.bin"))
    put("external_offset_junk", external("weights_short.bin", offset="-1"))

    def doc(stack):
        def fn(m):
            for n in m.graph.node:
                if n.op_type == "Equal":
                    n.doc_string = stack

        return fn

    put("doc_secret", changed(doc(f"{secret}(3): forward\n")))
    put("doc_line_huge", changed(doc("/tmp/model.py(99999999999999999999): forward\n")))
    put("doc_not_a_stack", changed(doc("\x1b[31mred\n" * 1000)))
    put("doc_dev_zero", changed(doc("/dev/zero(1): forward\n")))

    def names(fn_name):
        def fn(m):
            for n in m.graph.node:
                n.name = fn_name(n.name)

        return fn

    put("names_long", changed(names(lambda n: n + "x" * 100000)))

    def zero_stride(m):
        m.graph.node.append(helper.make_node("MaxPool", [m.graph.node[0].input[0]], ["pooled"], kernel_shape=[1, 1],
                                             strides=[1, 0], name="/pool"))

    put("pool_stride_zero", changed(zero_stride))

    def dims(m):
        t = next(t for t in m.graph.initializer if t.name == scale.name)
        del t.dims[:]
        t.dims.extend([2**40, 2**40])

    put("dims_huge", changed(dims))

    # If inside If, past protobuf's nesting bound and within it.
    leaf = helper.make_graph([helper.make_node("Identity", ["c"], ["o"])], "g", [],
                             [helper.make_tensor_value_info("o", onnx.TensorProto.BOOL, [])])
    for depth in (20, 200):
        inner = leaf
        for d in range(depth):  # the else branch stays a leaf: the file grows linearly
            node = helper.make_node("If", ["c"], [f"o{d}"], then_branch=inner, else_branch=leaf)
            inner = helper.make_graph([node], f"g{d}", [], [helper.make_tensor_value_info(f"o{d}", onnx.TensorProto.BOOL, [])])
        g = helper.make_graph(list(inner.node), "top", [helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, [])],
                              list(inner.output))
        put(f"nested_if_{depth}", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))

    nodes, prev = [], "x"
    for k in range(100000):
        nodes.append(helper.make_node("Neg", [prev], [f"n{k}"]))
        prev = f"n{k}"
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info(prev, onnx.TensorProto.FLOAT, [4])])
    put("chain_100k", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))


def main():
    out, build = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    for sub in ("archives", "fx", "onnx", "special"):
        os.makedirs(os.path.join(out, sub))
    make_archives(os.path.join(out, "archives"), build)
    make_torch_files(os.path.join(out, "archives"), build)
    make_fx(os.path.join(out, "fx"), build)
    make_onnx(os.path.join(out, "onnx"), build, secret_path(out))
    with open(os.path.join(out, "stamp"), "w") as f:
        f.write("ok\n")


if __name__ == "__main__":
    main()
