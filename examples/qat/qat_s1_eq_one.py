"""S1 as a traced int16 QAT model: the calibrated scale is 0.0018463, so 1.0 becomes 1.0007.

The model is the seed scenario examples/seed/s1_eq_one.py, prepared for eager-mode QAT with an
int16 FakeQuantize, calibrated on its example input and traced."""
from qat import seed_example, trace_int16_qat

_seed = seed_example("s1_eq_one")
Model = _seed.Model
example_input = _seed.example_input


def build():
    return trace_int16_qat(Model(), example_input())
