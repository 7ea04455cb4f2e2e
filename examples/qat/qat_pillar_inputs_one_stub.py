"""examples/zoo/pillar_inputs_one_stub.py traced after int8 QAT with a plain FakeQuantize and its
observers left on: the one FakeQuantize is called three times, and the trace hands its
observer's state from each call to the next (`forward1(counts, min_val, ...)` returns the state
before the quantized tensor). A new fake quant in place of a later call passes on the state
that call received, as if the shared one had not seen the tensor."""
from qat import INT8_FAKE_QUANT, example_module, trace_qat_observers_on

zoo = example_module("zoo", "pillar_inputs_one_stub")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_qat_observers_on(Model(), example_input(), INT8_FAKE_QUANT)
