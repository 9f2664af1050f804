// The particle engine (rill::particles): a full step against the copy roof
// of the bytes a step must move plus rill's own sort of its keys, the steps
// per second, UberFlow's tables (Kipfer, Segal and Westermann 2004: Table 1,
// sorting n x n keys with identifiers and the containers' rearrangement;
// Table 2, effects E1-E4 at 256^2 to 1024^2 particles, in frames per
// second) and rendering at 1920x1080.
//
//   RILL_BACKEND=vulkan rill-bench-particles [--sizes 20,22] [--tables 8,9,10] [--render 20]
//
// The step's scene: a block of particles on a lattice slightly tighter than
// their diameter (every particle in contact with its six lattice
// neighbours) in the lower half of the box, springs, gravity, walls; the same
// scene as bench/gpu/torch_particles.py builds for PyTorch. Times are host
// wall times of batches of steps, waited for, medians after a warm-up.
// RILL_BENCH_ONLY=step,tables,render picks parts.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <rill/algorithms/particles.h>
#include <rill/algorithms/radix_sort.h>

#include "particles_app.h"
#include "timing.h"

namespace {

using namespace rill;
using particles::Particle;

std::vector<int> list(const char* text) {
    std::vector<int> out;
    std::stringstream s(text);
    for (std::string item; std::getline(s, item, ',');) out.push_back(std::atoi(item.c_str()));
    return out;
}

/// The block: n particles on a lattice of spacing 1.95 r from the box's
/// low corner, x and z across the box, as many layers as it takes, with a
/// small velocity field (as torch_particles.py).
struct Block {
    std::vector<Particle> particles;
    float radius;
};
Block block(std::int64_t n) {
    const int side = static_cast<int>(std::ceil(std::cbrt(2.0 * static_cast<double>(n))));
    const float spacing = 2.0f / static_cast<float>(side), radius = spacing / 1.95f;
    Block b{std::vector<Particle>(static_cast<std::size_t>(n)), radius};
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t x = i % side, z = (i / side) % side, y = i / (std::int64_t{side} * side);
        Particle& p = b.particles[static_cast<std::size_t>(i)];
        p.position = {-1 + radius + spacing * float(x), -1 + radius + spacing * float(y), -1 + radius + spacing * float(z)};
        p.velocity = {0.1f * std::sin(3 * p.position.y), 0.1f * std::cos(5 * p.position.x), 0.1f * std::sin(7 * p.position.z)};
        p.life = 1e30f;
    }
    return b;
}

particles::Options block_options(float radius) {
    return {.radius = radius, .stiffness = 2e4f, .damping = 20, .restitution = 0.3f};
}

/// The copy roof as rill's kernels see it: a float4 copy kernel.
double copy_gbs(Runtime& rt) {
    static const auto copy = group_kernel<256>("bench_copy(from, to)", [](Array<float4> from, Array<float4> to) {
        Int i = global_id();
        If(i < to.size(), [&] { to.store(i, from.load(i)); });
    });
    const std::int64_t n = rt.backend_name() == "cpu" ? std::int64_t{1} << 23 : std::int64_t{1} << 26;
    Stream<float4> a = rt.stream<float4>({n}), b = rt.stream<float4>({n});
    const double ms = bench::median_ms(1, 7, [&] { copy(Groups{n / 256}, a, b); }, rt).host_ms;
    return 2.0 * 16 * static_cast<double>(n) / (ms * 1e6);
}

/// Device time per step of each kernel over 10 steps (GPU timestamps; host
/// time on the CPU), and the sum beside the wall time: where a step goes.
void kernel_breakdown(Runtime& rt, const Stream<Particle>& initial, const particles::Options& o, float dt) {
    particles::Engine e(initial, o);
    e.step(dt);
    rt.finish();
    rt.set_profiling(true);
    rt.reset_kernel_times();
    for (int k = 0; k < 10; ++k) e.step(dt);
    std::vector<KernelTime> times = rt.kernel_times();
    rt.set_profiling(false);
    double sum = 0, first = 1e300, last = 0;
    std::string line;
    for (const KernelTime& t : times) {
        sum += t.total_ms / 10;
        first = std::min(first, t.first_start_ms), last = std::max(last, t.last_end_ms);
        char cell[160];
        std::snprintf(cell, sizeof cell, "%s%s %.3f", line.empty() ? "" : ", ", t.kernel.c_str(), t.total_ms / 10);
        line += cell;
    }
    std::printf("  device ms per step: %s; sum %.3f, span %.3f\n", line.c_str(), sum, (last - first) / 10);
}

