"""FX post-training quantization, converted and scripted, with `== 1` on a dequantized output.

Flow: `prepare_fx(model, get_default_qconfig_mapping("qnnpack"), example_inputs)`, calibration,
`convert_fx`, `torch.jit.script`. The gate's Linear runs as `quantized::linear` (output scale
and zero point in the packed module), the clamp on the quantized tensor, and FX puts
`dequantize` before the `==` because comparisons have no quantized kernel: the compared value
is a dequantized int8 value, which carries the rounding error past the dequantize.

PyTorch 1.13 computes: the gate Linear's output (and the clamp's) scale 0.0070709, zero point 0;
1.0 becomes 0.9969951 (141 * scale), so `fully_open` is all False in the converted model while
the float model has 2 of its 8 gates at exactly 1.0 on the example input.
The gated product runs as `quantized::mul` (no hazard: both operands are quantized).

qlint must find:
  line 36 eq-nonzero-const  `gate == 1` compares a dequantized int8 value with 1
The scripted source is FX's generated code (`<eval_with_key>.N`), so the location is there
(see the comment in tests/e2e/flow_expectations.txt).
"""
import torch
from torch import nn
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
from flows import batches, calibrate, select_engine


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.gate = nn.Linear(16, 4)
        nn.init.constant_(self.gate.bias, 1.0)
        self.head = nn.Linear(16, 4)

    def forward(self, state):
        h = self.encoder(state)
        gate = torch.clamp(self.gate(h), 0.0, 1.0)
        fully_open = gate == 1
        return self.head(h) * gate, fully_open


def state(generator):
    return torch.randn(2, 6, generator=generator)


def example_input():
    return state(torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    engine = select_engine()
    model = Model().eval()
    qconfig_mapping = torch.ao.quantization.get_default_qconfig_mapping(engine)
    prepared = prepare_fx(model, qconfig_mapping, example_inputs=(example_input(),))
    calibrate(prepared, batches(state))
    return torch.jit.script(convert_fx(prepared))
