"""Where NVIDIA's OpenGL assembly keeps a kernel's loads one at a time: reads
the NAME.nvasm files that nv_gl_binary_code.py cut out of RILL_DUMP's program
binaries and prints, per kernel, the two shapes that cost the FFT's staged
kernel and the stencil's tile loads 1.1-2.6x their Vulkan time
(docs/PERFORMANCE.md#opengl-against-vulkan):

- runs of IF blocks that each hold a load of a storage buffer (guarded loads,
  each waited for before the next block), and
- REP loops whose body loads a storage buffer and stores (a loop of one load
  in flight a trip).

Bench tooling: a list of candidates to read, not a verdict; the final machine
code may still overlap what the assembly orders.

    python3 nvasm_loads.py [--least-run N (3)] FILE.nvasm...
"""
import os
import sys

args = sys.argv[1:]
least = 3
if args[:1] == ["--least-run"]:
    least, args = int(args[1]), args[2:]
for path in args:
    ops = [line.strip().rstrip(";") for line in open(path, errors="replace")]
    name = os.path.basename(path)
    blocks = []  # open IF blocks: buffer loads in each
    run = best = guarded = 0
    loops = []  # open REP loops: [first line, buffer loads, stores]
    found = []
    for number, line in enumerate(ops, 1):
        op = line.split(" ")[0]
        loads = op.startswith("LDB") and "sbo_buf" in line
        if op == "IF":
            blocks.append(0)
        elif op == "ENDIF" and blocks:
            n = blocks.pop()
            if n:
                guarded, run = guarded + n, run + 1
                best = max(best, run)
            else:
                run = 0
        elif op.startswith("REP"):
            loops.append([number, 0, 0])
            run = 0
        elif op == "ENDREP" and loops:
            first, n, stores = loops.pop()
            if n and stores:
                found.append(f"loop at lines {first}-{number}: {n} buffer loads, {stores} stores a trip")
        if loads:
            if blocks:
                blocks[-1] += 1
            if loops:
                loops[-1][1] += 1
        if loops and (op.startswith("STS") or op.startswith("STB")):
            loops[-1][2] += 1
    if best >= least:
        found.insert(0, f"{best} guarded-load blocks in a row ({guarded} guarded loads in all)")
    for f in found:
        print(f"{name}: {f}")
