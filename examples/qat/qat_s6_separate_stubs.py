"""S6 as a traced int16 QAT model: the recommended form stays clean after tracing.

The model is the seed scenario examples/seed/s6_separate_stubs.py, prepared for eager-mode QAT with an
int16 FakeQuantize, calibrated on its example input and traced."""
from qat import seed_example, trace_int16_qat

_seed = seed_example("s6_separate_stubs")
Model = _seed.Model
example_input = _seed.example_input


def build():
    return trace_int16_qat(Model(), example_input())
