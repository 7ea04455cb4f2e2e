"""Exports a torch.fx GraphModule (the seed model S1, traced once already, as quantization flows
hand models on) with qlint_fx: its nodes' frames are then FX's generated code, the pseudo-file
`<eval_with_key>.N`, not the user's file.

    fx_graph_module_export.py REPO OUT.fx.json
"""
import os
import sys

import torch
import torch.fx

repo, out = sys.argv[1], sys.argv[2]
sys.path[:0] = [os.path.join(repo, "python"), os.path.join(repo, "examples", "common"), os.path.join(repo, "examples")]
import export  # noqa: E402  examples/export.py
import qlint_fx  # noqa: E402


class StubsAsLeaves(torch.fx.Tracer):
    """The stubs stay calls, as in every flow that keeps them (torch.fx would inline them)."""

    def is_leaf_module(self, module, qualified_name):
        return type(module).__name__.endswith("QuantStub") or super().is_leaf_module(module, qualified_name)


example = export.load_example(os.path.join(repo, "examples", "seed", "s1_eq_one.py"))
model = example.Model().eval()
graph_module = torch.fx.GraphModule(model, StubsAsLeaves().trace(model))
qlint_fx.export(graph_module, out, (example.example_input(),))
