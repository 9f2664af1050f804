// rill-info: the backends of this build, whether each starts here, and its
// device and limits.
#include <cstdio>

#include <rill/rill.h>

int main() {
    std::printf("rill backends in this build (best first):\n");
    int usable = 0;
    for (const std::string& name : rill::Runtime::registered_backends()) {
        try {
            rill::Runtime rt(name);
            const rill::BackendInfo& info = rt.info();
            ++usable;
            std::printf("\n[%s] %s\n", name.c_str(), info.device.c_str());
            std::printf("  subgroup size        %u (a kernel may require %u to %u)\n", info.limits.subgroup_size,
                        info.limits.min_subgroup_size, info.limits.max_subgroup_size);
            std::printf("  max workgroup size   %u\n", info.limits.max_workgroup_size);
            std::printf("  shared memory        %llu bytes\n", static_cast<unsigned long long>(info.limits.shared_memory_bytes));
            if (info.limits.loop_iterations)
                std::printf("  loop iterations      %llu per invocation (the driver ends longer loops)\n",
                            static_cast<unsigned long long>(info.limits.loop_iterations));
            for (const auto& [key, value] : info.details) std::printf("  %-20s %s\n", key.c_str(), value.c_str());
        } catch (const rill::Error& e) {
            std::printf("\n[%s] not usable here: %s\n", name.c_str(), e.what());
        }
    }
    try {
        rill::Runtime best;
        std::printf("\ndefault (RILL_BACKEND or best available): %s\n", best.backend_name().c_str());
    } catch (const rill::Error& e) {
        std::printf("\nno default backend: %s\n", e.what());
    }
    return usable > 0 ? 0 : 1;
}
