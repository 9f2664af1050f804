# The particle step of rill-bench-particles written in PyTorch (CUDA), the same run's peer:
# the block of particles on a lattice 1.95 r apart in the lower half of the box [-1, 1]^3,
# cell keys, torch.sort (CUB's radix sort), the gather into key order, cell ranges by
# bincount and cumsum, every pair of the 27 cells around each particle expanded with
# repeat_interleave and tested, spring-damper forces summed by index_add_, gravity,
# semi-implicit Euler and walls. The step is first checked against a float64 brute force
# over every pair (a wrong fast step is no figure), then timed with CUDA events.
#
#   python3 bench/gpu/torch_particles.py 20 22     # log2 of the particle counts
#
# Prints one JSON line: the step's milliseconds per count.
import json, math, sys
import torch

from cuda_events import timed  # beside this script

K, C, E, DT = 2e4, 20.0, 0.3, 1.0 / 2400
G = torch.tensor([0.0, -9.81, 0.0])
OFFSETS = [(dx, dy, dz) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


def block(n, device="cuda", dtype=torch.float32):
    side = math.ceil((2.0 * n) ** (1 / 3))
    spacing = 2.0 / side
    r = spacing / 1.95
    i = torch.arange(n, device=device)
    x, z, y = i % side, (i // side) % side, i // (side * side)
    p = torch.stack([-1 + r + spacing * x, -1 + r + spacing * y, -1 + r + spacing * z], 1).to(dtype)
    # A small, fixed velocity field, so that damping and walls act.
    v = 0.1 * torch.stack([torch.sin(3.0 * p[:, 1]), torch.cos(5.0 * p[:, 0]), torch.sin(7.0 * p[:, 2])], 1)
    return p, v.to(dtype), r


def integrate(p, v, f, r):
    g = G.to(p.device, p.dtype)
    v = v + DT * g + DT * f
    p = p + DT * v
    low, high = -1 + r, 1 - r
    v = torch.where(p < low, torch.maximum(v, -E * v), torch.where(p > high, torch.minimum(v, -E * v), v))
    return p.clamp(low, high), v


def step(p, v, r):
    n = p.shape[0]
    diam = 2 * r
    cell = diam * (1 + 1e-5)
    dims = max(1, math.ceil(2 / cell))
    c3 = ((p + 1) * (1 / cell)).floor().clamp(0, dims - 1).long()
    key = (c3[:, 2] * dims + c3[:, 1]) * dims + c3[:, 0]
    key, order = torch.sort(key)
    ps, vs, cs = p[order], v[order], c3[order]
    counts = torch.bincount(key, minlength=dims ** 3)
    start = torch.cumsum(counts, 0) - counts
    f = torch.zeros_like(ps)
    ids = torch.arange(n, device=p.device)
    for dx, dy, dz in OFFSETS:
        nc = cs + torch.tensor([dx, dy, dz], device=p.device)
        valid = ((nc >= 0) & (nc < dims)).all(1)
        nk = ((nc[:, 2] * dims + nc[:, 1]) * dims + nc[:, 0]).clamp(0, dims ** 3 - 1)
        cnt = torch.where(valid, counts[nk], torch.zeros_like(nk))
        total = int(cnt.sum())
        if total == 0:
            continue
        i = torch.repeat_interleave(ids, cnt, output_size=total)
        first = torch.repeat_interleave(start[nk] - (torch.cumsum(cnt, 0) - cnt), cnt, output_size=total)
        j = first + torch.arange(total, device=p.device)
        d = ps[i] - ps[j]
        d2 = (d * d).sum(1)
        m = (d2 < diam * diam) & (d2 > 0)
        i, d, d2, j = i[m], d[m], d2[m], j[m]
        dist = d2.sqrt()
        nrm = d / dist[:, None]
        mag = K * (diam - dist) - C * ((vs[i] - vs[j]) * nrm).sum(1)
        f.index_add_(0, i, nrm * mag[:, None])
    return integrate(ps, vs, f, r), order


def brute_force_step(p, v, r):
    diam = 2 * r
    d = p[:, None, :] - p[None, :, :]
    d2 = (d * d).sum(2)
    m = (d2 < diam * diam) & (d2 > 0)
    dist = d2.clamp_min(1e-300).sqrt()
    nrm = d / dist[..., None]
    rel = v[:, None, :] - v[None, :, :]
    mag = torch.where(m, K * (diam - dist) - C * (rel * nrm).sum(2), torch.zeros_like(dist))
    f = (nrm * mag[..., None]).sum(1)
    return integrate(p, v, f, r)


def check(n=3000):
    p, v, r = block(n)
    (p2, v2), order = step(p, v, r)
    pd, vd, _ = block(n, dtype=torch.float64)
    pw, vw = brute_force_step(pd, vd, r)
    err = max(float((p2.double() - pw[order]).abs().max()), float((v2.double() - vw[order]).abs().max()))
    if err > 1e-4:
        sys.exit(f"torch_particles.py: the step differs from the float64 brute force by {err}")
    return err


err = check()
out = {"peer": "torch " + torch.__version__, "device": torch.cuda.get_device_name(), "check_max_error": err}
for lg in [int(a) for a in sys.argv[1:]] or [20, 22]:
    p, v, r = block(1 << lg)
    out[f"step_ms_2e{lg}"] = timed(lambda: step(p, v, r), reps=5)
x = torch.empty(1 << 28, device="cuda")
y = torch.empty_like(x)
copy_ms = timed(lambda: y.copy_(x))
out["copy_gbs"] = 2 * 4 * (1 << 28) / copy_ms / 1e6
print(json.dumps(out))
