#include "native.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "rill/core/disk_cache.h"
#include "rill/core/error.h"

extern char** environ;

namespace rill::cpu {

namespace {

namespace fs = std::filesystem;

struct EmbeddedHeader {
    const char* path;  // as the generated source includes it
    const char* text;
};
// The headers generated code includes (native_abi.h and the core headers it
// needs), embedded at build time (CMakeLists.txt): an installed rill needs
// no source tree to build kernels.
constexpr EmbeddedHeader kHeaders[] = {
#include "native_headers.inc"
};

std::string compiler() {
    if (const char* v = std::getenv("RILL_CXX"); v && *v) return v;
    return "c++";
}

bool compiler_is_clang();

// Kernels are built for this CPU (-march=native); -ffp-contract=off keeps
// a * b + c two roundings, as the lane executor and the GPUs compute it.
// GCC's -fvect-cost-model=cheap vectorizes loops whose trip count is known
// only at run time, as a row's (its -O2 alone leaves them scalar): the scan
// and the compaction reduce their rows 1.2-1.3x faster (docs/PERFORMANCE.md#the-cpu-backend). Clang rejects the flag and vectorizes them at -O2 anyway.
// Neither reorders float arithmetic (no -ffast-math), so results stay bit for
// bit those of the lane executor.
const std::vector<std::string>& flags() {
    static const std::vector<std::string> f = [] {
        std::vector<std::string> v = {"-std=c++20", "-O2", "-march=native", "-ffp-contract=off", "-fPIC", "-shared", "-w"};
        if (!compiler_is_clang()) v.insert(v.begin() + 2, "-fvect-cost-model=cheap");
        return v;
    }();
    return f;
}

/// Kernels traced from loops that C++ unrolled (a GPU's tile of many elements
/// per invocation, the radix sort's in Vulkan's shape) become 14,000-49,000
/// lines of straight code, which GCC builds in 10-37 s at -O2 and in half
/// that at -O1, and which then run as fast (the radix sort's tests in
/// Vulkan's tiles, 2.5 s either way, on the 2-core CI machine kind,
/// 2026-12-02); the compaction's in Vulkan's shape are 4,050-4,140 lines.
/// Past kHugeKernelLines, -Og: it builds the radix sort's tile kernels
/// (16,000-28,000 lines in the CPU's tiles, 28,000-44,000 in Vulkan's) in
/// 5.6 s instead of 14.8 (-O0: 6.4 s, and its code ran 10x slower), and they
/// run as fast as at -O1: `RadixSort.OneSweepInVulkansTiles` took 40.7 s
/// with a fresh cache instead of 58.2, and 1.4 s either way with the
/// kernels built (2-core machine kind, 2026-12-04). The CPU backend runs
/// such kernels only when asked to (RadixAlgorithm::OneSweep,
/// tiles_per_workgroup, RILL_RADIX_TILES): its own sort takes row tiles.
/// No flag of these levels reorders float arithmetic: results are the same
/// bit for bit. -O1 vectorizes nothing: a kernel that needs -O2's vectors
/// stays under the limit (the CPU GEMM's, 1,300 lines).
constexpr std::size_t kLargeKernelLines = 4000;
constexpr std::size_t kHugeKernelLines = 16000;

std::vector<std::string> flags_for(const std::string& source) {
    std::vector<std::string> f = flags();
    const auto lines = static_cast<std::size_t>(std::count(source.begin(), source.end(), '\n'));
    if (lines < kLargeKernelLines) return f;
    std::erase(f, "-fvect-cost-model=cheap");
    std::replace(f.begin(), f.end(), std::string("-O2"), std::string(lines < kHugeKernelLines ? "-O1" : "-Og"));
    return f;
}

/// What -march=native depends on: a cache shared between machines must not
/// hand one CPU's code to another.
std::string cpu_id() {
    std::ifstream in("/proc/cpuinfo");
    std::string line, id;
    bool model = false, features = false;
    while (std::getline(in, line) && !(model && features)) {
        if (!model && line.rfind("model name", 0) == 0) id += line, model = true;
        if (!features && line.rfind("flags", 0) == 0) id += line, features = true;
    }
    return id;
}

std::string hex(std::uint64_t v) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

/// Computed once: the headers are part of the library.
std::uint64_t headers_hash() {
    static const std::uint64_t hash = [] {
        std::uint64_t h = disk_cache::hash_bytes("rill-native-headers", 19);
        for (const EmbeddedHeader& e : kHeaders) {
            h = disk_cache::hash_bytes(e.path, std::strlen(e.path), h);
            h = disk_cache::hash_bytes(e.text, std::strlen(e.text), h);
        }
        return h;
    }();
    return hash;
}

std::uint64_t key_of(const std::string& source) {
    // What a build depends on besides its source, hashed once per process
    // rather than per kernel (/proc/cpuinfo is long on large machines).
    static const std::uint64_t machine = [] {
        std::string what = compiler() + '\n' + cpu_id() + '\n' + hex(headers_hash()) + '\n';
        for (const std::string& f : flags()) what += f + ' ';
        what += "-O1 from " + std::to_string(kLargeKernelLines) + " lines, -Og from " + std::to_string(kHugeKernelLines);
        return disk_cache::hash_bytes(what.data(), what.size());
    }();
    return disk_cache::hash_bytes(source.data(), source.size(), machine);
}

fs::path directory() {
    std::error_code ec;
    fs::path d = disk_cache::directory();
    d = d.empty() ? fs::temp_directory_path(ec) / ("rill-cpu-native-" + std::to_string(getuid())) : d / "cpu-native";
    fs::create_directories(d, ec);
    return d;
}

/// Writes `text` to `path` whole or not at all (other processes may read it).
bool write_file(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.string() + "." + std::to_string(getpid()) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out) return false;
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    return !ec;
}

fs::path include_dir(const fs::path& dir) {
    const fs::path inc = dir / ("include-" + hex(headers_hash()));
    for (const EmbeddedHeader& e : kHeaders) {
        const fs::path p = inc / e.path;
        if (fs::exists(p)) continue;
        std::error_code ec;
        fs::create_directories(p.parent_path(), ec);
        if (!write_file(p, e.text))
            throw Error("cpu backend: cannot write " + p.string() + " for compiled kernels; make the rill cache "
                        "directory writable (RILL_CACHE_DIR) or set RILL_CPU_COMPILE=off");
    }
    return inc;
}

native::WorkgroupFn open_library(const fs::path& so, std::string* why) {
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open for the process's life
    if (!lib) {
        if (why) *why = dlerror();
        return nullptr;
    }
    auto fn = reinterpret_cast<native::WorkgroupFn>(dlsym(lib, "rill_workgroup"));
    if (!fn && why) *why = "no symbol rill_workgroup in " + so.string();
    return fn;
}

std::string read_text(const fs::path& p, std::size_t max) {
    std::ifstream in(p, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (s.size() > max) s = s.substr(0, max) + "\n[...]";
    return s;
}

/// Runs `argv` with its output into `log`; returns the exit status, or -1
/// with errno when it could not be started.
int run(const std::vector<std::string>& argv, const fs::path& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (err != 0) {
        errno = err;
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/// Whether the compiler says it is Clang (`--version`); asked once per process.
bool compiler_is_clang() {
    std::error_code ec;
    const fs::path log = fs::temp_directory_path(ec) / ("rill-cxx-version-" + std::to_string(getpid()) + ".txt");
    const bool clang = run({compiler(), "--version"}, log) == 0 && read_text(log, 4096).find("clang") != std::string::npos;
    fs::remove(log, ec);
    return clang;
}

/// GCC reads `native_prelude.h.gch` in place of the header its flags match:
/// built once per cache directory for about three kernels' build time, it
/// takes 60% off each later build (1.4-2.3 s to 0.75 s on the 2-core CI
/// machine). Without it (Clang, a failed build, another compiler's file)
/// kernels build as before, parsing the header. Called under g_mutex.
void precompile_prelude(const fs::path& inc) {
    static std::unordered_map<std::string, bool> tried;
    if (tried[inc.string()] || compiler_is_clang()) return;
    tried[inc.string()] = true;
    const fs::path gch = inc / "native_prelude.h.gch";
    if (fs::exists(gch)) return;
    const std::string stem = gch.string() + "." + std::to_string(getpid());
    std::vector<std::string> argv = {compiler()};
    for (const std::string& f : flags())
        if (f != "-shared") argv.push_back(f);
    argv.insert(argv.end(), {"-I", inc.string(), "-x", "c++-header", (inc / "native_prelude.h").string(), "-o", stem + ".tmp"});
    std::error_code ec;
    if (run(argv, stem + ".log") == 0) fs::rename(stem + ".tmp", gch, ec);
    fs::remove(stem + ".tmp", ec);
    fs::remove(stem + ".log", ec);
}

std::mutex g_mutex;
std::unordered_map<std::uint64_t, native::WorkgroupFn>& loaded() {
    static std::unordered_map<std::uint64_t, native::WorkgroupFn> m;
    return m;
}

native::WorkgroupFn find_locked(std::uint64_t key, const fs::path& so) {
    if (auto it = loaded().find(key); it != loaded().end()) return it->second;
    if (!fs::exists(so)) return nullptr;
    native::WorkgroupFn fn = open_library(so, nullptr);  // unreadable: built again by the caller
    if (fn) loaded()[key] = fn;
    return fn;
}

}  // namespace

NativeMode native_mode_from_env() {
    const char* v = std::getenv("RILL_CPU_COMPILE");
    if (!v || !*v || std::strcmp(v, "auto") == 0) return NativeMode::Auto;
    if (std::strcmp(v, "always") == 0) return NativeMode::Always;
    if (std::strcmp(v, "off") == 0) return NativeMode::Off;
    throw Error("RILL_CPU_COMPILE=" + std::string(v) + " is not a mode; use auto (the default), always or off");
}

native::WorkgroupFn find_native(const std::string& source) {
    std::lock_guard lock(g_mutex);
    const std::uint64_t key = key_of(source);
    return find_locked(key, directory() / (hex(key) + ".so"));
}

native::WorkgroupFn load_native(const std::string& source, const std::string& kernel) {
    std::lock_guard lock(g_mutex);
    const std::uint64_t key = key_of(source);
    const fs::path dir = directory();
    const fs::path so = dir / (hex(key) + ".so");
    if (native::WorkgroupFn fn = find_locked(key, so)) return fn;

    const std::string stem = hex(key) + "." + std::to_string(getpid());
    const fs::path src = dir / (stem + ".cpp"), tmp = dir / (stem + ".so.tmp"), log = dir / (stem + ".log");
    if (!write_file(src, source))
        throw Error("cpu backend: kernel '" + kernel + "': cannot write its C++ to " + src.string() +
                    "; make the rill cache directory writable (RILL_CACHE_DIR) or set RILL_CPU_COMPILE=off");
    std::vector<std::string> argv = {compiler()};
    const std::vector<std::string> build_flags = flags_for(source);
    argv.insert(argv.end(), build_flags.begin(), build_flags.end());
    const fs::path inc = include_dir(dir);
    precompile_prelude(inc);
    argv.insert(argv.end(), {"-I", inc.string(), src.string(), "-o", tmp.string()});
    const int status = run(argv, log);
    if (status != 0) {
        std::string command;
        for (const std::string& a : argv) command += a + ' ';
        if (status < 0)
            throw Error("cpu backend: kernel '" + kernel + "': cannot run the C++ compiler '" + argv[0] + "' (" +
                        std::strerror(errno) + "); install one (Debian: apt-get install g++), name it in RILL_CXX, "
                        "or set RILL_CPU_COMPILE=off to interpret every kernel");
        throw Error("cpu backend: kernel '" + kernel + "': its generated C++ did not compile (exit status " +
                    std::to_string(status) + "): " + command + "\n" + read_text(log, 4000) +
                    "\nThis is a bug in rill: please report it with " + src.string() +
                    "; set RILL_CPU_COMPILE=off to interpret the kernel meanwhile");
    }
    std::error_code ec;
    fs::rename(tmp, so, ec);
    const fs::path& built = ec ? tmp : so;
    std::string why;
    native::WorkgroupFn fn = open_library(built, &why);
    if (!fn)
        throw Error("cpu backend: kernel '" + kernel + "': cannot load its compiled code " + built.string() + ": " + why +
                    "; set RILL_CPU_COMPILE=off to interpret it");
    if (!std::getenv("RILL_DUMP")) fs::remove(src, ec);  // kept for reading generated code
    fs::remove(log, ec);
    loaded()[key] = fn;
    return fn;
}

}  // namespace rill::cpu
