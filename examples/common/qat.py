"""Eager-mode QAT with an int16 FakeQuantize, calibrated and traced: the shape of model that
accelerator toolchains consume, with `aten::fake_quantize_per_tensor_affine` in the graph and
the calibrated scale in the model's state."""
import torch
from torch.ao.quantization import FakeQuantize, MinMaxObserver, QConfig

INT16_FAKE_QUANT = FakeQuantize.with_args(
    observer=MinMaxObserver, quant_min=-32768, quant_max=32767, dtype=torch.qint32,
    qscheme=torch.per_tensor_symmetric)

INT8_FAKE_QUANT = FakeQuantize.with_args(
    observer=MinMaxObserver, quant_min=-128, quant_max=127, dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric)


def trace_int16_qat(model, example_input):
    """prepare_qat with int16 FakeQuantize, calibrate on the example input, trace."""
    return trace_qat(model, example_input, INT16_FAKE_QUANT)


def trace_qat(model, example_input, fake_quant):
    """prepare_qat with `fake_quant` for activations and weights, calibrate on the example input
    (a tensor or a tuple of tensors), trace."""
    return prepare_calibrate_trace(model, example_input, QConfig(activation=fake_quant, weight=fake_quant))


def trace_default_qat(model, example_input, backend="qnnpack"):
    """The same with PyTorch's default QAT qconfig for `backend` (FusedMovingAvgObsFakeQuantize,
    quint8, affine)."""
    return prepare_calibrate_trace(model, example_input, torch.ao.quantization.get_default_qat_qconfig(backend))


def prepare_calibrate_trace(model, example_input, qconfig):
    """prepare_qat with `qconfig`, calibrate on the example input, observers off, trace in eval mode."""
    args = tuple(example_input) if isinstance(example_input, (tuple, list)) else (example_input,)
    model.qconfig = qconfig
    model.train()
    torch.ao.quantization.prepare_qat(model, inplace=True)
    with torch.no_grad():
        model(*args)
    model.apply(torch.ao.quantization.disable_observer)
    model.eval()
    return torch.jit.trace(model, args)


def trace_qat_observers_on(model, example_input, fake_quant):
    """prepare_qat, calibrate, eval mode and trace, as tutorials' readers often stop: without
    `disable_observer`, so each FakeQuantize still observes every input at run time, and one
    called twice passes its observer's state from the first call to the second in the trace."""
    args = tuple(example_input) if isinstance(example_input, (tuple, list)) else (example_input,)
    model.qconfig = QConfig(activation=fake_quant, weight=fake_quant)
    model.train()
    torch.ao.quantization.prepare_qat(model, inplace=True)
    with torch.no_grad():
        model(*args)
    model.eval()
    # The trace's check reruns the model, whose observers moved: a mismatch it warns about.
    return torch.jit.trace(model, args, check_trace=False)


def seed_example(name):
    """The seed scenario examples/seed/<name>.py as a module (its Model and example_input)."""
    return example_module("seed", name)


def example_module(example_set, name):
    """The example examples/<example_set>/<name>.py as a module, so that a traced QAT example can
    export the model another example scripts."""
    import importlib.util
    import os
    import sys

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), example_set, name + ".py")
    module_name = "qlint_" + example_set + "_" + name
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # TorchScript looks classes up through their module
    spec.loader.exec_module(module)
    return module
