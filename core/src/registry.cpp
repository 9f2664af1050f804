#include <algorithm>
#include <mutex>

#include "rill/core/backend.h"

namespace rill {

namespace {
struct Registry {
    std::mutex mutex;
    std::vector<BackendFactory> factories;
};
Registry& registry() {
    static Registry r;  // constructed on first use: registration runs during static init
    return r;
}
}  // namespace

bool register_backend(BackendFactory factory) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.factories.push_back(std::move(factory));
    std::stable_sort(r.factories.begin(), r.factories.end(),
                     [](const BackendFactory& a, const BackendFactory& b) { return a.priority > b.priority; });
    return true;
}

std::vector<BackendFactory> registered_backends() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return r.factories;
}

std::uint64_t Signature::hash() const {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::uint8_t k : stream_kinds) h = (h ^ k) * 0x100000001b3ull;
    return h;
}

}  // namespace rill
