"""FX graph mode QAT (`prepare_qat_fx`), trained a few steps and traced: `== 1` on a quantized
head output.

Flow: `prepare_qat_fx(model, get_default_qat_qconfig_mapping("qnnpack"), example_inputs)`. There
is no QuantStub: FX inserts FusedMovingAvgObsFakeQuantize modules `activation_post_process_N`
where a quantized op needs them (the model input, each Linear output); the Linear layers'
weight fake quants are weights. Three SGD steps, observers disabled, `torch.jit.trace` in eval
mode (the graph has `aten::fused_moving_avg_obs_fake_quant` in each activation_post_process_N).

FX quantizes only what feeds a quantized op, so a compare on the raw input would read the float
tensor; here the compared value is the visibility head's output, which is fake-quantized by
`activation_post_process_3` (the Linear's output fake quant; the clamp shares it).
PyTorch 1.13 computes for it: scale 0.00458696, zero point 0 (calibrated range [0.63, 1.17]);
the clamp saturates part of the scores at exactly 1.0 in float, but 1.0 fake quantizes to
0.9999563 (218 * scale): on the example input 7 of the 10 scores are exactly 1.0 in float
(fake quantization disabled) and none in the QAT model.

qlint must find (traced: the statement range of the line):
  line 43 eq-nonzero-const  `vis == 1` compares a fake-quantized value with 1
No shared-stub-mask: that fake quant quantizes the visibility score alone, not a mask packed
with data. No bool-arith: the mask is used by `masked_fill`, not in arithmetic. No reused-stub:
FX shares the head's fake quant with the clamp output on purpose (the trace calls
`activation_post_process_3` twice, `forward` and `forward1`); the clamp cannot widen the range.
The traced GraphModule's frames are FX's generated code (`<eval_with_key>.N`), not this file;
see the comment in tests/e2e/flow_expectations.txt.
"""
import torch
from torch import nn
from torch.ao.quantization.quantize_fx import prepare_qat_fx
from flows import batches, freeze_qat, train_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 8))
        self.visibility = nn.Linear(8, 1)
        nn.init.constant_(self.visibility.bias, 1.0)  # start out predicting "visible"

    def forward(self, points):
        h = self.encoder(points)
        vis = torch.clamp(self.visibility(h), 0.0, 1.0)
        visible = vis == 1
        return h.masked_fill(~visible, 0.0)


def lane_points(generator):
    """1 x 10 lane points (x, y)."""
    return torch.randn(1, 10, 2, generator=generator) * 1.2


def example_input():
    return lane_points(torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    model = Model().train()
    qconfig_mapping = torch.ao.quantization.get_default_qat_qconfig_mapping("qnnpack")
    model = prepare_qat_fx(model, qconfig_mapping, example_inputs=(example_input(),))
    train_qat(model, batches(lane_points))
    freeze_qat(model)
    return torch.jit.trace(model, example_input())
