"""The converted FX model of fx_converted_scripted.py, exported with torch.jit.trace: no hazard.

Flow: `prepare_fx` + calibration + `convert_fx` (see fx_converted_scripted.py), then
`torch.jit.trace` instead of scripting, as deployment scripts often do. The traced graph has
the same `aten::quantize_per_tensor`, `quantized::conv2d_relu`, `quantized::linear` and
`aten::dequantize`, with source ranges in FX's generated code (`<eval_with_key>.N`).

qlint must stay silent, and its simulation must run the int8 kernels (not say "nothing is
quantized").
"""
from flows import sibling_example

_scripted = sibling_example("fx_converted_scripted")
Model = _scripted.Model
example_input = _scripted.example_input


def build():
    import torch
    return torch.jit.trace(_scripted.converted(), example_input())
