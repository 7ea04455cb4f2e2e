"""Write the files the end-to-end tests need beyond the examples, made by real PyTorch:
files users mistake for TorchScript (torch.save of a module, a state_dict, a tensor, the
legacy pre-1.6 format), an archive whose Python source file no longer exists, simulator
inputs in every container torch.save users choose, a model with a custom operator
(torchvision::nms), one with non-ASCII text before a hazard, models whose forward fails at run
time, the sim-divergence example with a suppression comment, and a converted model with a
kernel qlint has no float form of.

    /usr/bin/python3 make_test_models.py OUT_DIR REPO_DIR
"""
import os
import shutil
import sys
import tempfile

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def write_non_torchscript(out):
    net = Net()
    torch.save(net, os.path.join(out, "pickled_module.pt"))
    torch.save(net.state_dict(), os.path.join(out, "state_dict.pt"))
    torch.save(torch.ones(3), os.path.join(out, "tensor.pt"))
    torch.save(net.state_dict(), os.path.join(out, "legacy_save.pt"),
               _use_new_zipfile_serialization=False)


def write_source_gone(out, repo):
    """Export S1 from a copy of its source, then delete the copy: the archive's debug info is
    all that is left of the Python source."""
    sys.path.insert(0, os.path.join(repo, "examples"))
    sys.path.insert(0, os.path.join(repo, "examples", "common"))
    import export  # examples/export.py

    workdir = tempfile.mkdtemp()
    try:
        source = os.path.join(workdir, "gone_model.py")
        shutil.copy(os.path.join(repo, "examples", "seed", "s1_eq_one.py"), source)
        inputs = os.path.join(workdir, "inputs")
        os.makedirs(inputs)
        export.export(source, out, inputs)
    finally:
        shutil.rmtree(workdir)


def write_input_containers(out, repo):
    """The conv net's example input as a dict keyed by forward's argument names, and as a list."""
    sys.path.insert(0, os.path.join(repo, "examples"))
    import export  # examples/export.py

    image, gain = export.load_example(os.path.join(repo, "examples", "sim", "two_stub_convnet.py")).example_input()
    torch.save({"image": image, "gain": gain}, os.path.join(out, "convnet_dict_input.pt"))
    torch.save([image, gain], os.path.join(out, "convnet_list_input.pt"))
    torch.save({"image": image, "gains": gain}, os.path.join(out, "convnet_missing_key_input.pt"))
    torch.save({"image": image}, os.path.join(out, "one_entry_dict_input.pt"))
    torch.save("not a tensor", os.path.join(out, "string_input.pt"))


def write_custom_op_model(out, repo):
    sys.path.insert(0, os.path.join(repo, "tests", "e2e"))
    import torchvision_ops_model
    torch.jit.script(torchvision_ops_model.Model().eval()).save(os.path.join(out, "torchvision_nms.pt"))


def write_non_ascii_model(out, repo):
    sys.path.insert(0, os.path.join(repo, "tests", "e2e"))
    import non_ascii_model
    torch.jit.script(non_ascii_model.Model().eval()).save(os.path.join(out, "non_ascii.pt"))


def write_failing_forward_models(out, repo):
    sys.path.insert(0, os.path.join(repo, "tests", "e2e"))
    import failing_forward_model
    failing_forward_model.write(out)


def write_state_through_helper_model(out, repo):
    sys.path.insert(0, os.path.join(repo, "tests", "e2e"))
    import state_through_helper_model
    state_through_helper_model.write(out)


def write_suppressed_sim_divergence(out, repo):
    """examples/rules/sim_divergence.py with `# qlint: ignore[sim-divergence]` on its flipping
    comparison (the output's finding at the return stays)."""
    sys.path.insert(0, os.path.join(repo, "examples"))
    import export  # examples/export.py

    workdir = tempfile.mkdtemp()
    try:
        with open(os.path.join(repo, "examples", "rules", "sim_divergence.py")) as f:
            text = f.read()
        line = "        keep = energy > 0.5\n"
        assert line in text
        text = text.replace(line, line.rstrip("\n") + "  # qlint: ignore[sim-divergence]\n")
        source = os.path.join(workdir, "sim_divergence_suppressed.py")
        with open(source, "w") as f:
            f.write(text)
        inputs = os.path.join(workdir, "inputs")
        os.makedirs(inputs)
        export.export(source, out, inputs)
    finally:
        shutil.rmtree(workdir)


class Bags(nn.Module):
    def __init__(self):
        super().__init__()
        self.bags = nn.EmbeddingBag(10, 4, mode="sum")

    def forward(self, indices, offsets):
        return self.bags(indices, offsets)


class Warns(nn.Module):
    """Resizes the `out=` tensor of `index_select` at each of its 6 unrolled calls: LibTorch warns
    at every call, in every run qlint makes of the model."""

    def forward(self, x):
        buf = x.new_zeros(1)
        sums = []
        for k in range(6):
            torch.index_select(x, 0, torch.arange(k + 2), out=buf)
            sums.append(buf.sum())
        return torch.stack(sums)


def write_warning_model(out):
    x = torch.randn(16)
    torch.jit.trace(Warns(), x, check_trace=False).save(os.path.join(out, "warns.pt"))
    torch.save(x, os.path.join(out, "warns_input.pt"))


def write_quantized_embedding_bag(out):
    """An EmbeddingBag with int8 weights (float_qparams_weight_only_qconfig, converted, scripted:
    quantized::embedding_bag_byte): a kernel qlint's simulation has no float form of."""
    torch.backends.quantized.engine = "qnnpack"
    torch.manual_seed(0)
    model = Bags().eval()
    model.bags.qconfig = torch.ao.quantization.float_qparams_weight_only_qconfig
    torch.ao.quantization.prepare(model, inplace=True)
    torch.ao.quantization.convert(model, inplace=True)
    torch.jit.script(model).save(os.path.join(out, "quantized_embedding_bag.pt"))
    torch.save((torch.tensor([1, 2, 3, 4, 7]), torch.tensor([0, 2])),
               os.path.join(out, "quantized_embedding_bag_input.pt"))


def main():
    out, repo = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    write_non_torchscript(out)
    write_source_gone(out, repo)
    write_input_containers(out, repo)
    write_custom_op_model(out, repo)
    write_non_ascii_model(out, repo)
    write_failing_forward_models(out, repo)
    write_suppressed_sim_divergence(out, repo)
    write_quantized_embedding_bag(out)
    write_state_through_helper_model(out, repo)
    write_warning_model(out)


if __name__ == "__main__":
    main()
