# The Segment peer on the GPU machine: the explicit Perona-Malik scheme of
# rill/algorithms/segment.h (exponential conductance, clamped edges) and the
# region growing (4-neighbour dilations inside the range until nothing
# changes, checked every 16), in PyTorch, torch.compile'd, timed with CUDA
# events on the workload of rill-bench-segment (its test image, seed and
# range on a 2^k square float image). Prints one JSON line.
# Arguments: log2 of the side (11), iterations (200).
import json
import sys

import torch

import cuda_events  # beside this script

log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 11
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 200
n = 1 << log2
dt, inv_k = 0.2, 1.0 / 0.1


def step(u):
    p = torch.nn.functional.pad(u[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    c = p[1:-1, 1:-1]
    total = torch.zeros_like(c)
    for nb in (p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, 2:], p[1:-1, :-2]):
        d = nb - c
        s = (d * inv_k) * (d * inv_k)
        total = total + torch.exp(-s) * d
    return c + dt * total


r = {"peer": "torch " + torch.__version__ + " (torch.compile)", "device": torch.cuda.get_device_name(), "side": n}
u = torch.rand(n, n, device="cuda")
eager_ms = cuda_events.timed(lambda: step(u), reps=20)
compiled = torch.compile(step)
r["iteration_eager_ms"] = eager_ms
r["iteration_compiled_ms"] = cuda_events.timed(lambda: compiled(u), reps=20)


def many(u):
    for _ in range(iterations):
        u = compiled(u)
    return u


r["diffusion_compiled_ms"] = cuda_events.timed(lambda: many(u), reps=1)
r["copy_ms"] = cuda_events.timed(lambda: u.clone(), reps=20)


def grow_block(m, inside):
    for _ in range(16):
        p = torch.nn.functional.pad(m[None, None], (1, 1, 1, 1))[0, 0]
        m = torch.maximum(m, torch.maximum(torch.maximum(p[:-2, 1:-1], p[2:, 1:-1]), torch.maximum(p[1:-1, 2:], p[1:-1, :-2])) * inside)
    return m


grow_compiled = torch.compile(grow_block)
ys = (torch.arange(n, device="cuda", dtype=torch.float32)[:, None] + 0.5) / n
xs = (torch.arange(n, device="cuda", dtype=torch.float32)[None, :] + 0.5) / n
image = 0.15 + 0.05 * xs + 0 * ys
image = torch.where((xs > 0.6) & (xs < 0.9) & (ys > 0.55) & (ys < 0.7), 0.5, image)
image = torch.where(torch.hypot(xs - 0.35, ys - 0.45) < 0.22, 0.85, image)
image = image + 0.05 * torch.randn(n, n, device="cuda")
seeds = torch.zeros(n, n, device="cuda")
seeds[int(0.45 * n), int(0.35 * n)] = 1.0


def segment():
    smooth = many(image)
    inside = ((smooth >= 0.7) & (smooth <= 1.0)).float()
    m = seeds
    while True:
        grown = grow_compiled(m, inside)
        if torch.equal(grown, m):
            return m
        m = grown


region = segment()
r["segment_compiled_ms"] = cuda_events.timed(segment, reps=1)
r["region_pixels"] = int(region.sum().item())
print(json.dumps(r))
