#!/usr/bin/env python3
# TRIAL (session 35): per-tile clock records of OneSweep's sweep (radix_onesweep.h trial patch).
# Record: 16 uint32 per (pass, tile, invocation 0 / 255): rt,sm at start, published, lb start, lb end, after barrier, end; steps; t.
import sys, numpy as np
path, window = sys.argv[1], int(sys.argv[2])
a = np.fromfile(path, dtype=np.uint32)
passes = 4
rec = a.reshape(passes, -1, 2, 16)
tiles = rec.shape[1]
print(f"{path}: {tiles} tiles, window {window}")
def d(x, y): return ((y.astype(np.int64) - x.astype(np.int64)) % (1 << 32)).astype(np.int64)
names = ["rank (start->published)", "exchange (published->lb start)", "look-back (lb start->lb end)", "other digits + barrier", "write (->end)"]
for p in range(passes):
    r0 = rec[p, :, 0, :]; r1 = rec[p, :, 1, :]
    if not r0[:, 13].any() and tiles > 1: print(f" pass {p}: empty"); continue
    assert (r0[:, 13] == np.arange(tiles)).all(), "tile index mismatch"
    rt = [r0[:, 2 * i].astype(np.int64) for i in range(6)]
    base = rt[0].min()
    rt = [((x - base) % (1 << 32)) for x in rt]
    sm = [r0[:, 2 * i + 1] for i in range(6)]
    span = rt[5].max() - rt[0].min()
    cyc = d(sm[0], sm[5]); ns = rt[5] - rt[0]
    ok = ns > 0
    ghz = np.median(cyc[ok] / ns[ok])
    print(f" pass {p}: kernel span {span/1e3:.1f} us (first start to last end); SM clock {ghz:.3f} GHz (median cycles/ns)")
    diffs = np.diff(np.unique(np.concatenate(rt)))
    print(f"   realtime resolution: smallest step between distinct stamps {diffs.min() if diffs.size else 0} ns, median {np.median(diffs) if diffs.size else 0}")
    tile_ns = d(sm[0], sm[5]) / ghz
    print(f"   tile time (SM clock): median {np.median(tile_ns):.0f} ns, mean {tile_ns.mean():.0f}, p10 {np.percentile(tile_ns,10):.0f}, p90 {np.percentile(tile_ns,90):.0f}")
    for i in range(5):
        x = d(sm[i], sm[i + 1]) / ghz
        x255 = d(r1[:, 2 * i + 1], r1[:, 2 * i + 3]) / ghz
        print(f"   {names[i]:34s} lid0 median {np.median(x):7.0f} mean {x.mean():7.0f} p90 {np.percentile(x,90):7.0f} ns | lid255 median {np.median(x255):7.0f} mean {x255.mean():7.0f}")
    st0 = r0[1:, 12]; st1 = r1[1:, 12]
    print(f"   steps lid0: mean {st0.mean():.2f} median {np.median(st0):.0f} p90 {np.percentile(st0,90):.0f} max {st0.max()}; lid255 mean {st1.mean():.2f} max {st1.max()}")
    h = np.bincount(np.minimum(st0, 30)); print("   steps histogram lid0 (0..):", " ".join(str(v) for v in h[:31]))
    # start order and spacing
    starts = rt[0]
    inv = np.mean(np.diff(starts) < 0)
    print(f"   starts: mean spacing {(starts.max()-starts.min())/max(1,tiles-1):.1f} ns per tile; fraction of tiles starting before their predecessor {inv:.3f}")
    # concurrency: tiles in flight at each tile's look-back start
    ev = np.sort(starts); en = np.sort(rt[5])
    lbs = rt[2]
    inflight = np.searchsorted(ev, lbs, side='right') - np.searchsorted(en, lbs, side='right')
    print(f"   tiles in flight at a look-back start: median {np.median(inflight):.0f}, p10 {np.percentile(inflight,10):.0f}, p90 {np.percentile(inflight,90):.0f}")
    # lag: how far back is the nearest tile whose digit-0 inclusive (lb end, lid0) came before this tile's look-back start
    incl = rt[3].copy(); incl[0] = rt[1][0]
    lag = np.zeros(tiles, dtype=np.int64)
    for t in range(1, tiles):
        lo = max(0, t - 400)
        cand = np.nonzero(incl[lo:t] <= lbs[t])[0]
        lag[t] = t - (lo + cand[-1]) if cand.size else 400
    print(f"   distance to the nearest tile with an inclusive count (by clocks) at look-back start: mean {lag[1:].mean():.1f}, median {np.median(lag[1:]):.0f}, p90 {np.percentile(lag[1:],90):.0f}")
    # partials ready? tiles t-1 whose published stamp is after t's look-back start
    late = np.mean(rt[1][:-1] > lbs[1:])
    print(f"   fraction of tiles whose predecessor had not published its own counts at their look-back start (by clocks): {late:.3f}")
    # time per step
    lbt = d(sm[2], sm[3]) / ghz
    m = st0 > 0
    print(f"   look-back ns per step (lid0, tiles with steps): median {np.median(lbt[1:][m] / st0[m]):.0f}")
    # phase shares of the total tile time
    tot = tile_ns.sum()
    print("   share of tile time: " + ", ".join(f"{names[i].split(' ')[0]} {100*(d(sm[i], sm[i+1])/ghz).sum()/tot:.1f}%" for i in range(5)))
    # timeline in 10 slices: mean look-back duration
    order = np.argsort(starts)
    sl = np.array_split(order, 10)
    print("   look-back (lid0) mean ns by tenth of the kernel:", " ".join(f"{(d(sm[2],sm[3])/ghz)[s].mean():.0f}" for s in sl))
    print("   tile time mean ns by tenth of the kernel:        ", " ".join(f"{tile_ns[s].mean():.0f}" for s in sl))
