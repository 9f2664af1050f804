# Which kernels cuFFT (through PyTorch) runs for the FFT bench's multi-pass workloads, and
# each one's device time (torch.profiler, 10 calls after 5 warm-ups): how many passes over
# memory the peer makes for Brook's 4 x 1024^2, 4096^2 and 2^24, beside rill's kernel
# lists (rill-bench-fft prints them). Run on the GPU machine:
#
#   python3 bench/gpu/cufft_kernels_probe.py
import torch
from torch.profiler import ProfilerActivity, profile


def complex_input(*shape):
    return torch.randn(*shape, dtype=torch.complex64, device="cuda")


workloads = {
    "2D C2C 4 x 1024^2 (Brook's FFT)": (complex_input(4, 1024, 1024), torch.fft.fft2),
    "2D C2C 4096^2": (complex_input(4096, 4096), torch.fft.fft2),
    "1D C2C 2^24": (complex_input(1 << 24), torch.fft.fft),
}
for name, (x, transform) in workloads.items():
    for _ in range(5):
        transform(x)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(10):
            transform(x)
        torch.cuda.synchronize()
    print(name)
    for e in p.key_averages():
        total = getattr(e, "self_device_time_total", None)
        if total is None:  # PyTorch before 2.4
            total = getattr(e, "self_cuda_time_total", 0)
        if total > 0:
            print(f"  {e.key[:110]:110s} calls {e.count:3d} mean {total / e.count:.2f} us")
