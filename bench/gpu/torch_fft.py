# The FFT peers on the GPU machine: cuFFT through PyTorch (torch.fft), timed
# with CUDA events, the workloads and JSON keys of rill-bench-fft. Prints one
# JSON line. Argument: log2 of the elements per batched 1D workload (26).
import functools
import json
import sys

import torch

import cuda_events  # beside this script

elements_log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 26


timed = functools.partial(cuda_events.timed, reps=10)


def c(*shape):
    return torch.randn(*shape, dtype=torch.complex64, device="cuda")


r = {"peer": "torch " + torch.__version__ + " (cuFFT)", "device": torch.cuda.get_device_name()}
x = c(4, 1024, 1024)
r["fft2_4x1024x1024_ms"] = timed(lambda: torch.fft.fft2(x))
x = c(4096, 4096)
r["fft2_4096x4096_ms"] = timed(lambda: torch.fft.fft2(x))
xr = torch.randn(1024, 1024, device="cuda")
r["rfft2_1024x1024_ms"] = timed(lambda: torch.fft.rfft2(xr))
x = c(1 << 24)
r["fft_2e24_ms"] = timed(lambda: torch.fft.fft(x))
del x
for n in (2, 3, 5, 7, 8, 13, 16, 17, 60, 64, 100, 128, 243, 256, 625, 1000, 1009, 1024, 2048, 2187, 3125, 4096):
    x = c(max(1, (1 << elements_log2) // n), n)
    r[f"fft_batched_{n}_ms"] = timed(lambda: torch.fft.fft(x))
    del x
print(json.dumps(r))