# Per SM (word 14: gl_SMIDNV, where recorded), pass 1: how many tiles are resident and how many of them are in the
# look-back (lb start -> after the barrier that follows it), time-weighted over the SMs' busy time.
if rec[1, :, 0, 14].any():
    p = 1
    r0 = rec[p, :, 0, :]
    base = r0[:, 0].astype(np.int64).min()
    T = lambda i: (r0[:, 2 * i].astype(np.int64) - base) % (1 << 32)
    start, lb0, lb1, end = T(0), T(2), T(4), T(5)
    sm = r0[:, 14].astype(np.int64)
    print(f" per SM, pass {p}: {len(np.unique(sm))} SMs, tiles per SM min {np.bincount(sm).min()} max {np.bincount(sm).max()}")
    acc = {}
    for s in np.unique(sm):
        idx = np.nonzero(sm == s)[0]
        ev = []
        for i in idx:
            ev += [(start[i], 1, 0), (end[i], -1, 0), (lb0[i], 0, 1), (lb1[i], 0, -1)]
        ev.sort()
        res = wait = 0; last = ev[0][0]
        for tm, dr, dw in ev:
            if tm > last: acc[(res, wait)] = acc.get((res, wait), 0) + (tm - last)
            last = tm; res += dr; wait += dw
    tot = sum(v for (r, w), v in acc.items() if r > 0)
    print("   time share (resident tiles, of them in the look-back): " + ", ".join(f"({r},{w}) {100*v/tot:.1f}%" for (r, w), v in sorted(acc.items()) if r > 0 and v / tot > 0.001))
    print(f"   SM time with every resident tile in the look-back: {100*sum(v for (r, w), v in acc.items() if r > 0 and w == r)/tot:.1f}%")
    # Between tiles on an SM (word 15: the clock at the kernel's entry): from the end of the tile whose slot
    # it took (the last to end before it entered) to its entry, and from its entry to its tile's start.
    if rec[1, :, 0, 15].any():
        g2 = (r0[:, 0].astype(np.int64) - r0[:, 15].astype(np.int64)) % (1 << 32)
        entry = start - g2
        g1 = []
        for s in np.unique(sm):
            idx = np.nonzero(sm == s)[0]
            ends = np.sort(end[idx])
            for i in idx:
                j = np.searchsorted(ends, entry[i], side='right') - 1
                if j >= 0 and entry[i] - ends[j] < 20000: g1.append(entry[i] - ends[j])
        g1 = np.array(g1)
        print(f"   end of the tile before -> entry: median {np.median(g1):.0f} ns, mean {g1.mean():.0f}, p90 {np.percentile(g1,90):.0f}; entry -> tile start: median {np.median(g2):.0f} ns, mean {g2.mean():.0f}, p90 {np.percentile(g2,90):.0f}")
