// Runtime lifecycle: many runtimes, created and destroyed in any order, leave
// nothing behind (file descriptors, device objects) on any backend; and what a
// runtime says of the kernels it builds when asked (RILL_LOG_COMPILES).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <unistd.h>

#include "backend_fixture.h"

namespace rill::test {
namespace {

std::size_t open_fds() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
}

std::string fd_targets() {
    std::string s;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        s += "\n  " + e.path().filename().string() + " -> " + std::filesystem::read_symlink(e.path(), ec).string();
    }
    return s;
}

class Lifecycle : public ::testing::TestWithParam<std::string> {};

TEST_P(Lifecycle, ManyRuntimesInAnyOrderLeakNothing) {
    auto k = kernel("twice(x, r)", [](In<float> x, Out<float> r) { r = x * 2.0f; });
    auto run_once = [&](Runtime& rt, float v) {
        auto x = rt.stream<float>({300}, std::vector<float>(300, v));
        auto r = rt.stream<float>({300});
        k(x, r);
        ASSERT_EQ(r.download()[299], 2 * v);
    };
    // Drivers open some files lazily (caches, a second device): warm up with the
    // same pattern, then demand that 20 more rounds add nothing.
    std::size_t fds = 0;
    for (int i = 0; i < 25; ++i) {
        if (i == 5) fds = open_fds();
        SCOPED_TRACE("round " + std::to_string(i) + ", open file descriptors " + std::to_string(open_fds()));
        auto a = std::make_unique<Runtime>(GetParam());
        auto b = std::make_unique<Runtime>(GetParam());
        run_once(*a, float(i));
        run_once(*b, float(i + 1));
        if (i % 2) a.reset();  // destroy in creation order half of the time
        b.reset();
        a.reset();
    }
    Runtime last(GetParam());
    run_once(last, 3.0f);
    EXPECT_LE(open_fds(), fds + 2) << "file descriptors leak across runtimes; open now:" << fd_targets();
}

TEST_P(Lifecycle, StreamsMayOutliveTheirRuntimeHandle) {
    Stream<float> s;
    {
        Runtime rt(GetParam());
        s = rt.stream<float>({10}, std::vector<float>(10, 4.0f));
    }
    EXPECT_EQ(s.download(), std::vector<float>(10, 4.0f));
}

TEST_P(Lifecycle, LogsEachKernelBuildWhenAsked) {
    auto k = kernel("logged_build_plus_one(x, r)", [](In<float> x, Out<float> r) { r = x + 1.0f; });
    Runtime rt(GetParam());
    auto x = rt.stream<float>({64}, std::vector<float>(64, 1.0f));
    auto r = rt.stream<float>({64});
    auto call_logged = [&](const char* log) {
        const ScopedEnv knob("RILL_LOG_COMPILES", log);
        ::testing::internal::CaptureStderr();
        k(x, r);
        return ::testing::internal::GetCapturedStderr();
    };
    const std::string first = call_logged("1");
    EXPECT_NE(first.find("rill " + rt.backend_name() + ": kernel logged_build_plus_one ready in "), std::string::npos) << first;
    EXPECT_NE(first.find(" ms ("), std::string::npos) << first;  // then where the time went
    EXPECT_EQ(first.find("()"), std::string::npos) << first;
    EXPECT_EQ(call_logged("1"), "") << "the kernel was built once in this runtime; its second call builds nothing";
    auto wider = rt.stream<float>({8, 8}, std::vector<float>(64, 2.0f));
    auto wider_out = rt.stream<float>({8, 8});
    {
        const ScopedEnv off("RILL_LOG_COMPILES", "0");
        ::testing::internal::CaptureStderr();
        k(wider, wider_out);  // another signature (rank 2): a build, not logged with 0
        EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    }
    EXPECT_EQ(wider_out.download()[63], 3.0f);
    EXPECT_EQ(r.download()[0], 2.0f);
}

