"""Cuts the driver's assembly out of the OpenGL program binaries that
RILL_DUMP writes (`*.glbin`: the binary format enum, then the driver's bytes),
the OpenGL counterpart of nv_cache_code.py. NVIDIA's program binaries (format
0x8e21, driver 580) hold the kernel's assembly as text (NV_gpu_program5,
`!!NVcp5.0`) and no machine code, which the driver compiles when it loads one
(searched for ELF images, zstd frames and SM90's final branch to itself: none,
H100, 2026-12-07). Writes OUT_DIR/NAME.nvasm for each (nvasm_loads.py reads
them) and prints the statements each holds. Bench tooling: what it finds is
read, never relied on.

    python3 nv_gl_binary_code.py DUMP_DIR OUT_DIR
"""
import os
import sys

dump, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for name in sorted(os.listdir(dump)):
    if not name.endswith(".glbin"):
        continue
    base = name[: -len(".glbin")]
    blob = open(os.path.join(dump, name), "rb").read()
    fmt, payload = int.from_bytes(blob[:4], "little"), blob[4:]
    start = payload.find(b"!!NV")
    if start < 0:
        print(f"{base}: format 0x{fmt:x}, {len(payload)} bytes; no assembly text")
        continue
    end = start
    while end < len(payload) and (32 <= payload[end] < 127 or payload[end] in (9, 10, 13)):
        end += 1
    open(os.path.join(out, base + ".nvasm"), "wb").write(payload[start:end])
    print(f"{base}: format 0x{fmt:x}, {len(payload)} bytes; assembly, {payload[start:end].count(b';')} statements")
