"""PyTorch reference for qlint's simulator, and checks on its saved outputs.

    reference.py simulate EXAMPLE.py MODEL.pt BITS OUT.pt INPUT.pt [INPUT.pt ...]
        Rebuilds the example's eager model with the exported model's weights, replaces every
        QuantStub by PyTorch's MinMaxObserver (per-tensor symmetric) followed by
        torch.fake_quantize_per_tensor_affine, calibrates on all inputs and saves the
        simulated outputs as `qlint sim --save-outputs` does (one batch: the output itself;
        several: a list).
    reference.py float-reference EXAMPLE.py MODEL.pt OUT.pt INPUT.pt [INPUT.pt ...]
        PyTorch's float computation of a converted (int8) example: the example's float eager
        model, with the weights of the converted archive MODEL.pt dequantized by PyTorch (packed
        weights unpacked with PyTorch's own ops), run on the inputs; saved as
        `qlint sim --save-float-outputs` does.
    reference.py run-archive MODEL.pt OUT.pt INPUT.pt [--no-fake-quant]
        Runs the TorchScript archive itself in PyTorch (its optimising executor on, as users run
        it) and saves its output; with --no-fake-quant, every `fake_quant_enabled` buffer zeroed
        first (the fused fake quant of PyTorch's default QAT qconfig honours it at run time).
    reference.py sqnr-only EXAMPLE.py MODEL.pt BITS STUBS INPUT.pt [INPUT.pt ...]
        As `simulate`, but only the stubs named in STUBS (module paths, comma-separated)
        fake-quantize; the others pass their float values through. Prints the SQNR of each
        output against the float run over all inputs, in dB, as JSON (what `qlint sim
        --attribute` reports as a cause's "alone" and "without").
    reference.py layers EXAMPLE.py MODEL.pt BITS INPUT.pt [INPUT.pt ...]
        As `simulate`, with a forward hook on every submodule (the stubs' stand-ins too): prints,
        as JSON in the order the float run first finished each, every module's path and the SQNR
        of its output against the float run, in dB, over all its calls ("sqnr") and per call
        ("calls"): what `qlint sim --layers` reports.
    reference.py converted-scales EXAMPLE.py INPUT.pt
        Builds a converted example's eager int8 model as its build() does (without scripting or
        tracing it) and runs it on the input: prints, as JSON by module path, the q_scale() and
        q_zero_point() of every module output that is a quantized tensor (a FloatFunctional's
        add, mul, ... included), the figures `qlint sim` lists as a converted model's quant points.
    reference.py equal A.pt B.pt        exit 0 when every tensor is bit-identical
    reference.py all-zeros A.pt         exit 0 when every element is zero

Run with Debian's Python: /usr/bin/python3.
"""
import os
import sys

import torch
from torch.ao.quantization import MinMaxObserver, QuantStub

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples"))
from export import load_example  # noqa: E402  examples/export.py, which also sets up examples/common


class ReferenceStub(torch.nn.Module):
    def __init__(self, bits):
        super().__init__()
        self.quant_min, self.quant_max = (-32768, 32767) if bits == 16 else (-128, 127)
        self.observer = MinMaxObserver(dtype=torch.qint32 if bits == 16 else torch.qint8,
                                       qscheme=torch.per_tensor_symmetric,
                                       quant_min=self.quant_min, quant_max=self.quant_max)
        self.calibrating = True

    def forward(self, x):
        if self.calibrating:
            self.observer(x)
            return x
        scale, zero_point = self.observer.calculate_qparams()
        return torch.fake_quantize_per_tensor_affine(
            x, float(scale), int(zero_point), self.quant_min, self.quant_max)


def replace_stubs(model, bits):
    return list(replace_named_stubs(model, bits).values())


def replace_named_stubs(model, bits, prefix=""):
    """Every QuantStub replaced by a ReferenceStub, by module path."""
    stubs = {}
    for name, child in list(model.named_children()):
        if isinstance(child, QuantStub):
            stub = ReferenceStub(bits)
            setattr(model, name, stub)
            stubs[prefix + name] = stub
        else:
            stubs.update(replace_named_stubs(child, bits, prefix + name + "."))
    return stubs


def as_args(value):
    return value if isinstance(value, (tuple, list)) else (value,)


def simulate(example, model_file, bits, out, inputs):
    model = load_example(example).Model().eval()
    model.load_state_dict(torch.jit.load(model_file).state_dict())
    stubs = replace_stubs(model, int(bits))
    batches = [as_args(torch.load(f)) for f in inputs]
    with torch.no_grad():
        for batch in batches:
            model(*batch)
        for stub in stubs:
            stub.calibrating = False
        outputs = [model(*batch) for batch in batches]
    torch.save(outputs[0] if len(outputs) == 1 else outputs, out)


