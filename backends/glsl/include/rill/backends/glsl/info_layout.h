// The per-dispatch "info" words a generated shader reads, written by the
// backend: one function produces both the layout and the words, so the two
// can never disagree.
//
//   [0]      domain size N (invocations)
//   [1..4]   domain dims, padded with trailing 1s to rank 4
//   then     the constant block (uniform_words)
//   then, per stream param in order, kStreamWords words:
//            offset, shape[4], strides[4], resize_mul[4], resize_div[4],
//            iterator start[4], end[4], component dims[4]
#pragma once

#include <cstdint>
#include <vector>

#include "rill/core/backend.h"
#include "rill/core/ir.h"

namespace rill::glsl {

inline constexpr std::uint32_t kHeaderWords = 5;
inline constexpr std::uint32_t kStreamWords = 1 + 4 * 4 + 4 * 3;

/// Word index (relative to the dispatch's base) of stream param p's block.
std::uint32_t stream_block(const ir::Kernel& k, std::uint32_t param);
std::uint32_t info_words(const ir::Kernel& k);

/// Fills the info words of one dispatch. Throws rill::Error when a size does
/// not fit the 32-bit indexing GPUs use.
void pack_info(const ir::Kernel& k, const Dispatch& d, std::vector<std::uint32_t>& out);

}  // namespace rill::glsl
