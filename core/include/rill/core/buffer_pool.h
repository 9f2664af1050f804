// What the GPU backends share about keeping released stream buffers for reuse.
#pragma once

#include <cstddef>

namespace rill {

/// The capacity a pooled stream buffer of `bytes` gets: size classes a quarter
/// of an octave apart (at most 19% unused), from 256 bytes, so that a buffer
/// released by one call fits the next call's request of about the same size.
inline std::size_t pool_size_class(std::size_t bytes) {
    std::size_t octave = 256;
    while (octave < bytes) octave *= 2;
    if (octave <= 1024) return octave;
    const std::size_t step = octave / 8;  // octave/2 < bytes <= octave, in eighths of octave
    return (bytes + step - 1) / step * step;
}

}  // namespace rill
