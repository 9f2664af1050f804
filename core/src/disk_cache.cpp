#include "rill/core/disk_cache.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

namespace rill::disk_cache {

namespace {
constexpr char kMagic[8] = {'R', 'I', 'L', 'L', 'C', 'A', 'C', '1'};

struct Header {
    char magic[8];
    std::uint64_t key;
    std::uint64_t size;
    std::uint64_t checksum;
};
}  // namespace

std::uint64_t hash_bytes(const void* data, std::size_t n, std::uint64_t h) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

std::filesystem::path directory() {
    std::filesystem::path dir;
    if (const char* d = std::getenv("RILL_CACHE_DIR"); d && *d) dir = d;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) dir = std::filesystem::path(x) / "rill";
    else if (const char* h = std::getenv("HOME"); h && *h) dir = std::filesystem::path(h) / ".cache" / "rill";
    else return {};
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return ec ? std::filesystem::path{} : dir;
}

std::optional<std::vector<std::uint8_t>> load(const std::string& name, std::uint64_t key) {
    const auto dir = directory();
    if (dir.empty()) return std::nullopt;
    std::ifstream in(dir / name, std::ios::binary);
    if (!in) return std::nullopt;
    Header h{};
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return std::nullopt;
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.key != key || h.size > (std::uint64_t{1} << 30))
        return std::nullopt;
    std::vector<std::uint8_t> data(static_cast<std::size_t>(h.size));
    if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()))) return std::nullopt;
    if (hash_bytes(data.data(), data.size()) != h.checksum) return std::nullopt;
    return data;
}

void store(const std::string& name, std::uint64_t key, std::span<const std::uint8_t> data) {
    const auto dir = directory();
    if (dir.empty()) return;
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.key = key;
    h.size = data.size();
    h.checksum = hash_bytes(data.data(), data.size());
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    const auto tmp = dir / (name + ".tmp" + std::to_string(rng()));
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) return;
        out.write(reinterpret_cast<const char*>(&h), sizeof h);
        out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            return;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, dir / name, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace rill::disk_cache