void step_section(Runtime& rt, const std::vector<int>& sizes) {
    const double gbs = copy_gbs(rt);
    std::printf("copy: %.1f GB/s (a rill float4 copy kernel, same run)\n\n", gbs);
    std::printf("A step of the block (springs, gravity, walls): wall time per step, the stages (each timed with the device\n"
                "finishing it), and the roof: the step's must-move bytes (each particle's 48 read and written twice, its key\n"
                "and place written and read: 224 B) at the copy rate, plus rill's radix sort of the keys alone.\n\n");
    std::printf("| particles | step | steps/s | keys | sort | neighbours | collide | integrate | pairs | roof | step / roof |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int lg : sizes) {
        const std::int64_t n = std::int64_t{1} << lg;
        Block b = block(n);
        const Stream<Particle> initial = rt.stream<Particle>({n}, b.particles);
        const particles::Options o = block_options(b.radius);
        const float dt = 1.0f / 2400;
        // Every measurement steps 10 times from the block itself (a fresh
        // engine, stepped once untimed), so that every figure times the same work (the springs
        // move the block little in 10 steps), as the PyTorch peer does.
        {
            particles::Engine warm(initial, o);  // compiles, and brings the GPU's clocks up
            const auto until = bench::Clock::now() + std::chrono::seconds(1);
            while (bench::Clock::now() < until) warm.step(dt);
            rt.finish();
        }
        std::vector<double> runs;
        for (int r = 0; r < 7; ++r) {
            particles::Engine e(initial, o);
            e.step(dt);  // its buffers touched once
            rt.finish();
            const auto t0 = bench::Clock::now();
            for (int k = 0; k < 10; ++k) e.step(dt);
            rt.finish();
            runs.push_back(std::chrono::duration<double, std::milli>(bench::Clock::now() - t0).count() / 10);
        }
        std::sort(runs.begin(), runs.end());
        const double step_ms = runs[runs.size() / 2];
        particles::Engine engine(initial, o);
        engine.step(dt);
        particles::StageTimes sum, one;
        for (int r = 0; r < 5; ++r) {
            engine.step(dt, &one);
            sum.keys += one.keys / 5, sum.sort += one.sort / 5, sum.neighbours += one.neighbours / 5;
            sum.collide += one.collide / 5, sum.integrate += one.integrate / 5;
        }
        engine.check();
        const std::int64_t pairs = engine.pairs().size();
        // rill's sort of the same keys and places, alone.
        const int bits = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(engine.grid().x) * engine.grid().y * engine.grid().z + 1));
        std::vector<std::uint32_t> host_keys(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < host_keys.size(); ++i) host_keys[i] = static_cast<std::uint32_t>((i * 2654435761u) % (1u << (bits - 1)));
        Stream<std::uint32_t> keys = rt.stream<std::uint32_t>({n}, host_keys), k2 = rt.stream<std::uint32_t>({n});
        Stream<std::int32_t> ids = rt.stream<std::int32_t>({n});
        // Each sort starts from the unsorted keys (a copy, whose time at the copy rate is taken off).
        const double sort_ms = bench::median_ms(1, 7, [&] {
            rill::detail::copy_stream(keys, k2);
            radix_sort(k2, ids, {.bits = bits});
        }, rt).host_ms - 8.0 * static_cast<double>(n) / (gbs * 1e6);
        const double roof_ms = 224.0 * static_cast<double>(n) / (gbs * 1e6) + sort_ms;
        std::printf("| 2^%d | %.3f ms | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %lld | %.3f ms | %.2f |\n", lg, step_ms, 1e3 / step_ms,
                    sum.keys, sum.sort, sum.neighbours, sum.collide, sum.integrate, static_cast<long long>(pairs), roof_ms,
                    step_ms / roof_ms);
        std::fflush(stdout);
        kernel_breakdown(rt, initial, o, dt);
    }
    std::printf("\n");
}

