"""Write files that users mistake for TorchScript models, made by real PyTorch.

    /usr/bin/python3 make_bad_inputs.py OUT_DIR
"""
import os
import sys

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    net = Net()
    torch.save(net, os.path.join(out, "pickled_module.pt"))
    torch.save(net.state_dict(), os.path.join(out, "state_dict.pt"))
    torch.save(torch.ones(3), os.path.join(out, "tensor.pt"))


if __name__ == "__main__":
    main()
