"""nn.MultiheadAttention with a bool `key_padding_mask`, after a QuantStub: no findings.

Agent-interaction style attention: the agents' states pass a QuantStub, an embedding Linear,
then self-attention over the agents where padded agent slots are masked out with the bool
`key_padding_mask` (a model input). Inside `F.multi_head_attention_forward` PyTorch turns the
bool mask into an additive float mask (`masked_fill` with -inf, then `baddbmm`/`softmax`):
that is attention-mask plumbing, not an operand that needs quantizing, so `nn.MultiheadAttention`
must not produce `unquantized-operand` (or any other) findings inside torch/nn/functional.py.

Expected findings: none.
FX: torch.fx cannot trace nn.MultiheadAttention's input checks (FX_TRACEABLE = False).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(6, 32)
        self.attn = nn.MultiheadAttention(32, num_heads=4, batch_first=True)
        self.out = nn.Linear(32, 2)
        self.dequant = DeQuantStub()

    def forward(self, agents, padding_mask):
        x = self.embed(self.quant(agents))
        context, _ = self.attn(x, x, x, key_padding_mask=padding_mask, need_weights=False)
        return self.dequant(self.out(context + x))


def example_input():
    generator = torch.Generator().manual_seed(0)
    agents = torch.randn(2, 5, 6, generator=generator) * 4.0
    padding_mask = torch.tensor([[False, False, False, True, True],
                                 [False, False, False, False, False]])
    return agents, padding_mask


# prepare_qat swaps nn.MultiheadAttention's output projection, which has no QAT form in PyTorch 1.13.
ONNX_EXPORTABLE = False
