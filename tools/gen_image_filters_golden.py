#!/usr/bin/python3
"""Writes examples/testdata/photo.png, a small synthetic RGB picture, and
PyTorch 1.13's results of the image example's three filters on it
(examples/testdata/image_filters_golden.txt):

- "image": the picture as torchvision's ToTensor gives it, [1, 3, H, W] in [0, 1];
- "sharpened": each channel through Conv2d(1, 1, 3, bias=False) whose weight is
  -1/9 everywhere and 1 in the centre;
- "avg_pooled": AvgPool2d(2, 2); "max_pooled": MaxPool2d(2).

Run with Debian's python3-torch: /usr/bin/python3 tools/gen_image_filters_golden.py
"""
import os
import struct
import zlib

import torch
from torch import nn

from golden import ROOT, write_golden

HEIGHT, WIDTH = 30, 40


def picture():
    """A deterministic picture with gradients, a disc, stripes and noise."""
    g = torch.Generator().manual_seed(0)
    y = torch.arange(HEIGHT).view(-1, 1).float() / (HEIGHT - 1)
    x = torch.arange(WIDTH).view(1, -1).float() / (WIDTH - 1)
    disc = (((x - 0.6) ** 2 + (y - 0.45) ** 2) < 0.08).float()
    stripes = ((torch.arange(WIDTH).view(1, -1) // 3) % 2).float().expand(HEIGHT, WIDTH)
    r = 0.6 * x + 0.4 * disc
    gch = 0.5 * y + 0.3 * stripes * (1 - disc)
    b = 0.8 * (1 - x) * y + 0.2 * disc
    rgb = torch.stack([r, gch, b]) + 0.05 * torch.rand(3, HEIGHT, WIDTH, generator=g)
    return (rgb.clamp(0, 1) * 255).round().to(torch.uint8)  # [3, H, W]


def write_png(path, pixels):
    """An 8-bit RGB PNG of `pixels` [3, H, W] (uint8), rows unfiltered."""
    _, h, w = pixels.shape
    rows = pixels.permute(1, 2, 0).reshape(h, w * 3)
    raw = b"".join(b"\x00" + bytes(row.tolist()) for row in rows)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    pixels = picture()
    write_png(os.path.join(ROOT, "examples/testdata/photo.png"), pixels)
    image = pixels.float().div(255).unsqueeze(0)  # ToTensor, batched

    conv = nn.Conv2d(1, 1, 3, bias=False)
    kernel = torch.full((3, 3), -1 / 9)
    kernel[1, 1] = 1
    conv.weight.data = kernel.view(1, 1, 3, 3)
    with torch.no_grad():
        channels = image.view(3, 1, HEIGHT, WIDTH)
        sharpened = conv(channels).view(1, 3, HEIGHT - 2, WIDTH - 2)
        avg_pooled = nn.AvgPool2d(2, 2)(image)
        max_pooled = nn.MaxPool2d(2)(image)
    write_golden("image_filters_golden.txt",
                 {"image": image, "sharpened": sharpened, "avg_pooled": avg_pooled,
                  "max_pooled": max_pooled},
                 directory="examples/testdata")


if __name__ == "__main__":
    main()
