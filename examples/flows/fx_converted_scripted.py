"""FX graph mode post-training quantization, converted to int8 and scripted: no hazard.

Flow: `prepare_fx(model, get_default_qconfig_mapping("qnnpack"), example_inputs)`, calibration
on four batches, `convert_fx`, `torch.jit.script` of the converted GraphModule (scripting
works for it in PyTorch 1.13). The archive holds `aten::quantize_per_tensor` at the input
(scale and zero point in the module attributes `features_0_input_scale_0`/`_zero_point_0`),
`quantized::conv2d_relu`, `quantized::linear` with their
output scale and zero point, and `aten::dequantize` before the output. Weights are prepacked
for the qnnpack engine (Debian's torch has no fbgemm).

The code is a small keypoint-heatmap net: conv + relu, global pooling, a linear head.
The scripted source is FX's generated code (`<eval_with_key>.N`), not this file.

qlint must stay silent: the model compares nothing and mixes no float operand into the
quantized path. Its simulation runs the int8 kernels as they are (SPEC.md section 6) and must
not call the model "unquantized".
"""
import torch
from torch import nn
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
from flows import batches, calibrate, select_engine


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, 5)

    def forward(self, image):
        x = self.features(image)
        x = torch.flatten(self.pool(x), 1)
        return self.head(x)


def image(generator):
    return torch.rand(1, 3, 16, 16, generator=generator) * 2.0 - 1.0


def example_input():
    return image(torch.Generator().manual_seed(0))


def converted():
    """The int8 model, as convert_fx returns it."""
    torch.manual_seed(0)
    engine = select_engine()
    model = Model().eval()
    qconfig_mapping = torch.ao.quantization.get_default_qconfig_mapping(engine)
    prepared = prepare_fx(model, qconfig_mapping, example_inputs=(example_input(),))
    calibrate(prepared, batches(image))
    return convert_fx(prepared)


def build():
    return torch.jit.script(converted())
