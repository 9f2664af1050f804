"""Cuts the machine code out of the pipeline-cache blobs that
RILL_VK_PIPELINE_DUMP wrote through NVIDIA's Vulkan driver, for nvdisasm
(`nvdisasm -b SM90 -hex X.bin` on the GPU machine). The blob's payload is a
zstd frame; in it the code is the last `Binary Size` bytes (the pipeline
statistic) up to the NOP padding after the final branch to itself. Needs the
zstd program. Bench tooling: what it finds is read, never relied on.

    python3 nv_cache_code.py DUMP_DIR STATS_LOG... OUT_DIR
"""
import os
import re
import subprocess
import sys

dump, logs, out = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
os.makedirs(out, exist_ok=True)
size_of = {}
for log in logs:
    last = None
    for line in open(log, errors="replace"):
        m = re.search(r"Binary Size = (\d+)", line)
        if m:
            last = int(m.group(1))
        m = re.search(r"dumped '.*/([^/']+)'", line)
        if m and last:
            size_of[m.group(1)] = last
            last = None
SELF_BRANCH = bytes.fromhex("4779fc00fcffffffffff8303")
NOP = bytes.fromhex("18790000000000000000000000c00f00")
for name in sorted(os.listdir(dump)):
    if not name.endswith(".cache"):
        continue
    base = name[: -len(".cache")]
    blob = open(os.path.join(dump, name), "rb").read()
    at = blob.find(bytes.fromhex("28b52ffd"))
    raw = subprocess.run(["zstd", "-dc"], input=blob[at:], capture_output=True).stdout
    e = raw.find(SELF_BRANCH)
    if e < 0 or base not in size_of:
        print(f"{base}: no code found")
        continue
    end = e + 16
    while raw[end : end + 16] == NOP:
        end += 16
    start = end - size_of[base]
    open(os.path.join(out, base + ".bin"), "wb").write(raw[start:end])
    print(f"{base}: {size_of[base]} bytes of code")