def sqnr_only(example, model_file, bits, names, inputs):
    import json
    import math
    model = load_example(example).Model().eval()
    model.load_state_dict(torch.jit.load(model_file).state_dict())
    stubs = replace_named_stubs(model, int(bits))
    quantized = set(names.split(",")) if names else set()
    batches = [as_args(torch.load(f)) for f in inputs]
    with torch.no_grad():
        floats = [model(*batch) for batch in batches]
        for name, stub in stubs.items():
            stub.calibrating = False
            if name not in quantized:
                stub.forward = lambda x: x
        simulated = [model(*batch) for batch in batches]
    signal, noise = [], []
    for f, q in zip(floats, simulated):
        for i, (a, b) in enumerate(zip(tensors(f), tensors(q))):
            if i == len(signal):
                signal.append(0.0)
                noise.append(0.0)
            a, b = a.double(), b.double()
            signal[i] += (a * a).sum().item()
            noise[i] += ((b - a) * (b - a)).sum().item()
    print(json.dumps(["inf" if n == 0 else 10 * math.log10(s / n) for s, n in zip(signal, noise)]))


def sqnr_db(signal, noise):
    import math
    return "inf" if noise == 0 else 10 * math.log10(signal / noise)


def record_module_outputs(model, calls, order):
    """A forward hook on every submodule: each call's output (a copy), per path, in order."""
    def hook(path):
        def record(module, args, output):
            if isinstance(output, torch.Tensor):
                if path not in calls:
                    order.append(path)
                calls.setdefault(path, []).append(output.detach().clone())
        return record
    stubs = [path for path, module in model.named_modules() if isinstance(module, ReferenceStub)]
    for path, module in model.named_modules():
        # the stubs' stand-ins are hooked, not their observers
        if path and not any(path.startswith(stub + ".") for stub in stubs):
            module.register_forward_hook(hook(path))


def layers(example, model_file, bits, inputs):
    import json
    model = load_example(example).Model().eval()
    model.load_state_dict(torch.jit.load(model_file).state_dict())
    stubs = replace_named_stubs(model, int(bits))
    batches = [as_args(torch.load(f)) for f in inputs]
    runs = {"float": [], "simulated": []}
    order = []
    with torch.no_grad():
        for run in ("float", "simulated"):
            for batch in batches:
                calls = {}
                record_module_outputs(model, calls, order if run == "float" else [])
                model(*batch)
                runs[run].append(calls)
                for module in model.modules():
                    module._forward_hooks.clear()
            for stub in stubs.values():
                stub.calibrating = False
    rows = []
    for path in order:
        per_call, signal, noise = [], 0.0, 0.0
        for floats, simulated in zip(runs["float"], runs["simulated"]):
            for a, b in zip(floats.get(path, []), simulated.get(path, [])):
                a, b = a.double(), b.double()
                s, n = (a * a).sum().item(), ((b - a) * (b - a)).sum().item()
                per_call.append(sqnr_db(s, n))
                signal, noise = signal + s, noise + n
        rows.append({"path": path, "kind": "quant_point" if path in stubs else "module",
                     "sqnr": sqnr_db(signal, noise), "calls": per_call})
    print(json.dumps(rows))


def converted_scales(example, input_file):
    """The eager converted model of `example`'s build(), its quantized module outputs' qparams."""
    import json
    from torch.ao.nn.quantized import QFunctional
    module = load_example(example)
    torch.manual_seed(0)  # as examples/export.py seeds each example
    script, trace = torch.jit.script, torch.jit.trace
    torch.jit.script = lambda model, *args, **kwargs: model
    torch.jit.trace = lambda model, *args, **kwargs: model
    try:
        model = module.build()
    finally:
        torch.jit.script, torch.jit.trace = script, trace
    scales = {}

    def note(path, output):
        if isinstance(output, torch.Tensor) and output.is_quantized and path not in scales:
            scales[path] = {"scale": output.q_scale(), "zero_point": output.q_zero_point()}

    for path, m in model.named_modules():
        if not path:
            continue
        m.register_forward_hook(lambda m, args, output, path=path: note(path, output))
        if isinstance(m, QFunctional):  # its ops are methods, which no forward hook sees
            for name in ("add", "add_scalar", "mul", "mul_scalar", "add_relu", "cat"):
                op = getattr(m, name)
                setattr(m, name, lambda *args, op=op, path=path, **kwargs: note_and_return(path, op(*args, **kwargs)))

    def note_and_return(path, output):
        note(path, output)
        return output

    with torch.no_grad():
        model(*as_args(torch.load(input_file)))
    print(json.dumps(scales))


