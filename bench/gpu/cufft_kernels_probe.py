# Which kernels cuFFT (through PyTorch) runs for the FFT bench's multi-pass workloads, and
# each one's device time (torch.profiler, 10 calls after 5 warm-ups): how many passes over
# memory the peer makes for Brook's 4 x 1024^2, 4096^2 and 2^24, beside rill's kernel
# lists (rill-bench-fft prints them). Run on the GPU machine: python3 bench/gpu/cufft_kernels_probe.py
import torch
from torch.profiler import profile, ProfilerActivity
def c(*s): return torch.randn(*s, dtype=torch.complex64, device="cuda")
cases = {"brook": (c(4,1024,1024), lambda x: torch.fft.fft2(x)), "4096sq": (c(4096,4096), lambda x: torch.fft.fft2(x)), "2e24": (c(1<<24), lambda x: torch.fft.fft(x))}
for name,(x,f) in cases.items():
    for _ in range(5): f(x)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(10): f(x)
        torch.cuda.synchronize()
    print("==", name)
    for e in p.key_averages():
        total = getattr(e, "self_device_time_total", None)
        if total is None:
            total = getattr(e, "self_cuda_time_total", 0)
        if total > 0:
            print(f"  {e.key[:110]:110s} calls {e.count:3d} avg {total / e.count:.2f} us")