// RILL_DUMP writes what each backend made of a kernel beside its IR: through
// Vulkan its GLSL and SPIR-V, through OpenGL its GLSL and the driver's
// program binary (a format word, then bytes; bench/gpu/nv_gl_binary_code.py
// reads NVIDIA's); the CPU backend writes no GLSL.
TEST_P(Lifecycle, DumpWritesWhatTheBackendMadeOfAKernel) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rill-dump-" + GetParam() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    {
        const ScopedEnv knob("RILL_DUMP", dir.c_str());
        auto k = kernel("dumped_plus_three(x, r)", [](In<float> x, Out<float> r) { r = x + 3.0f; });
        Runtime rt(GetParam());
        auto x = rt.stream<float>({16}, std::vector<float>(16, 1.0f));
        auto r = rt.stream<float>({16});
        k(x, r);
        EXPECT_EQ(r.download()[15], 4.0f);
    }
    std::vector<std::string> names;
    std::uintmax_t binary_size = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("dumped_plus_three", 0) != 0) continue;
        names.push_back(name);
        if (name.ends_with(".glbin")) binary_size = e.file_size();
    }
    std::filesystem::remove_all(dir);
    auto has = [&](const std::string& end) {
        return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.ends_with(end); });
    };
    EXPECT_TRUE(has(".ir.txt")) << names.size() << " files";
    const std::string backend = GetParam();
    EXPECT_EQ(has(".vulkan.comp"), backend == "vulkan");
    EXPECT_EQ(has(".spvasm"), backend == "vulkan");
    EXPECT_EQ(has(".opengl.comp"), backend == "opengl");
    EXPECT_EQ(has(".glbin"), backend == "opengl");
    if (backend == "opengl") EXPECT_GT(binary_size, 4u) << "a program binary is its format word and the driver's bytes";
}

// A kernel built again by a new runtime comes from the disk cache by its IR
// (this build, the kernel's IR and signature, the code generator's options,
// the device), with no GLSL generated: SPIR-V through Vulkan, the driver's
// program binary through OpenGL.
TEST_P(Lifecycle, AKernelBuiltAgainInANewRuntimeComesFromTheDiskCache) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("rill-cache-test-" + std::to_string(::getpid()) + "-" + GetParam());
    std::filesystem::remove_all(dir);
    const ScopedEnv cache("RILL_CACHE_DIR", dir.c_str());
    const ScopedEnv log("RILL_LOG_COMPILES", "1");
    auto k = kernel("cached_build_times_two_plus_one(x, r)", [](In<float> x, Out<float> r) { r = x * 2.0f + 1.0f; });
    auto build_in_a_new_runtime = [&] {
        Runtime rt(GetParam());
        auto x = rt.stream<float>({100}, std::vector<float>(100, 3.0f));
        auto r = rt.stream<float>({100});
        ::testing::internal::CaptureStderr();
        k(x, r);
        const std::string built = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(r.download(), std::vector<float>(100, 7.0f));
        return built;
    };
    const std::string cold = build_in_a_new_runtime(), warm = build_in_a_new_runtime();
    EXPECT_NE(cold.find("kernel cached_build_times_two_plus_one ready in "), std::string::npos) << cold;
    EXPECT_NE(warm.find("kernel cached_build_times_two_plus_one ready in "), std::string::npos) << warm;
    if (GetParam() == "vulkan" || GetParam() == "opengl") {
        EXPECT_NE(cold.find("GLSL"), std::string::npos) << cold;
        EXPECT_NE(warm.find(GetParam() == "vulkan" ? "SPIR-V by the kernel's IR from the disk cache" : "program by the kernel's IR from the disk cache"),
                  std::string::npos)
            << warm;
        EXPECT_EQ(warm.find("GLSL"), std::string::npos) << "no GLSL generated for a kernel this build compiled before: " << warm;
    }
    std::filesystem::remove_all(dir);
}

// RILL_VK_FENCE_SPIN_US (docs/TUNING.md): how long a Vulkan wait polls its fence
// before it blocks. Any value in range gives the same results; a bad one stops
// the Vulkan runtime with an error that says what to give; other backends ignore it.
TEST_P(Lifecycle, FenceSpinKnobIsCheckedAndChangesNoResult) {
    auto k = kernel("fence_spin_times_three(x, r)", [](In<float> x, Out<float> r) { r = x * 3.0f; });
    for (const char* spin : {"0", "1", "2000", "1000000"}) {
        const ScopedEnv knob("RILL_VK_FENCE_SPIN_US", spin);
        Runtime rt(GetParam());
        auto x = rt.stream<float>({1000}, std::vector<float>(1000, 2.0f));
        auto r = rt.stream<float>({1000});
        for (int i = 0; i < 3; ++i) k(x, r);
        EXPECT_EQ(r.download(), std::vector<float>(1000, 6.0f)) << "RILL_VK_FENCE_SPIN_US=" << spin;
    }
    for (const char* bad : {"2ms", "-1", "1000001", " "}) {
        const ScopedEnv knob("RILL_VK_FENCE_SPIN_US", bad);
        const std::string message = error_message([&] {
            Runtime rt(GetParam());
            auto x = rt.stream<float>({4}, std::vector<float>(4, 1.0f));
            auto r = rt.stream<float>({4});
            k(x, r);
            EXPECT_EQ(r.download()[3], 3.0f);
        });
        if (GetParam() == "vulkan")
            EXPECT_NE(message.find(std::string("RILL_VK_FENCE_SPIN_US is '") + bad + "'; give microseconds from 0 to 1000000, or unset it"),
                      std::string::npos)
                << message;
        else
            EXPECT_EQ(message, kNoError) << "only the Vulkan backend reads RILL_VK_FENCE_SPIN_US";
    }
}

