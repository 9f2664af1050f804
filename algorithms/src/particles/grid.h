// The particle engine's uniform grid in the DSL: which cell a position is
// in, and the walk over the particles of the 27 cells around it that the
// contact and pair kernels share.
#pragma once

#include <rill/algorithms/particles.h>

namespace rill::particles::detail {

/// grid = (box.lo, 1 / cell size); dims = (cells along x, y, z, all cells).
/// Positions outside the box go to its nearest edge cell: two positions
/// closer than a cell are then still in the same or adjacent cells.
inline Expr<int3> cell_of(const Expr<float3>& p, const Float4& grid, const Int4& dims) {
    Expr<float3> q = clamp((p - grid.xyz()) * grid.w(), -1.0f, 1073741824.0f);
    return clamp(cast<std::int32_t>(floor(q)), Int3(0), dims.xyz() - 1);
}

inline Expr<std::int32_t> key_of(const Expr<int3>& c, const Int4& dims) { return (c.z() * dims.y() + c.y()) * dims.x() + c.x(); }

/// Calls body(j) for every particle j (a place in the sorted order) in the
/// cells around position p. cells[2 k], cells[2 k + 1] = start and end of
/// cell k's run of the sorted order, read in one 8-byte access; valid only
/// where keys[start] == k (the table is never cleared, so an entry left
/// from an earlier grid points at another cell's particle or at none). The
/// three cells of a row along x are consecutive keys, so their particles
/// are one run of the sorted order: one loop per row, from the first
/// occupied cell's start to the last one's end.
template <class F>
void for_each_neighbour(const Array<std::uint32_t>& keys, const Array<std::int32_t>& cells, const Float4& grid, const Int4& dims,
                        const Expr<float3>& p, F body) {
    Int3 c = cell_of(p, grid, dims);
    Int3 lo = max(c - 1, Int3(0)), hi = min(c + 1, dims.xyz() - 1);
    For(lo.z(), hi.z() + 1, [&](Int z) {
        For(lo.y(), hi.y() + 1, [&](Int y) {
            Int row = (z * dims.y() + y) * dims.x();
            Var<std::int32_t> from = 0x7fffffff, to = 0;
            for (int dx = -1; dx <= 1; ++dx) {
                Int x = c.x() + dx;
                If(x >= 0 && x < dims.x(), [&] {
                    Int2 t = cells.load_vector<2>(row + x);
                    If(keys.load(t.x()) == cast<std::uint32_t>(row + x), [&] {
                        from = min(from, t.x());
                        to = max(to, t.y());
                    });
                });
            }
            For(from, to, [&](Int j) { body(j); });
        });
    });
}

}  // namespace rill::particles::detail
