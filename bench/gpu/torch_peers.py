# Same-run peers on the GPU machine: copy and SAXPY through PyTorch (CUDA),
# timed with CUDA events. Prints one JSON line.
import json, sys
import torch

from cuda_events import timed  # beside this script

n = 1 << int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
x = torch.rand(n, device="cuda")
y = torch.rand(n, device="cuda")
r = torch.empty_like(x)

copy_ms = timed(lambda: r.copy_(x))
v4 = torch.rand(1 << 20, 4, device="cuda")
sum4_ms = timed(lambda: v4.sum(dim=0))        # Brook's sum of 2^20 float4
A = torch.rand(1024, 1024, device="cuda")
xv = torch.rand(1024, device="cuda")
mv_ms = timed(lambda: torch.mv(A, xv))        # cuBLAS SGEMV
saxpy_ms = timed(lambda: torch.add(y, x, alpha=2.0, out=r))
# ScatterOp add: 2^24 values into 2^10 and 2^20 bins (index_add_: CUDA atomics)
scatter = {}
ns = 1 << 24
for bins in (10, 20):
    idx = torch.randint(0, 1 << bins, (ns,), device="cuda")
    for name, dtype in (("u32", torch.int32), ("f32", torch.float32)):
        vals = torch.randint(0, 7, (ns,), device="cuda").to(dtype)
        target = torch.zeros(1 << bins, device="cuda", dtype=dtype)
        scatter[f"scatter_add_{name}_2e24_into_2e{bins}_ms"] = timed(lambda: target.index_add_(0, idx, vals))
    vals4 = torch.rand(ns, 4, device="cuda")
    target4 = torch.zeros(1 << bins, 4, device="cuda")
    scatter[f"scatter_add_f32x4_2e24_into_2e{bins}_ms"] = timed(lambda: target4.index_add_(0, idx, vals4))
print(json.dumps({"peer": "torch " + torch.__version__, "device": torch.cuda.get_device_name(),
                  "copy_ms": copy_ms, "copy_gbs": 2 * n * 4 / copy_ms / 1e6,
                  "saxpy_ms": saxpy_ms, "saxpy_gbs": 3 * n * 4 / saxpy_ms / 1e6,
                  "sum_float4_2e20_ms": sum4_ms, "sgemv_1024_ms": mv_ms, **scatter}))
