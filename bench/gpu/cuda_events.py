# Timing shared by the PyTorch peers (torch_peers.py, torch_blas.py, torch_fft.py):
# the median of 5 batches of `reps` calls after one warm-up call, by CUDA events, in ms.
import torch


def timed(f, reps=20):
    f(); torch.cuda.synchronize()
    times = []
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            f()
        b.record(); torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / reps)
    return sorted(times)[len(times) // 2]
