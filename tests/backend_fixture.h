// Every test is written once and runs on every backend of the build
// (Dawn's DAWN_INSTANTIATE_TEST, Dr.Jit's TEST_ALL). A backend that is built
// in but cannot start makes its tests fail, never skip: a machine that has a
// backend always tests it. RILL_REQUIRE_BACKENDS=cpu,vulkan,opengl (CI)
// additionally fails the run when one of those is not even built in.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <rill/rill.h>

namespace rill::test {

std::vector<std::string> backends_under_test();

/// Whether every zeroed word rt holds (Runtime::zeroed_words_held) is zero, as
/// every kernel must leave them; the failure names the first one set.
::testing::AssertionResult zeroed_words_are_zero(Runtime& rt);

class BackendTest : public ::testing::TestWithParam<std::string> {
protected:
    Runtime& rt() {
        if (!rt_) rt_ = std::make_unique<Runtime>(GetParam());
        return *rt_;
    }

    /// Every kernel leaves the runtime's zeroed words zero (Runtime::zeroed_words):
    /// single passes take their tickets and look-back states there, and one
    /// word left set would make a later call wait or count wrong. Checked after
    /// each test that made a runtime, all the words it holds.
    void TearDown() override {
        if (!rt_ || HasFailure()) return;
        ASSERT_TRUE(zeroed_words_are_zero(*rt_));
    }

private:
    std::unique_ptr<Runtime> rt_;
};

/// The largest 2^K that a test's size list goes to on `rt`'s device (a test
/// of one large size takes 2^K +- 1; past_largest leaves out the rest). 2^24
/// on the CPU backend and on GPUs. 2^20 on Mesa's software GPUs (lavapipe,
/// llvmpipe): their kernels of larger sizes are those of the smaller ones,
/// built from the same traced code, and their time went to emulating a GPU;
/// the CPU backend and bench/gpu/gpu_tests.sh on a GPU run those sizes.
/// 2^16 under AddressSanitizer (the second suite of ./rill test), which
/// checks the host code: past a few tiles it is the same at every size, and
/// there the time of large arrays went to page faults (docs/TESTING.md#time).
/// RILL_TEST_LARGEST_POWER_OF_TWO=K sets it for a run (tests/CMakeLists.txt:
/// the CPU's compiled-kernel runs take 20, its subgroup-width runs 18).
int largest_power_of_two(Runtime& rt);

/// Whether a size list on `rt` leaves out `n`: past 2^K + 1, K = largest_power_of_two(rt).
bool past_largest(Runtime& rt, std::int64_t n);

/// Sizes every 1D test should survive: empty, tiny, around powers of two, primes.
std::vector<std::int64_t> edge_sizes();

/// Deterministic random generator seeded per test (printed on failure via SCOPED_TRACE).
std::mt19937& rng();

std::vector<float> random_floats(std::size_t n, float lo, float hi);
std::vector<std::int32_t> random_ints(std::size_t n, std::int32_t lo, std::int32_t hi);

/// True when `got` is within abs + rel * |want| of the float64 reference (NaN
/// matches NaN; infinities must match exactly).
bool close(double got, double want, double abs_tol, double rel_tol);

/// What `f` throws as rill::Error, or kNoError when it throws nothing, so that
/// a test compares the whole message (or looks for part of it) in one line.
inline constexpr char kNoError[] = "(no rill::Error was thrown)";
std::string error_message(const std::function<void()>& f);

/// While it lives, environment variable `name` holds `value`; then what it held before.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> before_;
};

/// While it lives, the CPU backend starts a dispatch's workgroups last first
/// (RILL_CPU_WORKGROUPS=reverse), so that code waiting on other workgroups
/// meets the order no GPU promises either; the GPU backends ignore it.
class WorkgroupsInReverse : ScopedEnv {
public:
    WorkgroupsInReverse() : ScopedEnv("RILL_CPU_WORKGROUPS", "reverse") {}
};

}  // namespace rill::test

#define RILL_INSTANTIATE_FOR_BACKENDS(Suite)                                                   \
    INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(::rill::test::backends_under_test()), \
                             [](const ::testing::TestParamInfo<std::string>& info) { return info.param; })
