"""Attention with a padding bias of -10000 standing in for -inf, as BERT-style encoders build it
(`(1.0 - keep) * -10000.0` added to the quantized scores), scripted with QuantStubs.

The bias never passes a stub (unquantized-operand). A new QuantStub would hold it exactly (0
and -10000 at int16), but whatever the bias is added to would then need a scale spanning 10000,
which rounds the scores away on the accelerator: the finding sees `(1.0 - keep) * -10000.0`, says
so, and offers no stub; `--fix` writes nothing, as for the traced form (qat/qat_finite_padding_
bias). Before, "Resolved" by that stub; a bias given as an input is refused on it (given_padding_bias).

Expected findings:
  line 26 unquantized-operand  the -10000 bias added to the quantized scores
"""
import torch
from qat import example_module

# The query and key projections and the input of examples/zoo/additive_padding_mask.py; only the
# bias differs.
attention = example_module("zoo", "additive_padding_mask")


class Model(attention.Model):
    def forward(self, tokens, keep):
        x = self.quant(tokens)
        bias = ((1.0 - keep) * -10000.0).unsqueeze(1)
        scores = torch.bmm(self.query(x), self.key(x).transpose(1, 2))
        weights = (scores + bias).softmax(-1)
        return self.dequant(torch.bmm(weights, x))


def example_input():
    generator = torch.Generator().manual_seed(6)
    tokens = torch.randn(2, 5, 8, generator=generator)
    keep = torch.ones(2, 5)
    keep[1, 3:] = 0.0
    return tokens, keep
