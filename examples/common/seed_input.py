"""The seed input of SPEC.md section 2: shape 1x2x4x4, the last channel is a 0/1 mask."""
import torch

ACTORS_INPUT = [
    [[[0.2465, -0.4717, 60.5, 1.0], [-0.2124, 0.5660, -1.6637, 0.0],
      [0.3338, 1.6051, -1.5088, 1.0], [-0.9215, -0.5901, 1.4871, 0.0]],
     [[0.1650, -0.3785, 1.6710, 0.0], [-0.3752, 0.2337, 0.4186, 0.0],
      [-0.2221, -0.1745, -0.6064, 1.0], [0.9174, -0.6317, 0.6133, 1.0]]]]


def actors_input(big_value=60.5):
    x = torch.tensor(ACTORS_INPUT)
    x[0, 0, 0, 2] = big_value
    return x
