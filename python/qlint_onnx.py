"""Export a PyTorch QAT model to ONNX so that qlint can point at your Python lines (docs/onnx.md).

    import qlint_onnx
    model = qlint_onnx.prepare_int8_qat(model, (x,))   # or your own prepare_qat and training
    qlint_onnx.export(model, (x,), "model.onnx")
    # then: qlint check model.onnx

`export` is torch.onnx.export with what qlint needs: verbose=True (each node's doc_string gets the
Python stack it came from), opset 13 (QuantizeLinear/DequantizeLinear per tensor and per axis),
PyTorch's printout of the graph silenced, and an ONNX symbolic for `torch.logical_not`, which
PyTorch 1.13 lacks (it is ONNX's `Not`).

PyTorch 1.13 exports only 8-bit fake quants (int8 or uint8) and not the default QAT qconfig's
FusedMovingAvgObsFakeQuantize; `prepare_int8_qat` prepares a model with a plain int8
FakeQuantize that it can export. Run with Debian's /usr/bin/python3, which has torch.
"""
import contextlib
import os
import sys

import torch

_REGISTERED = False


@contextlib.contextmanager
def quiet():
    """Standard output and error of this process (LibTorch's C++ writes to them) go nowhere while
    the block runs; exceptions still reach the caller."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        os.dup2(devnull.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


def register_symbolics():
    """ONNX symbolics PyTorch 1.13 lacks for ops quantized models use: `torch.logical_not` as `Not`."""
    global _REGISTERED
    if not _REGISTERED:
        torch.onnx.register_custom_op_symbolic("aten::logical_not", lambda g, x: g.op("Not", x), 13)
        _REGISTERED = True


def prepare_int8_qat(model, example_inputs):
    """`model` prepared for eager-mode QAT with an int8 FakeQuantize (activations and weights),
    calibrated on `example_inputs` (a tuple), observers off, in eval mode: exportable to ONNX."""
    from torch.ao.quantization import FakeQuantize, MinMaxObserver, QConfig, disable_observer, prepare_qat

    int8 = FakeQuantize.with_args(observer=MinMaxObserver, quant_min=-128, quant_max=127, dtype=torch.qint8,
                                  qscheme=torch.per_tensor_symmetric)
    model.qconfig = QConfig(activation=int8, weight=int8)
    model.train()
    prepare_qat(model, inplace=True)
    with torch.no_grad():
        model(*example_inputs)
    model.apply(disable_observer)
    return model.eval()


def export(model, example_inputs, path, opset_version=13, **kwargs):
    """torch.onnx.export(model, example_inputs, path) with verbose=True, quietly; other keyword
    arguments (input_names, dynamic_axes, ...) pass through."""
    register_symbolics()
    with quiet():
        torch.onnx.export(model, tuple(example_inputs), path, opset_version=opset_version, verbose=True, **kwargs)
