# The BLAS peers on the GPU machine: cuBLAS through PyTorch (TF32 off, so that
# SGEMM is float32 arithmetic as rill's), timed with CUDA events, the same
# sweep and JSON keys as rill-bench-blas. Prints one JSON line.
#
#   python3 torch_blas.py [max log2 = 28] [level1|gemv|gemm, or several with commas: those parts alone, as RILL_BENCH_ONLY]
import json
import sys

import torch

from cuda_events import timed  # beside this script

torch.backends.cuda.matmul.allow_tf32 = False
max_log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 28
only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 and sys.argv[2] else {"level1", "gemv", "gemm"}

r = {"peer": "torch " + torch.__version__ + " (cuBLAS)", "device": torch.cuda.get_device_name()}
for l in range(20, max_log2 + 1, 4) if "level1" in only else ():
    n = 1 << l
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    r[f"dot_2e{l}_ms"] = timed(lambda: torch.dot(x, y))
    r[f"axpy_2e{l}_ms"] = timed(lambda: y.add_(x, alpha=1e-3))
    del x, y
gemv_shapes = ((1024, 1024), (8192, 8192), (16384, 16384), (512, 1 << 20), (1 << 20, 512), (32, 1 << 22), (1 << 22, 32))
for m, n in gemv_shapes if "gemv" in only else ():
    A = torch.rand(m, n, device="cuda")
    xn = torch.rand(n, device="cuda")
    xt = torch.rand(m, device="cuda")
    yn = torch.empty(m, device="cuda")
    yt = torch.empty(n, device="cuda")
    r[f"gemv_n_{m}x{n}_ms"] = timed(lambda: torch.mv(A, xn, out=yn))
    r[f"gemv_t_{m}x{n}_ms"] = timed(lambda: torch.mv(A.t(), xt, out=yt))
    del A
gemm_shapes = ((1024, "nn"), (4096, "nn"), (8192, "nn"), (4096, "nt"), (4096, "tn"), (4000, "nn"))
for size, ops in gemm_shapes if "gemm" in only else ():
    A = torch.rand(size, size, device="cuda")
    B = torch.rand(size, size, device="cuda")
    C = torch.empty(size, size, device="cuda")
    a = A.t() if ops[0] == "t" else A
    b = B.t() if ops[1] == "t" else B
    r[f"gemm_{ops}_{size}_ms"] = timed(lambda: torch.mm(a, b, out=C), reps=5)
print(json.dumps(r))
