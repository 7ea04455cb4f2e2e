"""S4 as a traced int16 QAT model: data up to 70000 sets the shared scale to 2.1363, and round(1 / 2.1363) = 0, so every mask 1 becomes 0.

The model is the seed scenario examples/seed/s4_shared_scale.py, prepared for eager-mode QAT with an
int16 FakeQuantize, calibrated on its example input and traced."""
from qat import seed_example, trace_int16_qat

_seed = seed_example("s4_shared_scale")
Model = _seed.Model
example_input = _seed.example_input


def build():
    return trace_int16_qat(Model(), example_input())
