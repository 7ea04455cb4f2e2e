"""Script torchvision's quantizable models in float form (weights=None, quantize=False) with
Debian's python3-torchvision, for qlint's no-false-positive tests on real architectures.
With --fx, export their FX graphs (python/qlint_fx.py) instead, those torch.fx can trace.

    /usr/bin/python3 export_torchvision.py OUT_DIR
    /usr/bin/python3 export_torchvision.py --fx OUT_DIR
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


# ShuffleNet's channel shuffle iterates over a traced shape, which torch.fx cannot trace.
NOT_FX_TRACEABLE = {"shufflenet_v2_x0_5"}


def main():
    fx = sys.argv[1] == "--fx"
    out = sys.argv[2] if fx else sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    if fx:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
        import qlint_fx
        for name, make in MODELS.items():
            if name not in NOT_FX_TRACEABLE:
                qlint_fx.export(make().eval(), os.path.join(out, name + ".fx.json"), (torch.randn(1, 3, 224, 224),))
        return
    for name, make in MODELS.items():
        torch.jit.script(make().eval()).save(os.path.join(out, name + ".pt"))


if __name__ == "__main__":
    main()
