"""Models whose forward fails at run time, for the tests that qlint reports the model's own
error at the Python line (exit 2, one line) instead of aborting: a Linear given an input of the
wrong width, and a model that raises."""
import torch
from torch import nn
from torch.ao.quantization import QuantStub


class WrongWidth(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = self.quant(x)
        return self.fc(x)  # line 17: fails for an input that is not 8 wide


class Raises(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()

    def forward(self, x):
        x = self.quant(x)
        if x.sum() > 1e9:
            raise ValueError("input out of range")  # line 28
        return x


def write(out):
    torch.jit.script(WrongWidth()).save(f"{out}/wrong_width.pt")
    torch.save(torch.ones(1, 7), f"{out}/wrong_width_input.pt")
    torch.jit.script(Raises()).save(f"{out}/raises.pt")
    torch.save(torch.full((2,), 1e10), f"{out}/raises_input.pt")
    write_newer_pytorch_archive(out)


class UsesRelu(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def write_newer_pytorch_archive(out):
    """An archive as a newer PyTorch would save it: its code calls an aten operator LibTorch
    1.13 does not have (torch.relu renamed in the serialized code to torch.relu_from_the_future)."""
    import zipfile
    plain = f"{out}/uses_relu.pt"
    torch.jit.script(UsesRelu()).save(plain)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(f"{out}/newer_pytorch.pt", "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename.endswith(".py"):
                data = data.replace(b"torch.relu(", b"torch.relu_from_the_future(")
            dst.writestr(item, data)