# The op that unpacks each float module's weights from its converted counterpart's packed ones.
UNPACK = {
    torch.nn.Linear: torch.ops.quantized.linear_unpack,
    torch.nn.Conv1d: torch.ops.quantized.conv1d_unpack,
    torch.nn.Conv2d: torch.ops.quantized.conv2d_unpack,
    torch.nn.ConvTranspose1d: torch.ops.quantized.conv_transpose1d_unpack,
    torch.nn.ConvTranspose2d: torch.ops.quantized.conv_transpose2d_unpack,
}


def submodule(root, path):
    for part in path.split(".") if path else []:
        root = getattr(root, part)
    return root


def packed_params(converted):
    """A converted conv's or linear's packed weights; a Linear keeps them in a module of their own."""
    params = converted._packed_params
    return params._packed_params if isinstance(params, torch.jit.ScriptModule) else params


def rnn_weights(converted):
    """A dynamic LSTM's or GRU's weights in nn.LSTM's order (per layer and direction: w_ih, w_hh,
    b_ih, b_hh), from each cell's serialized state (kind, biases, _, _, packed weights)."""
    weights = []
    for cell in converted._all_weight_values.children():
        kind, biases, _, _, packed = cell.param.__getstate__()[0]
        assert kind == "quantized_dynamic", kind
        weights += [torch.ops.quantized.linear_unpack(w)[0].dequantize().contiguous() for w in packed] + list(biases)
    return weights


def load_dequantized(model, archive):
    """Gives the float eager `model` the converted archive's weights: packed ones unpacked and
    dequantized, float ones (BatchNorm's statistics, norms' affine parameters) as they are."""
    for path, module in model.named_modules():
        converted = submodule(archive, path)
        if hasattr(converted, "_all_weight_values"):
            for name, weight in zip(module._flat_weights_names, rnn_weights(converted), strict=True):
                getattr(module, name).data = weight.detach().clone()
            continue
        if hasattr(converted, "_packed_params"):
            weight, bias = UNPACK[type(module)](packed_params(converted))
            # contiguous, as a float model's own weights are (qnnpack unpacks them channels-last)
            module.weight = torch.nn.Parameter(weight.dequantize().contiguous())
            module.bias = None if bias is None else torch.nn.Parameter(bias)
            continue
        for name, value in list(module.named_parameters(recurse=False)) + list(module.named_buffers(recurse=False)):
            value.data = getattr(converted, name).detach().clone()


def float_reference(example, model_file, out, inputs):
    model = load_example(example).Model().eval()
    torch.backends.quantized.engine = "qnnpack"  # the engine the archive's weights are packed for
    load_dequantized(model, torch.jit.load(model_file))
    with torch.no_grad():
        outputs = [model(*as_args(torch.load(f))) for f in inputs]
    torch.save(outputs[0] if len(outputs) == 1 else outputs, out)


def run_archive(model_file, out, input_file, *flags):
    model = torch.jit.load(model_file)
    if "--no-fake-quant" in flags:
        for name, buffer in model.named_buffers():
            if name.endswith("fake_quant_enabled"):
                buffer.zero_()
    with torch.no_grad():
        torch.save(model(*as_args(torch.load(input_file))), out)


def tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors(v)]
    return []


def equal(a, b):
    ta, tb = tensors(torch.load(a)), tensors(torch.load(b))
    if len(ta) != len(tb):
        sys.exit(f"{len(ta)} tensors against {len(tb)}")
    for i, (x, y) in enumerate(zip(ta, tb)):
        if x.dtype != y.dtype or x.shape != y.shape or not torch.equal(x, y):
            diff = (x.double() - y.double()).abs().max().item() if x.shape == y.shape else "shape"
            sys.exit(f"tensor {i} differs (max abs difference {diff})")


def all_zeros(a):
    for i, t in enumerate(tensors(torch.load(a))):
        if torch.count_nonzero(t).item() != 0:
            sys.exit(f"tensor {i} has {torch.count_nonzero(t).item()} nonzero elements")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "simulate":
        simulate(args[0], args[1], args[2], args[3], args[4:])
    elif command == "float-reference":
        float_reference(args[0], args[1], args[2], args[3:])
    elif command == "run-archive":
        run_archive(*args)
    elif command == "sqnr-only":
        sqnr_only(args[0], args[1], args[2], args[3], args[4:])
    elif command == "layers":
        layers(args[0], args[1], args[2], args[3:])
    elif command == "converted-scales":
        converted_scales(args[0], args[1])
    elif command == "equal":
        equal(*args)
    elif command == "all-zeros":
        all_zeros(*args)
    else:
        sys.exit("unknown command " + command)
