"""A float model holding QuantStub modules, exported with torch.jit.trace without `prepare`.

A common export mistake: the model is written for eager-mode quantization (QuantStub,
DeQuantStub, and the S1 comparison after the stub), but is traced in float, before
`prepare`/`prepare_qat`. QuantStub and DeQuantStub are identities in float, so the trace
records no quantization: PyTorch 1.13 keeps a call of each stub's forward with no argument
and no result (`prim::CallMethod[name="forward"](%quant)` of type NoneType), and the data
flows around it (`x` goes straight to the slice and to `self.fc`).

Expected: no rule findings (nothing in the archive is quantized), but qlint must warn that
the model holds QuantStub/DeQuantStub modules whose calls the trace dropped, so that the
`x[:, -1] == 1` at line 29 (S1) cannot be checked: script the model, or trace it after
prepare/prepare_qat. (No rule id exists for this warning yet.)
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.fc = nn.Linear(4, 4)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        valid = x[:, -1] == 1
        out = self.fc(x) * valid[:, None]
        return self.dequant(out)


def example_input():
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(6, 3, generator=generator)
    flag = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0]).view(6, 1)
    return torch.cat([features, flag], dim=1)


def build():
    torch.manual_seed(0)
    model = Model().eval()
    return torch.jit.trace(model, example_input())
