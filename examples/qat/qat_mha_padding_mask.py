"""examples/zoo/mha_padding_mask.py traced after QAT with PyTorch's default qconfig (the attention
left in float: prepare_qat cannot swap its NonDynamicallyQuantizableLinear). The trace records
the attention's additive -inf mask and its `baddbmm` inside torch/nn/functional.py, called from
the user's `self.attn(...)` line: no finding, wherever qlint runs (public round 13's DETR: two
findings when run from a directory where the model's source could not be read, none elsewhere)."""
import torch

from qat import example_module

zoo = example_module("zoo", "mha_padding_mask")
Model = zoo.Model
example_input = zoo.example_input


def build():
    model = Model()
    model.attn.qconfig = None
    model.qconfig = torch.ao.quantization.get_default_qat_qconfig("qnnpack")
    model.train()
    torch.ao.quantization.prepare_qat(model, inplace=True)
    with torch.no_grad():
        model(*example_input())
    model.apply(torch.ao.quantization.disable_observer)
    model.eval()
    # The trace's own check traces again and compares the graphs, which differ in the names the
    # second trace gives the modules' classes (`___torch_mangle_24.DeQuantStub`), not in ops.
    return torch.jit.trace(model, example_input(), check_trace=False)
