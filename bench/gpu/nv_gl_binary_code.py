"""Looks for the machine code in the OpenGL program binaries that RILL_DUMP
writes (`*.glbin`: the binary format enum, then the driver's bytes), for
nvdisasm on the GPU machine, the OpenGL counterpart of nv_cache_code.py.
NVIDIA's program binaries (format 0x8e21, driver 580) hold the driver's
assembly text (NV_gpu_program5, `!!NVcp5.0`), written as NAME.nvasm, and no
machine code: that the driver compiles when it loads one.
NVIDIA's format is undocumented, so this searches rather than parses: the
payload and every zstd frame in it (the `zstd` program decompresses them) are
searched for an ELF image (written whole as NAME.cubin, for `nvdisasm
NAME.cubin`) and for SM90's final branch to itself (the code then ends at the
NOP padding after it, as in the Vulkan cache). Where the code starts is taken
from the first instruction of the Vulkan kernels' code that nv_cache_code.py cut
(VULKAN_CODE_DIR, optional): its first occurrence before that end (NAME.bin,
for `nvdisasm -b SM90 -hex NAME.bin`). DUMP_DIR may also be the driver's own
shader cache (__GL_SHADER_DISK_CACHE_PATH), whose files are searched alike. It
prints what it found per file. Bench tooling: what it finds is read, never relied on.

    python3 nv_gl_binary_code.py DUMP_DIR OUT_DIR [VULKAN_CODE_DIR]
"""
import os
import subprocess
import sys

dump, out = sys.argv[1], sys.argv[2]
vulkan = sys.argv[3] if len(sys.argv) > 3 else None
os.makedirs(out, exist_ok=True)
SELF_BRANCH = bytes.fromhex("4779fc00fcffffffffff8303")
NOP = bytes.fromhex("18790000000000000000000000c00f00")
ZSTD = bytes.fromhex("28b52ffd")
ELF = b"\x7fELF"
starts = set()
if vulkan and os.path.isdir(vulkan):
    for name in os.listdir(vulkan):
        if name.endswith(".bin"):
            head = open(os.path.join(vulkan, name), "rb").read(16)
            if len(head) == 16:
                starts.add(head)


def frames(data):
    """The data itself, then each zstd frame's decompressed bytes."""
    yield "raw", data
    at = data.find(ZSTD)
    while at >= 0:
        raw = subprocess.run(["zstd", "-dc"], input=data[at:], capture_output=True).stdout
        if raw:
            yield f"zstd@{at}", raw
        at = data.find(ZSTD, at + 4)


def elf_image(data, at):
    """The ELF64 image at `at`, up to the end of its section headers."""
    shoff = int.from_bytes(data[at + 0x28 : at + 0x30], "little")
    shentsize = int.from_bytes(data[at + 0x3A : at + 0x3C], "little")
    shnum = int.from_bytes(data[at + 0x3C : at + 0x3E], "little")
    return data[at : at + shoff + shentsize * shnum]


for root, _, names in os.walk(dump):
    for name in sorted(names):
        path = os.path.join(root, name)
        blob = open(path, "rb").read()
        if name.endswith(".glbin"):
            base, fmt, payload = name[: -len(".glbin")], int.from_bytes(blob[:4], "little"), blob[4:]
        else:  # a file of the driver's own shader cache (__GL_SHADER_DISK_CACHE_PATH)
            base, fmt, payload = os.path.relpath(path, dump).replace("/", "_"), 0, blob
        found = []
        text = payload.find(b"!!NV")
        if text >= 0:  # the driver's assembly (NV_gpu_program5), as NVIDIA's program binaries hold it
            end = text
            while end < len(payload) and (32 <= payload[end] < 127 or payload[end] in (9, 10, 13)):
                end += 1
            open(os.path.join(out, base + ".nvasm"), "wb").write(payload[text:end])
            found.append(f"assembly text, {payload[text:end].count(b';')} statements")
        for where, data in frames(payload):
            e = data.find(ELF)
            if e >= 0:
                image = elf_image(data, e)
                open(os.path.join(out, base + ".cubin"), "wb").write(image)
                found.append(f"ELF in {where} at {e}, {len(image)} bytes")
            e = data.find(SELF_BRANCH)
            if e < 0:
                continue
            end = e + 16
            while data[end : end + 16] == NOP:
                end += 16
            start = min((data.find(s) for s in starts if 0 <= data.find(s) < end), default=-1)
            if start >= 0:
                open(os.path.join(out, base + ".bin"), "wb").write(data[start:end])
                found.append(f"code in {where}: {end - start} bytes from {start}")
            else:
                # No known first instruction: the 64 KiB before the end, for a look.
                open(os.path.join(out, base + ".tail.bin"), "wb").write(data[end - 16 * min(end // 16, 4096) : end])
                found.append(f"code end in {where} at {end}, start unknown")
        print(f"{base}: format 0x{fmt:x}, {len(payload)} bytes; " + ("; ".join(found) or "no code found"))
