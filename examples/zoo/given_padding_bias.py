"""Attention whose padding bias comes precomputed as a model input: 0 for real tokens, -10000
standing in for -inf for padding (encoders that take an `attention_bias` argument).

The bias never passes a stub (unquantized-operand). The model does not show how it was made, so
the finding offers a quant point of its own; `--fix --input` measures the bias, sees it reach
-10000 (whatever it is added to would need a scale spanning that), refuses the quant point, says
why, and writes nothing. Where the model makes the bias itself (zoo/finite_padding_bias), the
finding says so without inputs.

Expected findings:
  line 26 unquantized-operand  the given bias added to the quantized scores
"""
import torch
from qat import example_module

# The query and key projections and the tokens of examples/zoo/additive_padding_mask.py; only
# the bias differs.
attention = example_module("zoo", "additive_padding_mask")


class Model(attention.Model):
    def forward(self, tokens, bias):
        x = self.quant(tokens)
        scores = torch.bmm(self.query(x), self.key(x).transpose(1, 2))
        # The line the finding names.
        weights = (scores + bias.unsqueeze(1)).softmax(-1)
        return self.dequant(torch.bmm(weights, x))


def example_input():
    generator = torch.Generator().manual_seed(6)
    tokens = torch.randn(2, 5, 8, generator=generator)
    bias = torch.zeros(2, 5)
    bias[1, 3:] = -10000.0
    return tokens, bias
