"""Script torchvision's quantizable models in float form (weights=None, quantize=False) with
Debian's python3-torchvision, for qlint's no-false-positive tests on real architectures.

    /usr/bin/python3 export_torchvision.py OUT_DIR
"""
import os
import sys

import torch
from torchvision.models import quantization as tvq

MODELS = {
    "mobilenet_v2": lambda: tvq.mobilenet_v2(weights=None, quantize=False),
    "mobilenet_v3_large": lambda: tvq.mobilenet_v3_large(weights=None, quantize=False),
    "resnet18": lambda: tvq.resnet18(weights=None, quantize=False),
    "shufflenet_v2_x0_5": lambda: tvq.shufflenet_v2_x0_5(weights=None, quantize=False),
    "googlenet": lambda: tvq.googlenet(weights=None, quantize=False, aux_logits=False,
                                       init_weights=False),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, make in MODELS.items():
        torch.jit.script(make().eval()).save(os.path.join(out, name + ".pt"))


if __name__ == "__main__":
    main()
