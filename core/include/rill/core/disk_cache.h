// Compiled kernels kept on disk between processes ($RILL_CACHE_DIR, else
// $XDG_CACHE_HOME/rill, else ~/.cache/rill). Each entry carries its key, size
// and a checksum: a corrupt, truncated or foreign file is ignored (and then
// rewritten by the caller), never trusted and never a crash. Writes go to a
// temporary file renamed into place, so concurrent processes see whole files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rill::disk_cache {

/// The cache directory, created on first use; empty if none can be had
/// (the cache is then off, silently: it is an optimization).
std::filesystem::path directory();

/// The entry `name` if it exists and carries `key`; nullopt otherwise.
std::optional<std::vector<std::uint8_t>> load(const std::string& name, std::uint64_t key);

/// Writes entry `name`; failures are ignored (a read-only cache is not an error).
void store(const std::string& name, std::uint64_t key, std::span<const std::uint8_t> data);

/// A hash of the GNU build-id of the program or library that holds rill's
/// code, or 0 where it has none: keys of entries that only this build may
/// read (what rill's code makes of a kernel changes with the build).
std::uint64_t build_id();

/// A 64-bit hash of bytes (xxHash64's rounds, eight bytes a step), for keys
/// and checksums; not cryptographic.
std::uint64_t hash_bytes(const void* data, std::size_t n, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace rill::disk_cache
