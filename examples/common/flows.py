"""Helpers for examples/flows: PyTorch's own quantization flows, run the way their tutorials
run them (a few training or calibration batches, then export).

Everything here is seeded, so that exporting twice gives the same archive and the same
calibrated scales."""
import torch


def batches(make, count=4, seed=1):
    """`count` calibration batches from `make(generator)`, from a generator of their own (so the
    model's initialisation and the data do not share one random stream)."""
    generator = torch.Generator().manual_seed(seed)
    return [make(generator) for _ in range(count)]


def as_args(batch):
    return tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)


def calibrate(model, data):
    """Post-training calibration: run the observers over the batches, no gradients."""
    with torch.no_grad():
        for batch in data:
            model(*as_args(batch))
    return model


def train_qat(model, data, steps=3, lr=0.01):
    """A few QAT steps in training mode (observers and fake quantization on), on a target the
    model can fit: the fake-quant statistics move like in a real fine-tuning run."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    model.train()
    for step in range(steps):
        for batch in data:
            out = model(*as_args(batch))
            loss = out.pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


def freeze_qat(model):
    """End of QAT as the tutorials end it: observers off (the scales stop moving), eval mode."""
    model.apply(torch.ao.quantization.disable_observer)
    model.eval()
    return model


def select_engine():
    """The quantized engine to prepack weights for. Debian's torch has no fbgemm, so converted
    models use qnnpack's qconfig and engine; the name is returned for get_default_qconfig."""
    engines = torch.backends.quantized.supported_engines
    engine = "fbgemm" if "fbgemm" in engines else "qnnpack"
    torch.backends.quantized.engine = engine
    return engine


def fake_quant_reference(fake_quant, value=1.0):
    """What PyTorch's fake quantization makes of `value` with this module's calibrated
    parameters: (scale, zero_point, fake-quantized value). For the docstrings' reference numbers."""
    scale = float(fake_quant.scale)
    zero_point = int(fake_quant.zero_point)
    out = torch.fake_quantize_per_tensor_affine(
        torch.tensor([value]), scale, zero_point, fake_quant.quant_min, fake_quant.quant_max)
    return scale, zero_point, float(out[0])


def sibling_example(name):
    """The example examples/flows/<name>.py as a module, for a variant that exports the same
    model another way."""
    import importlib.util
    import os
    import sys

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "flows", name + ".py")
    module_name = "qlint_flows_" + name
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
