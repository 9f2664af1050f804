#include "rill/backends/glsl/info_layout.h"

#include "rill/core/error.h"

namespace rill::glsl {

std::uint32_t stream_block(const ir::Kernel& k, std::uint32_t param) {
    return kHeaderWords + k.uniform_words + param * kStreamWords;
}

std::uint32_t info_words(const ir::Kernel& k) {
    return stream_block(k, static_cast<std::uint32_t>(k.params.size()));
}

namespace {
std::uint32_t u32(std::int64_t v, const ir::Kernel& k, const char* what) {
    if (v < 0 || v > 0xffffffffll)
        throw Error("kernel '" + k.name + "': " + what + " (" + std::to_string(v) +
                    ") does not fit the 32-bit indexing of GPU backends; split the stream into smaller ones");
    return static_cast<std::uint32_t>(v);
}
}  // namespace

void pack_info(const ir::Kernel& k, const Dispatch& d, std::vector<std::uint32_t>& out) {
    out.assign(info_words(k), 0u);
    out[0] = u32(d.domain.size(), k, "the number of invocations");
    for (int i = 0; i < 4; ++i) out[1 + i] = i < d.domain.rank ? u32(d.domain.dims[i], k, "a dimension") : 1u;
    std::copy(d.uniforms.begin(), d.uniforms.end(), out.begin() + kHeaderWords);
    for (std::uint32_t p = 0; p < k.params.size(); ++p) {
        if (k.params[p].kind == ir::ParamKind::Uniform) continue;
        const StreamBinding& b = d.streams[p];
        std::uint32_t* w = out.data() + stream_block(k, p);
        // The last element's last word must be addressable with 32-bit words.
        std::int64_t last = b.offset;
        for (int i = 0; i < b.shape.rank; ++i) last += (b.shape.dims[i] - 1) * b.strides[i];
        u32((last + 1) * k.params[p].words, k, "the stream's size in 32-bit words");
        w[0] = static_cast<std::uint32_t>(b.offset);
        for (int i = 0; i < 4; ++i) {
            const bool in = i < b.shape.rank;
            w[1 + i] = in ? static_cast<std::uint32_t>(b.shape.dims[i]) : 1u;
            w[5 + i] = in ? static_cast<std::uint32_t>(b.strides[i]) : 0u;
            w[9 + i] = in ? static_cast<std::uint32_t>(b.resize_mul[i]) : 1u;
            w[13 + i] = in ? static_cast<std::uint32_t>(b.resize_div[i]) : 1u;
        }
        if (b.iterator) {
            for (int c = 0; c < 4; ++c) {
                w[17 + c] = b.iterator->start[c];
                w[21 + c] = b.iterator->end[c];
                w[25 + c] = b.shape.rank == 1 ? 0u : static_cast<std::uint32_t>(c);
            }
        }
    }
}

}  // namespace rill::glsl
