// Workgroup-wide scans inside group kernels, shared by the scan, the radix
// sort and the other algorithms: one value per invocation, combined with a
// ScanOp, through subgroup scans and a scan of the subgroup totals in shared
// memory. Any subgroup size works, 1 included (GL without subgroups).
#pragma once

#include <rill/algorithms/scan.h>

namespace rill::detail {

inline const char* scan_op_name(ScanOp op) {
    static const char* names[] = {"add", "mul", "min", "max", "and", "or", "xor"};
    return names[static_cast<int>(op)];
}

/// Bit operators have no float combiner: refused before any kernel is traced.
template <class T>
void check_scan_op(ScanOp op) {
    if (std::is_same_v<T, float> && (op == ScanOp::And || op == ScanOp::Or || op == ScanOp::Xor))
        throw Error(std::string("rill scan: ScanOp::") + scan_op_name(op) + " needs int32 or uint32 elements, not float");
}

template <class T>
Expr<T> combine(ScanOp op, const Expr<T>& a, const Expr<T>& b) {
    switch (op) {
        case ScanOp::Add: return a + b;
        case ScanOp::Mul: return a * b;
        case ScanOp::Min: return min(a, b);
        case ScanOp::Max: return max(a, b);
        case ScanOp::And: case ScanOp::Or: case ScanOp::Xor:
            if constexpr (std::is_integral_v<T>) {
                if (op == ScanOp::And) return a & b;
                if (op == ScanOp::Or) return a | b;
                return a ^ b;
            }
            break;
    }
    RILL_UNREACHABLE("scan op without a combiner");
}

template <class T>
Expr<T> subgroup_scan(ScanOp op, const Expr<T>& x, bool inclusive) {
    switch (op) {
        case ScanOp::Add: return inclusive ? subgroup_inclusive_add(x) : subgroup_exclusive_add(x);
        case ScanOp::Mul: return inclusive ? subgroup_inclusive_mul(x) : subgroup_exclusive_mul(x);
        case ScanOp::Min: return inclusive ? subgroup_inclusive_min(x) : subgroup_exclusive_min(x);
        case ScanOp::Max: return inclusive ? subgroup_inclusive_max(x) : subgroup_exclusive_max(x);
        case ScanOp::And: return inclusive ? subgroup_inclusive_and(x) : subgroup_exclusive_and(x);
        case ScanOp::Or: return inclusive ? subgroup_inclusive_or(x) : subgroup_exclusive_or(x);
        case ScanOp::Xor: return inclusive ? subgroup_inclusive_xor(x) : subgroup_exclusive_xor(x);
    }
    RILL_UNREACHABLE("bad scan op");
}

/// The exclusive scan over the workgroup (of `wg` invocations, the kernel's
/// workgroup size) of one value per invocation, and the workgroup's total.
/// Every invocation must call it (it has barriers). Each call declares shared
/// totals of its own (a word per invocation).
template <class T>
std::pair<Expr<T>, Expr<T>> workgroup_exclusive(int wg, ScanOp op, const Expr<T>& x, T identity) {
    // A subgroup wider than the workgroup (64 invocations on a device of 128)
    // holds the whole workgroup: its last invocation is the workgroup's last.
    Int S = min(subgroup_size(), Int(wg));
    Int sg = local_id() / S;
    Int count = wg / S;  // subgroups in the workgroup
    Expr<T> inclusive = subgroup_scan(op, x, true);
    Shared<T> totals(wg);
    If(subgroup_invocation() == S - 1, [&] { totals.store(sg, inclusive); });
    barrier();
    If(count <= S, [&] {
        // One subgroup holds all the totals (S >= 16): one more subgroup scan.
        If(sg == 0, [&] {
            Expr<T> v = select(local_id() < count, totals.load(local_id()), Expr<T>(identity));
            Expr<T> scanned = subgroup_scan(op, v, true);
            If(local_id() < count, [&] { totals.store(local_id(), scanned); });
        });
        barrier();
    }).Else([&] {
        // Narrow subgroups (8 on lavapipe, 1 without subgroup operations):
        // Hillis-Steele over the totals, log2(count) steps, all reads before any write.
        Int d = 1;
        While([&] { return d < count; }, [&] {
            Var<T> left = identity;
            Var<T> self = identity;
            If(local_id() < count, [&] {
                self = totals.load(local_id());
                If(local_id() >= d, [&] { left = totals.load(local_id() - d); });
            });
            barrier();
            If(local_id() < count, [&] { totals.store(local_id(), combine<T>(op, left, self)); });
            barrier();
            d = d * 2;
        });
    });
    Var<T> before = identity;
    If(sg > 0, [&] { before = totals.load(sg - 1); });
    Expr<T> exclusive = combine<T>(op, before, subgroup_scan(op, x, false));
    return {exclusive, totals.load(count - 1)};
}

/// Shared-memory slot of tile element i: one pad word per 32 keeps rows of 16
/// consecutive elements, one row per invocation, in different banks.
inline Expr<std::int32_t> padded(const Expr<std::int32_t>& i) { return i + (i >> 5); }
constexpr std::int64_t padded_size(std::int64_t elements) { return elements + elements / 32; }

}  // namespace rill::detail
