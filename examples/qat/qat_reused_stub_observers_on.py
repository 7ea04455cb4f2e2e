"""reused-stub in a traced int16 QAT model saved with its observers on (`eval()` without
`disable_observer`): the stub's FakeQuantize still observes every input at run time, and the
trace passes its observer's state from the first call to the second, so its first `forward`
returns that state with the quantized features.

qlint says the scales are not fixed (a note on the finding), and `--fix` still gives the gain a
FakeQuantize of its own: a clone whose forward returns the quantized tensor only, observing its
own inputs as the model's do."""
from qat import INT16_FAKE_QUANT, example_module, trace_qat_observers_on

rules = example_module("qat", "qat_reused_stub")
Model = rules.Model
example_input = rules.example_input


def build():
    return trace_qat_observers_on(Model(), example_input(), INT16_FAKE_QUANT)