// RILL_SCRATCH_PATTERN (docs/TUNING.md): scratch streams, pooled or new, hold
// all-ones bytes, so that the suite run with it (tests/CMakeLists.txt) catches an
// algorithm that reads scratch it never wrote; zeroed streams stay zero.
TEST_P(Lifecycle, ScratchPatternKnobFillsScratchOnly) {
    const ScopedEnv knob("RILL_SCRATCH_PATTERN", "1");
    Runtime rt(GetParam());
    for (std::int64_t n : {1, 7, 1000, 65537}) {
        for (int round = 0; round < 2; ++round) {  // the second round's buffers come from the pool
            auto scratch = rt.scratch<std::uint32_t>({n});
            auto floats = rt.scratch<float>({n});
            auto zeroed = rt.stream<std::uint32_t>({n});
            EXPECT_EQ(scratch.download(), std::vector<std::uint32_t>(n, 0xffffffffu)) << n << " elements, round " << round;
            for (float f : floats.download()) ASSERT_TRUE(std::isnan(f)) << n << " elements, round " << round;
            EXPECT_EQ(zeroed.download(), std::vector<std::uint32_t>(n, 0u)) << n << " elements, round " << round;
            scratch.upload(std::vector<std::uint32_t>(n, 5u));  // what a pooled buffer would otherwise bring back
        }
    }
}

// RILL_GL_FLUSH_FIRST and RILL_GL_FLUSH_EVERY (docs/TUNING.md): whenever the
// OpenGL backend hands its commands to the GPU, chains of dependent kernels
// with read-backs between them come out right; a value it cannot read is an
// error that says what to give. Other backends do not read them (their chains
// are checked alike).
TEST_P(Lifecycle, FlushKnobsKeepDependentChainsRight) {
    auto add_one = kernel("add_one(x, r)", [](In<std::uint32_t> x, Out<std::uint32_t> r) { r = x + 1u; });
    for (auto [first, every] : std::vector<std::pair<const char*, const char*>>{{"1", "1"}, {"3", "5"}, {"0", "0"}, {"8", "64"}}) {
        SCOPED_TRACE(std::string("RILL_GL_FLUSH_FIRST=") + first + " RILL_GL_FLUSH_EVERY=" + every);
        const ScopedEnv first_knob("RILL_GL_FLUSH_FIRST", first), every_knob("RILL_GL_FLUSH_EVERY", every);
        Runtime rt(GetParam());
        std::vector<Stream<std::uint32_t>> s;
        for (int i = 0; i < 2; ++i) s.push_back(rt.stream<std::uint32_t>({1000}));
        std::uint32_t want = 0;
        for (int step = 1; step <= 70; ++step) {
            add_one(s[(step + 1) % 2], s[step % 2]);
            ++want;
            if (step % 23 == 0) {
                ASSERT_EQ(s[step % 2].download(), std::vector<std::uint32_t>(1000, want)) << "after " << step << " kernels";
            }
        }
        ASSERT_EQ(s[0].download(), std::vector<std::uint32_t>(1000, want));
    }
    if (GetParam() != "opengl") return;
    for (const char* name : {"RILL_GL_FLUSH_FIRST", "RILL_GL_FLUSH_EVERY"})
        for (const char* bad : {"x", "8,", "-1", "5000"}) {
            const ScopedEnv knob(name, bad);
            const std::string message = error_message([&] { Runtime rt(GetParam()); });
            EXPECT_NE(message.find(std::string(name) + " is '" + bad + "'; give dispatches (0: never) from 0 to 4096, or unset it"),
                      std::string::npos)
                << message;
        }
}

INSTANTIATE_TEST_SUITE_P(Backends, Lifecycle, ::testing::ValuesIn(backends_under_test()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace rill::test
