#include "backend_fixture.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace rill::test {

std::vector<std::string> backends_under_test() {
    std::vector<std::string> names = Runtime::registered_backends();
    if (const char* req = std::getenv("RILL_REQUIRE_BACKENDS"); req && *req) {
        std::stringstream ss(req);
        std::string name;
        while (std::getline(ss, name, ',')) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                std::fprintf(stderr, "RILL_REQUIRE_BACKENDS names '%s', which this build does not have\n", name.c_str());
                std::abort();
            }
        }
    }
    return names;
}

std::vector<std::int64_t> edge_sizes() {
    return {0, 1, 2, 3, 7, 31, 255, 256, 257, 1023, 1025, 4093, 65535, 65537, 100003};
}

int largest_power_of_two(Runtime& rt) {
    if (const char* k = std::getenv("RILL_TEST_LARGEST_POWER_OF_TWO"); k && *k) return std::atoi(k);
#if defined(__SANITIZE_ADDRESS__)
    (void)rt;
    return 16;
#else
    const bool software_gpu = rt.info().name != "cpu" && rt.info().device.find("llvmpipe") != std::string::npos;
    return software_gpu ? 20 : 24;
#endif
}

::testing::AssertionResult zeroed_words_are_zero(Runtime& rt) {
    const std::int64_t held = rt.zeroed_words_held();
    if (held == 0) return ::testing::AssertionSuccess();
    const std::vector<std::uint32_t> words = rt.zeroed_words(held).download();
    for (std::size_t i = 0; i < words.size(); ++i)
        if (words[i] != 0u)
            return ::testing::AssertionFailure() << "zeroed word " << i << " is " << words[i] << ", left set by an earlier call";
    return ::testing::AssertionSuccess();
}

bool past_largest(Runtime& rt, std::int64_t n) { return n > (std::int64_t{1} << largest_power_of_two(rt)) + 1; }

std::mt19937& rng() {
    // Tests call this per element: the test's name is built only when the
    // test changes (it was a string allocation per call, most of a float
    // test's time under ASan).
    static thread_local std::mt19937 gen;
    static thread_local const ::testing::TestInfo* seeded_for = nullptr;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (info != seeded_for) {
        const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
        gen.seed(static_cast<std::uint32_t>(std::hash<std::string>{}(name)));
        seeded_for = info;
    }
    return gen;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::mt19937& g = rng();
    std::vector<float> v(n);
    for (auto& x : v) x = d(g);
    return v;
}

std::vector<std::int32_t> random_ints(std::size_t n, std::int32_t lo, std::int32_t hi) {
    std::uniform_int_distribution<std::int32_t> d(lo, hi);
    std::mt19937& g = rng();
    std::vector<std::int32_t> v(n);
    for (auto& x : v) x = d(g);
    return v;
}

bool close(double got, double want, double abs_tol, double rel_tol) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    if (std::isnan(got) || std::isinf(got)) return false;
    return std::fabs(got - want) <= abs_tol + rel_tol * std::fabs(want);
}

std::string error_message(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return kNoError;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) before_ = v;
    setenv(name, value, 1);
}

ScopedEnv::~ScopedEnv() {
    if (before_) setenv(name_.c_str(), before_->c_str(), 1);
    else unsetenv(name_.c_str());
}

}  // namespace rill::test
