#!/usr/bin/env python3
"""Where a kernel's registers go: live registers along NVIDIA machine code.

Reads nvdisasm output (what bench/gpu/nv_cache_code.py and nvdisasm make of a
kernel, README: RILL_VK_PIPELINE_DUMP) and estimates, instruction by instruction, how many
general registers hold a value that a later instruction reads. Branches are
ignored (the code is read as one straight line), so loops and skipped blocks
make it approximate; for the radix sort's unrolled ranking it came within 10
of the registers the driver reported (118 against 127, 97 against 113).

Prints the most registers live, the pressure over the code in 40 steps, and at
the peak each live register with the instruction that wrote it and the next
that reads it: what the compiler keeps, and for how long.

    python3 bench/gpu/sass_liveness.py kernel.sass
"""
import re
import sys

NO_DESTINATION = ("ST", "STG", "STS", "BAR", "BRA", "EXIT", "BSSY", "BSYNC", "RED", "WARPSYNC", "NOP", "MEMBAR",
                  "CCTL", "ERRBAR", "DEPBAR", "ISETP", "FSETP", "PLOP3", "UISETP", "VOTEU", "R2UR")


def registers(operand):
    return [int(r) for r in re.findall(r"\bR(\d+)\b", operand)]


def parse(path):
    """(address, text, registers written, registers read) per instruction."""
    code = []
    for line in open(path):
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if not m:
            continue
        text = m.group(2)
        body = re.sub(r"^@!?U?P[T0-9]+\s+", "", text)  # a predicate guard reads no general register
        op, _, rest = body.partition(" ")
        operands = [o.strip() for o in rest.split(",")] if rest else []
        writes, reads = [], []
        for i, o in enumerate(operands):
            rs = registers(o)
            if i == 0 and op.split(".")[0] not in NO_DESTINATION and not o.startswith("P"):
                writes += rs
                if ".64" in op or ".WIDE" in op:
                    writes += [r + 1 for r in rs]
            else:
                reads += rs + ([r + 1 for r in rs] if "[" in o and ".64" in o else [])
        code.append((int(m.group(1), 16), text, writes, reads))
    return code


def main(path):
    code = parse(path)
    live, at = set(), []
    for _, _, writes, reads in reversed(code):
        live -= set(writes)
        live |= set(reads)
        at.append(frozenset(live))
    at.reverse()
    peak = max(range(len(code)), key=lambda i: len(at[i]))
    print(f"most registers live: {len(at[peak])} (at {code[peak][0]:#x})")
    step = max(1, len(code) // 40)
    for i in range(0, len(code), step):
        print(f"  {code[i][0]:#7x} {max(len(s) for s in at[i:i + step]):4d}  {code[i][1][:60]}")
    print("live at the peak: written by | next read by")
    for r in sorted(at[peak]):
        written = next((c for c in reversed(code[:peak + 1]) if r in c[2]), None)
        read = next((c for c in code[peak + 1:] if r in c[3]), None)
        show = lambda c: f"{c[0]:#x} {c[1][:48]}" if c else "-"
        print(f"  R{r:<4} {show(written):58s} | {show(read)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
