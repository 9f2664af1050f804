// Kernels of the algorithms are traced once per variant (operator, element
// type, ranking ...) and kept for the process: tracing and compiling again on
// every call would cost more than most calls.
#pragma once

#include <map>
#include <mutex>

namespace rill::detail {

/// The kernel(s) of type K for `key`, made by make(key) on first use.
/// One cache per (K, Key); safe to call from several threads.
template <class K, class Key>
const K& traced_once(const Key& key, K (*make)(Key)) {
    static std::mutex mutex;
    static std::map<Key, K> cache;
    std::lock_guard lock(mutex);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, make(key)).first;
    return it->second;
}

}  // namespace rill::detail