void tables_section(Runtime& rt, const std::vector<int>& sides) {
    // UberFlow's figures (ATI Radeon 9800 Pro, 2004), by side: Table 1 GP/FP Packed; Table 2 E1..E4.
    auto paper1 = [](int lg) { return lg == 7 ? "148" : lg == 8 ? "43" : lg == 9 ? "10" : lg == 10 ? "2" : "-"; };
    auto paper2 = [](int lg, int e) -> const char* {
        static const char* t[3][4] = {{"640", "155", "39", "133"}, {"320", "96", "8", "31"}, {"120", "42", "1.4", "7"}};
        return lg >= 8 && lg <= 10 ? t[lg - 8][e - 1] : "-";
    };
    std::printf("UberFlow Table 1: sorting n x n keys with their identifiers and rearranging the particles (the step's keys, sort\n"
                "and gather stages), in sorts per second; rill's bitonic sort (UberFlow's) and radix sort.\n\n");
    std::printf("| n x n | bitonic | radix | UberFlow 2004 (GP/FP packed) |\n|---|---|---|---|\n");
    for (int lg : sides) {
        const std::int64_t n = std::int64_t{1} << (2 * lg);
        double fps[2];
        for (int a = 0; a < 2; ++a) {
            particles_app::Scene s = particles_app::make_scene(rt, "e1", n);
            particles::Options o = s.engine.options();
            o.sort = a == 0 ? particles::SortAlgorithm::Bitonic : particles::SortAlgorithm::Radix;
            particles::Engine e(s.engine.particles(), o);
            particles::StageTimes t;
            std::vector<double> ms;
            for (int r = 0; r < 7; ++r) {
                e.step(1.0f / 60, &t);
                if (r > 0) ms.push_back(t.keys + t.sort + t.neighbours);
            }
            std::sort(ms.begin(), ms.end());
            fps[a] = 1e3 / ms[ms.size() / 2];
        }
        std::printf("| %d^2 | %.0f | %.0f | %s |\n", 1 << lg, fps[0], fps[1], paper1(lg));
        std::fflush(stdout);
    }
    std::printf("\nUberFlow Table 2: frames per second of each effect (one step of 1/60 s, E4's contact springs in the substeps\n"
                "they need, and a 1024x768 picture per frame); UberFlow's figures beside.\n\n");
    std::printf("| particles | E1 | E2 | E3 | E4 | UberFlow 2004 E1 / E2 / E3 / E4 |\n|---|---|---|---|---|---|\n");
    Stream<float4> image = rt.stream<float4>({768, 1024});
    for (int lg : sides) {
        const std::int64_t n = std::int64_t{1} << (2 * lg);
        double fps[4];
        for (int e = 1; e <= 4; ++e) {
            const char name[3] = {'e', static_cast<char>('0' + e), 0};
            particles_app::Scene s = particles_app::make_scene(rt, name, n);
            const float dt = 1.0f / (60.0f * static_cast<float>(s.substeps));
            const double ms = bench::median_ms(1, 5, [&] {
                for (int k = 0; k < s.substeps; ++k) s.engine.step(dt);
                s.engine.render(s.camera, image, s.render);
            }, rt).host_ms;
            s.engine.check();
            fps[e - 1] = 1e3 / ms;
        }
        std::printf("| %d^2 | %.0f | %.0f | %.0f | %.0f | %s / %s / %s / %s |\n", 1 << lg, fps[0], fps[1], fps[2], fps[3], paper2(lg, 1),
                    paper2(lg, 2), paper2(lg, 3), paper2(lg, 4));
        std::fflush(stdout);
    }
    std::printf("\n");
}

void render_section(Runtime& rt, int lg) {
    const std::int64_t n = std::int64_t{1} << lg;
    particles_app::Scene s = particles_app::make_scene(rt, "fountain", n);
    // Fill the fountain first, so that the picture has its particles.
    const float dt = 1.0f / (60.0f * static_cast<float>(s.substeps));
    for (int f = 0; f < 120; ++f)
        for (int k = 0; k < s.substeps; ++k) s.engine.step(dt);
    Stream<float4> image = rt.stream<float4>({1080, 1920});
    const double render_ms = bench::median_ms(1, 7, [&] { s.engine.render(s.camera, image, s.render); }, rt).host_ms;
    const double step_ms = bench::median_ms(1, 7, [&] { s.engine.step(dt); }, rt).host_ms;
    s.engine.check();
    std::printf("Rendering the fountain of 2^%d particles at 1920x1080: %.3f ms; with one step (%.3f ms): %.0f frames per second;\n"
                "with its %d substeps per 1/60 s frame: %.0f frames per second.\n",
                lg, render_ms, step_ms, 1e3 / (render_ms + step_ms), s.substeps, 1e3 / (render_ms + s.substeps * step_ms));
    particles::RenderOptions translucent = s.render;
    translucent.translucent = true;
    const double translucent_ms = bench::median_ms(1, 7, [&] { s.engine.render(s.camera, image, translucent); }, rt).host_ms;
    std::printf("The same picture translucent (sorted front to back, blended per pixel): %.3f ms; with its %d substeps: %.0f frames "
                "per second.\n\n",
                translucent_ms, s.substeps, 1e3 / (translucent_ms + s.substeps * step_ms));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes, sides{7, 8, 9, 10};
    int render = 20;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--sizes" && a + 1 < argc) sizes = list(argv[++a]);
        else if (arg == "--tables" && a + 1 < argc) sides = list(argv[++a]);
        else if (arg == "--render" && a + 1 < argc) render = std::atoi(argv[++a]);
        else {
            std::fprintf(stderr, "usage: rill-bench-particles [--sizes 16,18] [--tables 7,8,9,10] [--render 20]\n");
            return 2;
        }
    }
    try {
        Runtime rt;
        std::printf("backend %s: %s\n\n", rt.backend_name().c_str(), rt.info().device.c_str());
        if (sizes.empty()) sizes = rt.backend_name() == "cpu" ? std::vector<int>{16, 18} : std::vector<int>{20, 22};
        if (bench::section("step")) step_section(rt, sizes);
        if (bench::section("tables")) tables_section(rt, sides);
        if (bench::section("render")) render_section(rt, render);
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
