// Stream compaction (filter) and stable partition, on the device, by scan
// (GPU Gems 3 ch. 39.3.1): flags from a DSL predicate, their exclusive sum
// scan gives every kept element its output position, and a scatter writes it.
// By default the flags never reach memory. Two passes: one counts each tile's
// kept elements, a scan of those counts gives every tile its start, and the
// second scans the flags within each tile and writes the kept elements (the
// input is read twice). Or a single pass, where it is faster (Vulkan, OpenGL):
// each tile is read once, counts its kept elements and takes its start from
// the tiles before it by the scan's decoupled look-back (detail/look_back.h).
// Where the device has subgroup ballots, the single pass's subgroups rank a
// row of consecutive elements with one ballot and write the kept ones from
// registers, a row's to consecutive addresses; elsewhere tiles of one-word
// elements move as vectors and are written through shared memory.
//
//   rill::Filter<float> positive("positive", [](Expr<float> x) { return x > 0.0f; });
//   std::int64_t kept = positive(in, out);   // order kept; the host gets the count
//   positive(in, out, count);                // count (Stream<uint32_t> of 1) stays on the device
//   positive.partition(in, out, count);      // kept ones first, then the rest, each in order
//
// `out` has in's size; elements past the kept ones are left as they were
// (partition writes them all). Elements may be any stream type, structs too.
// Horn's scan / search / gather compaction and a bitonic-sort compaction (GPU
// Gems 2 ch. 36.1) are there by name too (CompactOptions), for teaching and
// for Horn's Table 36-1.
#pragma once

#include <rill/algorithms/bitonic_sort.h>
#include <rill/algorithms/scan.h>
#include <rill/algorithms/detail/ballot_rank.h>
#include <rill/algorithms/detail/look_back.h>
#include <rill/algorithms/detail/rows.h>
#include <rill/algorithms/detail/workgroup_scan.h>

#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace rill {

/// How a Filter moves the kept elements.
///  ScanScatter: each kept element is written to its place (the exclusive scan
///   of the flags). The default, and the fastest. With ScanAlgorithm::Auto
///   the scan is done tile by tile: in two passes over the input (counts,
///   then scan and scatter), or in one with the look-back where that was
///   measured faster (filters; partition needs the total first).
///   ScanAlgorithm::SinglePass asks for the single pass (refused where it
///   cannot be exact, and for partition), ReduceThenScan for the two passes;
///   HillisSteele and Blelloch run the textbook three steps: flags to memory,
///   that scan of them, a scatter.
///  SearchGather: Horn's method, for GPUs without scatter: each output place
///   binary-searches the inclusive scan of the flags for the element it takes
///   (O(log n) reads per place) and gathers it.
///  BitonicSort: a stable bitonic sort of the flags with the elements' indices
///   (kept first), then a gather: O(n log^2 n), what Horn measured against.
enum class CompactAlgorithm { ScanScatter, SearchGather, BitonicSort };

struct CompactOptions {
    CompactAlgorithm algorithm = CompactAlgorithm::ScanScatter;
    /// The scan of the flags (with ScanScatter, Auto, SinglePass and
    /// ReduceThenScan scan them within tiles, above): HillisSteele is Horn's.
    ScanAlgorithm scan = ScanAlgorithm::Auto;
    /// ScanScatter with Auto or SinglePass: the tile of its passes, a workgroup
    /// of 128 or 256 invocations of 8 or 16 elements each, loaded Transposed
    /// or (int32, uint32 and float elements, streams that start at a multiple
    /// of 4 elements) as Vectors, or (int32, uint32 and float elements)
    /// ranked by Ballots (the single pass only; ScanTile, TileLoad). A tuning knob;
    /// zeros take the default, the fastest measured on the H100
    /// (docs/PERFORMANCE.md#compaction): for the single pass of one-word elements Ballots
    /// of 128 x 16 where the device has subgroup ballots, and for two passes on
    /// the CPU backend row tiles (detail/rows.h).
    ScanTile tile = {};
};

template <StreamElement T>
class Filter {
    using Pred = std::function<Expr<bool>(const dsl::read_t<T>&)>;

public:
    /// Kernels are traced when a call first needs them (one set per way and tile).
    template <class P>
    Filter(const std::string& name, P predicate) : state_(std::make_shared<State>(name, Pred(predicate))) {}

    /// Writes the kept elements of `in`, in order, to the front of `out` and
    /// `count` (a Stream<uint32_t> of one element) without a host round trip.
    void operator()(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count,
                    const CompactOptions& options = {}) const {
        run(in, out, count, false, options);
    }
    /// The same, returning the count to the host (waits for the device).
    std::int64_t operator()(const Stream<T>& in, const Stream<T>& out, const CompactOptions& options = {}) const {
        auto count = Runtime::of(in).template scratch<std::uint32_t>({1});  // run writes it
        run(in, out, count, false, options);
        return count.download()[0];
    }
    /// Stable partition: kept elements first, then the others, each in input order.
    void partition(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count,
                   const CompactOptions& options = {}) const {
        run(in, out, count, true, options);
    }

private:
    using FlagsKernel = decltype(group_kernel<256>("", [](Array<T>, Array<std::uint32_t>, Int) {}));
    /// The kernels that move elements by the scanned flags: (in, scanned flags, out, count, n).
    using MoveKernel =
        decltype(group_kernel<256>("", [](Array<T>, Array<std::uint32_t>, Array<T>, Array<std::uint32_t>, Int) {}));

    static FlagsKernel make_flags(const std::string& name, Pred keep) {
        return group_kernel<256>(name + "_flags(in, flags, n)", [keep](Array<T> in, Array<std::uint32_t> flags, Int n) {
            Int i = global_id();
            If(i < n, [&] { flags.store(i, select(keep(in.load(i)), 1u, 0u)); });
        });
    }

    /// Moves each element to its position: kept ones to offset[i]; with `split`,
    /// the others to kept_total + (i - offset[i]). Also writes the count.
    static MoveKernel make_scatter(const std::string& name, Pred keep, bool split) {
        return group_kernel<256>(name + (split ? "_partition" : "_scatter") + "(in, offsets, out, count, n)",
                                 [keep, split](Array<T> in, Array<std::uint32_t> offsets, Array<T> out,
                                               Array<std::uint32_t> count, Int n) {
            Int i = global_id();
            // The kept total: the last offset plus the last flag.
            UInt total = offsets.load(n - 1) + select(keep(in.load(n - 1)), 1u, 0u);
            If(i < n, [&] {
                auto x = in.load(i);
                UInt at = offsets.load(i);
                If(keep(x), [&] { out.store(at, x); });
                if (split) If(!keep(x), [&] { out.store(total + (cast<std::uint32_t>(i) - at), x); });
            });
            If(i == 0, [&] { count.store(0, total); });
        });
    }

    /// Horn's search / gather: output place j takes the first element whose
    /// inclusive count of kept elements exceeds j (with `split`, places past
    /// the kept total take the discarded elements the same way, by the count
    /// of discarded ones, i + 1 - scanned[i]). Also writes the count.
    static MoveKernel make_search(const std::string& name, bool split) {
        return group_kernel<256>(name + (split ? "_search_partition" : "_search_gather") + "(in, scanned, out, count, n)",
                                 [split](Array<T> in, Array<std::uint32_t> scanned, Array<T> out,
                                         Array<std::uint32_t> count, Int n) {
            Int j = global_id();
            UInt total = scanned.load(n - 1);
            UInt place = cast<std::uint32_t>(j);
            Bool kept = place < total;
            If(j < n && (kept || split), [&] {
                UInt rank = select(kept, place, place - total);  // the rank-th kept (or discarded) element
                Int lo = 0, hi = n - 1;
                While([&] { return lo < hi; }, [&] {
                    Int mid = (lo + hi) / 2;
                    UInt before = scanned.load(mid);  // kept ones in 0..mid
                    UInt seen = select(kept, before, cast<std::uint32_t>(mid) + 1u - before);
                    If(seen > rank, [&] { hi = mid; }).Else([&] { lo = mid + 1; });
                });
                out.store(j, in.load(lo));
            });
            If(j == 0, [&] { count.store(0, total); });
        });
    }

    using SortGatherKernel = decltype(group_kernel<256>(
        "", [](Array<T>, Array<std::uint32_t>, Array<std::uint32_t>, Array<T>, Array<std::uint32_t>, Int) {}));

    /// The bitonic path's gather, after the flags were sorted descending with
    /// the elements' indices (stable: kept ones first, each in input order):
    /// out[j] = in[index[j]] for the kept places (all with `split`); the count
    /// is the place where the sorted flags fall from 1 to 0.
    static SortGatherKernel make_sort_gather(const std::string& name, bool split) {
        return group_kernel<256>(name + (split ? "_sorted_partition" : "_sorted_gather") +
                                     "(in, flags, index, out, count, n)",
                                 [split](Array<T> in, Array<std::uint32_t> flags, Array<std::uint32_t> index, Array<T> out,
                                         Array<std::uint32_t> count, Int n) {
            Int j = global_id();
            If(j < n, [&] {
                UInt here = flags.load(j);
                If(here == 1u || split, [&] { out.store(j, in.load(cast<std::int32_t>(index.load(j)))); });
                UInt next = select(j + 1 < n, flags.load(j + 1), 0u);
                If(here == 1u && next == 0u, [&] { count.store(0, cast<std::uint32_t>(j) + 1u); });
                If(j == 0 && here == 0u, [&] { count.store(0, 0u); });
            });
        });
    }

    void run(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, bool split,
             const CompactOptions& options) const {
        if (!(in.shape() == out.shape()))
            throw Error("rill::Filter: the input has shape " + in.shape().str() + " but the output has shape " +
                        out.shape().str() + "; compact into a stream of the input's size");
        if (count.size() != 1)
            throw Error("rill::Filter: the count stream has " + std::to_string(count.size()) +
                        " elements; pass a Stream<uint32_t> of one element");
        const std::int64_t n = in.size();
        Runtime rt = Runtime::of(in);
        if (in.buffer() == out.buffer())
            throw Error("rill::Filter: the output is the input stream (or a view of it); elements would overwrite "
                        "others not yet read. Compact into another stream");
        if (n == 0) {
            Stream<std::uint32_t>(count).upload(std::vector<std::uint32_t>{0});
            return;
        }
        const auto count_n = static_cast<std::int32_t>(std::min<std::int64_t>(n, std::numeric_limits<std::int32_t>::max()));
        if (options.algorithm == CompactAlgorithm::ScanScatter &&
            (options.scan == ScanAlgorithm::Auto || options.scan == ScanAlgorithm::SinglePass ||
             options.scan == ScanAlgorithm::ReduceThenScan)) {
            const bool default_tile = options.tile.workgroup == 0 && options.tile.items == 0;
            const bool ballot_tile = !default_tile && options.tile.load == TileLoad::Ballots;
            const bool vectors = default_tile ? vectors_fit(in, out) : options.tile.load == TileLoad::Vectors;
            if (ballot_tile && options.scan == ScanAlgorithm::ReduceThenScan)
                throw Error("rill::Filter '" + state_->name + "': TileLoad::Ballots is a tile of the single pass only; use "
                            "ScanAlgorithm::Auto or SinglePass with it, or TileLoad::Vectors or Transposed for two passes");
            const bool asked_single = options.scan == ScanAlgorithm::SinglePass || ballot_tile;
            if (asked_single) check_single_pass(rt.info(), n, split, ballot_tile);
            const bool single =
                asked_single || (options.scan == ScanAlgorithm::Auto && !split && single_pass_pays(rt.info(), n, vectors));
            if (!single && default_tile && detail::rows_pay(rt.info())) return compact_by_rows(in, out, count, split);
            const detail::BallotSubgroup ballots = detail::ballot_subgroup(rt.info().limits);
            ScanTile tile = options.tile;
            if (default_tile)
                tile = single && ballots.size && kVectorElements ? kDefaultBallotTile
                       : vectors              ? kDefaultVectorTile
                       : single               ? kDefaultSinglePassTile
                                              : kDefaultTile;
            // Where the driver ends long loops, only passes short enough for the look-back (whose fallback bounds its waits).
            if (single)
                detail::look_back::check_counted(rt.info(), "rill::Filter '" + state_->name + "'", single_pass_fix(ballot_tile), n,
                                                 std::int64_t{tile.workgroup} * tile.items, tile.workgroup);
            if (tile.load == TileLoad::Ballots) return compact_by_ballots(in, out, count, tile, ballots);
            if (vectors) check_vectors(in, out);
            if (!listed_tile(tile))
                throw Error("rill::Filter '" + state_->name + "': CompactOptions::tile is " + std::to_string(tile.workgroup) +
                            " invocations of " + std::to_string(tile.items) + " elements; use 128 or 256 invocations "
                            "of 8 or 16 elements each (or leave the default)");
            if (vectors) {
                if constexpr (kVectorElements) {
                    if (single) compact_single_pass(tile.workgroup, tile.items, true, in, out, count);
                    else compact_vector_tiles(tile.workgroup, tile.items, in, out, count, split);
                }
            } else {
                if (single) compact_single_pass(tile.workgroup, tile.items, false, in, out, count);
                else compact_by_tiles(tile.workgroup, tile.items, in, out, count, split);
            }
            return;
        }
        if (n > std::numeric_limits<std::int32_t>::max() - 4096)
            throw Error("rill::Filter: " + std::to_string(n) + " elements is more than 2^31 - 4097; split the stream");
        const std::int64_t groups = (n + 255) / 256;
        auto flags = rt.template scratch<std::uint32_t>({n});  // each written by the flags kernel
        flags_kernel(kFlags, 0, 0, [&] { return make_flags(state_->name, state_->keep); })(Groups{groups}, in, flags, count_n);
        switch (options.algorithm) {
            case CompactAlgorithm::ScanScatter:
                exclusive_scan(flags, flags, ScanOp::Add, ScanOptions{options.scan});
                move_kernel(split ? kSplit : kScatter, 0, 0, [&] { return make_scatter(state_->name, state_->keep, split); })(
                    Groups{groups}, in, flags, out, count, count_n);
                return;
            case CompactAlgorithm::SearchGather:
                inclusive_scan(flags, flags, ScanOp::Add, ScanOptions{options.scan});
                move_kernel(split ? kSearchSplit : kSearch, 0, 0, [&] { return make_search(state_->name, split); })(
                    Groups{groups}, in, flags, out, count, count_n);
                return;
            case CompactAlgorithm::BitonicSort: {
                auto index = rt.template scratch<std::uint32_t>({n});  // iota writes each
                iota()(Groups{groups}, index, count_n);
                bitonic_sort(flags, index, BitonicSortOptions{.descending = true});
                sort_gather_kernel(split ? kSortGatherSplit : kSortGather, [&] { return make_sort_gather(state_->name, split); })(
                    Groups{groups}, in, flags, index, out, count, count_n);
                return;
            }
        }
    }

    /// Whether Auto compacts n elements in a single pass: through Vulkan, over
    /// tiles of vectors at any n, over transposed tiles up to 2^26, as
    /// measured on the H100 (docs/PERFORMANCE.md#compaction; over
    /// vectors 1.33x the fastest two passes at 2^24, 1.08x at 2^26, 1.02x at
    /// 2^28; with one-word states and no ticket: 1.5x at 2^24,
    /// 1.18x at 2^28). Through OpenGL over tiles of vectors
    /// (2.6x the two passes at 2^16, 1.35x at 2^24, 1.18x at 2^28); its
    /// transposed tiles were not measured there. The CPU backend's two passes
    /// over rows read the input from cache the second time.
    ///
    /// Elements of several words take the two passes through Vulkan: the
    /// single pass over transposed tiles of an 8-word struct kept 2 of 3047
    /// elements of 4099 through NVIDIA's Vulkan driver on the H200
    /// (2026-12-02, Compaction.FilterOfWideStructs; the two passes were
    /// right), right on every other backend, as a 16-byte struct at 256 x 16
    /// before it (#compaction). Asked for, it is refused there (check_single_pass).
    static bool single_pass_pays(const BackendInfo& info, std::int64_t n, bool vectors) {
        if (!detail::look_back::exact_on(info) || n >= detail::look_back::kMostCounted) return false;
        if (info.name == "vulkan") return vectors || (element_words<T> == 1 && n <= (std::int64_t{1} << 26));
        return info.name == "opengl" && vectors;
    }

    /// Elements a tile can move as vectors of 4 (Array::load_vector).
    static constexpr bool kVectorElements =
        std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>;
    /// Whether the default tile moves `in` and `out` as vectors: one-word
    /// scalars, views that start at a multiple of 4 elements.
    static bool vectors_fit(const Stream<T>& in, const Stream<T>& out) {
        return kVectorElements && in.offset() % 4 == 0 && out.offset() % 4 == 0;
    }
    void check_vectors(const Stream<T>& in, const Stream<T>& out) const {
        if (!kVectorElements)
            throw Error("rill::Filter '" + state_->name + "': CompactOptions::tile moves vectors of 4 elements, which "
                        "needs int32, uint32 or float elements, not " + in.element_type_name() + "; use TileLoad::Transposed");
        if (in.offset() % 4 != 0 || out.offset() % 4 != 0)
            throw Error("rill::Filter '" + state_->name + "': CompactOptions::tile moves vectors of 4 elements, but the " +
                        std::string(in.offset() % 4 ? "input" : "output") + " is a view that starts at element " +
                        std::to_string(in.offset() % 4 ? in.offset() : out.offset()) +
                        " of its buffer; give views that start at a multiple of 4, or TileLoad::Transposed");
    }

    /// Refuses the single pass where it cannot run; `ballot_tile`: asked for
    /// by TileLoad::Ballots, which has no other.
    static std::string in_type_name() { return element_name<T>::get(); }
    static std::string single_pass_fix(bool ballot_tile) {
        return ballot_tile ? "TileLoad::Vectors or Transposed (TileLoad::Ballots is a tile of the single pass only)"
                           : "ScanAlgorithm::Auto";
    }
    void check_single_pass(const BackendInfo& info, std::int64_t n, bool split, bool ballot_tile) const {
        const std::string fix = single_pass_fix(ballot_tile);
        if (n >= detail::look_back::kMostCounted)
            throw Error("rill::Filter '" + state_->name + "': the single pass counts in 30 bits, and the stream has " +
                        std::to_string(n) + " elements (2^30 or more); use " + fix);
        if (split)
            throw Error("rill::Filter '" + state_->name + "': partition cannot run in a single pass: the other elements "
                        "go after all kept ones, whose number is known only when every tile is done; use " + fix);
        if (info.name == "vulkan" && element_words<T> > 1 && !ballot_tile && !refused_shapes_allowed())  // ballots say it their way
            throw Error("rill::Filter '" + state_->name + "': through Vulkan the single pass moves elements of one word, "
                        "not " + in_type_name() + " (" + std::to_string(element_words<T>) + " words: NVIDIA's driver "
                        "miscounted them); use " + fix);
    }

    /// The single pass over a tile ranked by ballots, one of the shapes TileLoad::Ballots lists.
    void compact_by_ballots(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, ScanTile tile,
                            detail::BallotSubgroup ballots) const {
        if (!kVectorElements)
            throw Error("rill::Filter '" + state_->name + "': TileLoad::Ballots holds one-word elements (int32, uint32 or "
                        "float), not " + in.element_type_name() + "; use TileLoad::Transposed");
        if (!ballots.size)
            throw Error("rill::Filter '" + state_->name + "': TileLoad::Ballots ranks elements by subgroup ballots, which " +
                        Runtime::of(in).info().device + " does not have (it needs subgroups of 8 to 128 invocations with "
                        "ballots and shuffles); use TileLoad::Vectors or Transposed");
        // Larger tiles (256 x 24, 512 x 16) and elements of several words (a 16-byte
        // struct at 256 x 16) compacted wrongly through NVIDIA's Vulkan driver, right on
        // every other backend, for a reason not found (docs/PERFORMANCE.md#compaction).
        if (!listed_tile(tile) && !refused_shapes_allowed())
            throw Error("rill::Filter '" + state_->name + "': CompactOptions::tile is " + std::to_string(tile.workgroup) +
                        " invocations of " + std::to_string(tile.items) + " elements ranked by ballots; use 128 or 256 "
                        "invocations of 8 or 16 elements each (or leave the default)");
        compact_ballot_single_pass(tile.workgroup, tile.items, in, out, count, ballots);
    }

    /// RILL_COMPACT_REFUSED_SHAPES=1 (an experiment knob, docs/TUNING.md): the
    /// single pass runs the shapes it refuses because NVIDIA's Vulkan driver
    /// compacted them wrongly (elements of several words through Vulkan, ballot
    /// tiles past the listed ones), to test a cause there
    /// (bench/gpu/compact_shapes.cpp); results may then be wrong.
    static bool refused_shapes_allowed() {
        static const bool allowed = env_flag("RILL_COMPACT_REFUSED_SHAPES");
        return allowed;
    }

    /// The tiles CompactOptions::tile lists, of every way of loading: 128 or 256
    /// invocations of 8 or 16 elements.
    static bool listed_tile(const ScanTile& tile) {
        return (tile.workgroup == 128 || tile.workgroup == 256) && (tile.items == 8 || tile.items == 16);
    }

    /// Tiles of `tile` elements index n elements with int32 arithmetic.
    static void check_fits(std::int64_t n, std::int32_t tile) {
        if (n > std::numeric_limits<std::int32_t>::max() - tile)
            throw Error("rill::Filter: " + std::to_string(n) + " elements is more than 2^31 - 1 - " + std::to_string(tile) +
                        " (the tile); split the stream");
    }

    /// One pass over tiles of wg x items elements with the look-back.
    void compact_single_pass(int wg, int items, bool vectors, const Stream<T>& in, const Stream<T>& out,
                             const Stream<std::uint32_t>& count) const {
        auto make = [&] {
            if constexpr (kVectorElements)
                if (vectors) return make_compact_vector_single_pass(wg, items, state_->name, state_->keep);
            return make_compact_single_pass(wg, items, state_->name, state_->keep);
        };
        run_single_pass(in, out, count, wg * items, move_kernel(vectors ? kVectorSinglePass : kSinglePass, wg, items, make));
    }

    /// Launches a single pass's kernel (in, state, out, count, n) over tiles of
    /// `tile` elements, with look-back states in a new zero-filled stream. Not
    /// in the runtime's zeroed words, cleared by the last tile as the scan's
    /// are: with that clearing, tiles of 128 x 8 ranked by ballots counted
    /// wrongly through NVIDIA's Vulkan driver, every other shape and backend
    /// right (docs/PERFORMANCE.md#compaction).
    void run_single_pass(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, std::int32_t tile,
                         const MoveKernel& kernel) const {
        const std::int64_t n = in.size();
        check_fits(n, tile);
        const std::int64_t tiles = (n + tile - 1) / tile;
        auto state = Runtime::of(in).template stream<std::uint32_t>({detail::look_back::count_state_words(tiles)});
        kernel(Groups{tiles}, in, state, out, count, static_cast<std::int32_t>(n));
    }

    /// The default path: counts per tile, their inclusive scan, then each
    /// tile's flags scanned and its kept elements written.
    void compact_by_tiles(int wg, int items, const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count,
                          bool split) const {
        compact_in_tiles(in, out, count, wg * items, 1,
                         flags_kernel(kCountTiles, wg, items, [&] { return make_count_tiles(wg, items, state_->name, state_->keep); }),
                         move_kernel(split ? kPartitionTiles : kCompactTiles, wg, items,
                                     [&] { return make_compact_tiles(wg, items, state_->name, state_->keep, split); }));
    }

    /// compact_by_tiles with row tiles (detail/rows.h).
    void compact_by_rows(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, bool split) const {
        compact_in_tiles(in, out, count, detail::kRowTile, detail::kRowWorkgroup,
                         flags_kernel(kCountRows, 0, 0, [&] { return make_count_rows(state_->name, state_->keep); }),
                         move_kernel(split ? kPartitionRows : kCompactRows, 0, 0,
                                     [&] { return make_compact_rows(state_->name, state_->keep, split); }));
    }

    /// The two passes over tiles of `tile` elements, each counted in `parts`
    /// parts (its rows, or the whole tile): `counts` writes each part's kept
    /// count, `moves` each tile's kept elements after the inclusive scan of
    /// those counts.
    void compact_in_tiles(const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, std::int32_t tile,
                          std::int32_t parts, const FlagsKernel& counts, const MoveKernel& moves) const {
        const std::int64_t n = in.size();
        check_fits(n, tile);
        const auto count_n = static_cast<std::int32_t>(n);
        const std::int64_t tiles = (n + tile - 1) / tile;
        auto ends = Runtime::of(in).template scratch<std::uint32_t>({tiles * parts});  // each part's count written
        counts(Groups{tiles}, in, ends, count_n);
        inclusive_scan(ends, ends);
        moves(Groups{tiles}, in, ends, out, count, count_n);
    }

    /// The kept elements of invocation l's row, first .. end - 1.
    static Expr<std::uint32_t> kept_in_row(const Pred& keep, const Array<T>& in, const Int& first, const Int& end) {
        Var<std::uint32_t> kept = 0u;
        For(first, end, [&](Int i) { kept = kept + select(keep(in.load(i)), 1u, 0u); });
        return kept;
    }

    /// counts[row] = the kept elements of the row, over all row tiles' rows.
    static FlagsKernel make_count_rows(const std::string& name, Pred keep) {
        return group_kernel<detail::kRowWorkgroup>(name + "_count_rows(in, counts, n)",
                                                   [keep](Array<T> in, Array<std::uint32_t> counts, Int n) {
            auto [first, end] = detail::row_of(group_id() * detail::kRowTile, n);
            counts.store(group_id() * detail::kRowWorkgroup + local_id(), kept_in_row(keep, in, first, end));
        });
    }

    /// Each row again: every invocation writes its row's kept elements from
    /// where the rows before end (ends[row - 1]); with `split` the others go
    /// after all kept ones.
    static MoveKernel make_compact_rows(const std::string& name, Pred keep, bool split) {
        return group_kernel<detail::kRowWorkgroup>(
            name + (split ? "_partition_rows" : "_compact_rows") + "(in, ends, out, count, n)",
            [keep, split](Array<T> in, Array<std::uint32_t> ends, Array<T> out, Array<std::uint32_t> count, Int n) {
                auto [first, end] = detail::row_of(group_id() * detail::kRowTile, n);
                Int row = group_id() * detail::kRowWorkgroup + local_id();
                UInt total = ends.load(num_groups() * detail::kRowWorkgroup - 1);
                Var<std::uint32_t> at = select(row > 0, ends.load(max(row - 1, 0)), 0u);
                For(first, end, [&](Int i) {
                    auto x = in.load(i);
                    auto kept = If(keep(x), [&] {
                        out.store(at, x);
                        at = at + 1u;
                    });
                    if (split) kept.Else([&] { out.store(total + (cast<std::uint32_t>(i) - at), x); });
                });
                If(group_id() == 0 && local_id() == 0, [&] { count.store(0, total); });
            });
    }

    // --- The fused path: tiles of wg invocations of items elements each ---
    static constexpr ScanTile kDefaultTile{128, 8};  // H100 measurements, docs/PERFORMANCE.md#compaction
    static constexpr ScanTile kDefaultSinglePassTile{128, 16};  // the fastest on the H100 at 2^24 and 2^28

    /// counts[tile] = the kept elements of the tile (striped, coalesced loads).
    static FlagsKernel make_count_tiles(int wg, int items, const std::string& name, Pred keep) {
        const std::int32_t tile_size = wg * items;
        return group_kernel(wg, name + "_count_tiles(in, counts, n)",
                            [keep, wg, items, tile_size](Array<T> in, Array<std::uint32_t> counts, Int n) {
            Int base = group_id() * tile_size;
            Var<std::uint32_t> kept = 0u;
            for (int j = 0; j < items; ++j) {
                Int i = base + j * wg + local_id();
                auto x = in.load(i);
                kept = kept + select(i < n && keep(x), 1u, 0u);
            }
            auto [unused, total] = detail::workgroup_exclusive<std::uint32_t>(wg, ScanOp::Add, kept, 0u);
            (void)unused;
            If(local_id() == 0, [&] { counts.store(group_id(), total); });
        });
    }

    /// A tile's elements (striped: coalesced loads), their flags, and for each
    /// invocation's row of the transposed flags the kept ones before each of
    /// its elements within the row (before[items]: the row's kept count).
    struct TileFlags {
        std::vector<Var<T>> x;
        std::vector<Var<std::uint32_t>> flag, before;
    };

    /// Loads the tile from `base` and scans its flags per row through
    /// `places`, whose rows every invocation has read when it returns (the
    /// rows may be overwritten after one more barrier).
    static TileFlags load_tile_flags(int wg, int items, const Pred& keep, const Array<T>& in, const Int& base, const Int& n,
                                                  const Shared<std::uint32_t>& places) {
        using detail::padded;
        TileFlags f;
        Int lid = local_id();
        for (int j = 0; j < items; ++j) {
            Int i = base + j * wg + lid;
            f.x.emplace_back(in.load(i));
            f.flag.emplace_back(select(i < n && keep(f.x[j]), 1u, 0u));
            places.store(padded(j * wg + lid), f.flag[j]);
        }
        barrier();
        Int row = lid * items;
        f.before.emplace_back(Expr<std::uint32_t>(0u));
        for (int j = 1; j <= items; ++j) f.before.emplace_back(f.before[j - 1] + places.load(padded(row + j - 1)));
        return f;
    }

    /// Every invocation's row start (`row_start`: the kept elements before the
    /// row in the whole stream) makes its elements' places through `places`,
    /// and each kept element is written there; with `split` the others go
    /// after all `total` kept ones. Every invocation must have read its row.
    static void write_tile(int wg, int items, const TileFlags& f, const Expr<std::uint32_t>& row_start, const Array<T>& out,
                           const Int& base, const Int& n, const Shared<std::uint32_t>& places, bool split,
                           const Expr<std::uint32_t>& total) {
        using detail::padded;
        Int lid = local_id();
        for (int j = 0; j < items; ++j) places.store(padded(lid * items + j), row_start + f.before[j]);
        barrier();
        for (int j = 0; j < items; ++j) {
            Int i = base + j * wg + lid;
            UInt at = places.load(padded(j * wg + lid));
            If(f.flag[j] != 0u, [&] { out.store(at, f.x[j]); });
            if (split) If(f.flag[j] == 0u && i < n, [&] { out.store(total + (cast<std::uint32_t>(i) - at), f.x[j]); });
        }
    }

    /// In the second of two passes: where tile group_id() starts (the kept ones
    /// of the tiles before it, ends[tile - 1], the inclusive scan of the
    /// counts) and the kept total.
    static std::pair<Expr<std::uint32_t>, Expr<std::uint32_t>> tile_start_and_total(std::int32_t tile_size,
                                                                                   const Array<std::uint32_t>& ends,
                                                                                   const Int& n) {
        Int tiles = (n + (tile_size - 1)) / tile_size;
        return {select(group_id() > 0, ends.load(max(group_id() - 1, 0)), 0u), ends.load(tiles - 1)};
    }

    /// Each tile again: its flags scanned in shared memory (transposed, so
    /// that every invocation scans 16 consecutive flags), each kept element
    /// written at the tile's start (ends[tile - 1], the inclusive scan of the
    /// counts) plus its place in the tile; with `split` the others go after
    /// all kept ones. The first invocation writes the count.
    static MoveKernel make_compact_tiles(int wg, int items, const std::string& name, Pred keep, bool split) {
        const std::int32_t tile_size = wg * items;
        return group_kernel(wg, name + (split ? "_partition_tiles" : "_compact_tiles") + "(in, ends, out, count, n)",
                                 [keep, split, wg, items, tile_size](Array<T> in, Array<std::uint32_t> ends, Array<T> out,
                                               Array<std::uint32_t> count, Int n) {
            Int base = group_id() * tile_size;
            Shared<std::uint32_t> places(detail::padded_size(tile_size));
            const TileFlags f = load_tile_flags(wg, items, keep, in, base, n, places);
            // Its barriers come after every row was read: the rows may be overwritten.
            auto [row_start, unused] = detail::workgroup_exclusive<std::uint32_t>(wg, ScanOp::Add, f.before[items], 0u);
            (void)unused;
            auto [tile_start, total] = tile_start_and_total(tile_size, ends, n);
            write_tile(wg, items, f, tile_start + row_start, out, base, n, places, split, total);
            If(group_id() == 0 && local_id() == 0, [&] { count.store(0, total); });
        });
    }

    /// The kept elements of tile `tile` (tile_size elements from tile * tile_size, those
    /// below n), counted by the calling subgroup, each lane getting the count:
    /// the look-back's fallback for a tile that has not published its count.
    static Expr<std::uint32_t> count_kept(int wg, std::int32_t tile_size, const Pred& keep, const Array<T>& in, const Int& tile,
                                          const Int& n) {
        Int S = min(subgroup_size(), Int(wg));
        Int base = tile * tile_size;
        Var<std::uint32_t> kept = 0u;
        For(0, (tile_size + S - 1) / S, [&](Int r) {
            Int i = base + r * S + subgroup_invocation();
            If(i < min(base + tile_size, n), [&] { kept = kept + select(keep(in.load(i)), 1u, 0u); });
        });
        return subgroup_add(Expr<std::uint32_t>(kept));
    }

    /// The single pass (ScanAlgorithm::SinglePass): each tile reads its input
    /// once, and its start comes from the tiles before it by the look-back
    /// (detail/look_back.h) instead of a first pass of counts; the last tile
    /// writes the count. `state`: look_back::count_state_words(tiles), zero.
    /// Tiles are numbered by group_id: the look-back counts a tile that has
    /// not published itself when it has waited long enough (count_before).
    static MoveKernel make_compact_single_pass(int wg, int items, const std::string& name, Pred keep) {
        const std::int32_t tile_size = wg * items;
        return group_kernel(wg, name + "_compact_single_pass(in, state, out, count, n)",
                                 [keep, wg, items, tile_size](Array<T> in, Array<std::uint32_t> state, Array<T> out,
                                                              Array<std::uint32_t> count, Int n) {
            Int t = group_id();
            Int base = t * tile_size;
            Shared<std::uint32_t> places(detail::padded_size(tile_size));
            const TileFlags f = load_tile_flags(wg, items, keep, in, base, n, places);
            detail::look_back::count_tile(wg, state, t, f.before[items], [&](const Expr<std::uint32_t>& row_start) {
                write_tile(wg, items, f, row_start, out, base, n, places, false, Expr<std::uint32_t>(0u));
                If(t == num_groups() - 1 && local_id() == wg - 1, [&] { count.store(0, row_start + f.before[items]); });
            }, [&](const Int& tile) { return count_kept(wg, tile_size, keep, in, tile, n); });
        });
    }

    // --- Tiles of vectors (TileLoad::Vectors; one-word elements) ---
    // The fastest on the H100 through Vulkan (both passes) and OpenGL (two passes).
    static constexpr ScanTile kDefaultVectorTile{256, 8, TileLoad::Vectors};

    /// An invocation's part of a tile of vectors, as the scan's
    /// (algorithms/src/scan.cpp): subgroup w takes items / 4 rows of S vectors
    /// of 4 in turn, one vector per invocation a row. Per vector: its elements,
    /// their flags, and the kept ones before it in the subgroup's rows;
    /// `total`: the subgroup's kept ones.
    struct VectorFlags {
        std::vector<Int> at;
        std::vector<Var<vec<T, 4>>> x;
        std::vector<Var<std::uint32_t>> flags;  // bit c: element c is kept
        std::vector<Var<std::uint32_t>> before;
        Var<std::uint32_t> total;
    };

    /// Loads the invocation's vectors (all loads first) and scans their flags
    /// over the subgroup's rows. With `staged`, each vector is staged as soon
    /// as its place is known (stage_vector), so that the tile is not held in
    /// registers until the subgroup's total is known.
    static VectorFlags load_vector_flags(int wg, int items, const Pred& keep, const Array<T>& in, const Int& tile, const Int& n,
                                         const Shared<T>* staged = nullptr) {
        const int V = items / 4;
        Int S = min(subgroup_size(), Int(wg));
        Int lane = subgroup_invocation();
        Int first = tile * (wg * V) + (local_id() / S) * (S * V) + lane;
        VectorFlags f;
        for (int j = 0; j < V; ++j) f.at.push_back(first + j * S);
        for (int j = 0; j < V; ++j) f.x.emplace_back(in.template load_vector<4>(f.at[j]));  // all loads first
        f.total = 0u;
        for (int j = 0; j < V; ++j) {
            Int e = f.at[j] * 4;
            auto bit = [&](int c, const Expr<T>& v) { return select(e + c < n && keep(v), 1u << c, 0u); };
            f.flags.emplace_back(bit(0, f.x[j].x()) | bit(1, f.x[j].y()) | bit(2, f.x[j].z()) | bit(3, f.x[j].w()));
            UInt kept = cast<std::uint32_t>(bit_count(f.flags[j]));
            UInt row = subgroup_inclusive_add(kept);
            f.before.emplace_back(f.total + row - kept);
            if (staged) stage_vector(wg, items, f, j, tile * (wg * items), *staged);
            f.total = f.total + subgroup_shuffle(row, S - 1);
        }
        return f;
    }

    /// The subgroup's kept ones at its last invocation, zero elsewhere.
    static Expr<std::uint32_t> kept_at_last(int wg, const VectorFlags& f) {
        return select(subgroup_invocation() == min(subgroup_size(), Int(wg)) - 1, Expr<std::uint32_t>(f.total), Expr<std::uint32_t>(0u));
    }

    /// Where the subgroup's rows are in its tile of wg x items elements: the
    /// first element, and how many (S x items). Each subgroup keeps its part
    /// of `staged` there.
    static std::pair<Int, Int> subgroup_part(int wg, int items) {
        Int S = min(subgroup_size(), Int(wg));
        return {(local_id() / S) * (S * items), S * items};
    }

    /// Stages vector j in the subgroup's part of `staged`: its kept elements
    /// in order from the front, its others in reverse order from the back
    /// (the q-th other of the part at size - 1 - q; past n too, last): every
    /// element is stored, without a branch, which measured faster than
    /// storing only the kept ones, and no place depends on the subgroup's
    /// total. Each subgroup stages and writes only its own rows; a barrier
    /// must pass before they are written.
    static void stage_vector(int wg, int items, const VectorFlags& f, std::size_t j, const Int& tile_base,
                             const Shared<T>& staged) {
        auto [part, size] = subgroup_part(wg, items);
        Var<std::uint32_t> at = f.before[j];  // kept ones of the part before the element
        for (int c = 0; c < 4; ++c) {
            Expr<T> v = c == 0 ? f.x[j].x() : c == 1 ? f.x[j].y() : c == 2 ? f.x[j].z() : f.x[j].w();
            UInt bit = (f.flags[j] >> static_cast<std::uint32_t>(c)) & 1u;
            Int others_before = f.at[j] * 4 + c - tile_base - part - cast<std::int32_t>(at);
            staged.store(part + select(bit != 0u, cast<std::int32_t>(at), size - 1 - others_before), v);
            at = at + bit;
        }
    }

    /// Writes the subgroup's staged part, consecutive invocations on
    /// consecutive places: its kept elements from `start` on (the kept ones
    /// before them in the whole stream); with `split`, the others after all
    /// `total` kept ones.
    static void write_staged(int wg, int items, const VectorFlags& f, const Shared<T>& staged, const Expr<std::uint32_t>& start,
                             const Array<T>& out, const Int& tile_base, const Int& n, bool split,
                             const Expr<std::uint32_t>& total) {
        auto [part, size] = subgroup_part(wg, items);
        Int S = min(subgroup_size(), Int(wg));
        Int valid = clamp(n - (tile_base + part), 0, size);
        for (int k = 0; k < items; ++k) {
            Int p = k * S + subgroup_invocation();
            UInt place = cast<std::uint32_t>(p);
            auto kept = If(place < f.total, [&] { out.store(start + place, staged.load(part + p)); });
            if (split) kept.Else([&] {
                // The others before the part: its first element's index less the kept ones before it.
                UInt others_before = cast<std::uint32_t>(tile_base + part) - start;
                UInt q = place - f.total;  // the part's q-th other, staged in reverse from the back
                If(p < valid, [&] { out.store(total + others_before + q, staged.load(part + size - 1 - cast<std::int32_t>(q))); });
            });
        }
    }

    /// counts[tile] = the kept elements of the tile of vectors.
    static FlagsKernel make_count_vector_tiles(int wg, int items, const std::string& name, Pred keep) {
        return group_kernel(wg, name + "_count_vector_tiles(in, counts, n)",
                            [keep, wg, items](Array<T> in, Array<std::uint32_t> counts, Int n) {
            const VectorFlags f = load_vector_flags(wg, items, keep, in, group_id(), n);
            auto [unused, total] = detail::workgroup_exclusive<std::uint32_t>(wg, ScanOp::Add, kept_at_last(wg, f), 0u);
            (void)unused;
            If(local_id() == 0, [&] { counts.store(group_id(), total); });
        });
    }

    /// Each tile of vectors again: its kept elements (with `split`, then the
    /// others) staged in shared memory in order, then written from
    /// ends[tile - 1] on (the inclusive scan of the counts) with coalesced
    /// stores; the first invocation writes the count.
    static MoveKernel make_compact_vector_tiles(int wg, int items, const std::string& name, Pred keep, bool split) {
        const std::int32_t tile_size = wg * items;
        return group_kernel(wg, name + (split ? "_partition_vector_tiles" : "_compact_vector_tiles") + "(in, ends, out, count, n)",
                                 [keep, split, wg, items, tile_size](Array<T> in, Array<std::uint32_t> ends, Array<T> out,
                                               Array<std::uint32_t> count, Int n) {
            Int tile_base = group_id() * tile_size;
            Shared<T> staged(tile_size, dsl::Unchecked{});  // places within the subgroups' parts
            const VectorFlags f = load_vector_flags(wg, items, keep, in, group_id(), n, &staged);
            // Its barriers let every subgroup read what it staged.
            auto [before, unused] = detail::workgroup_exclusive<std::uint32_t>(wg, ScanOp::Add, kept_at_last(wg, f), 0u);
            (void)unused;
            auto [tile_start, total] = tile_start_and_total(tile_size, ends, n);
            write_staged(wg, items, f, staged, tile_start + before, out, tile_base, n, split, total);
            If(group_id() == 0 && local_id() == 0, [&] { count.store(0, total); });
        });
    }

    /// The single pass over tiles of vectors: staged as in two passes, the
    /// tile's start from the look-back meanwhile; the last tile writes the
    /// count. `state`: look_back::count_state_words(tiles), zero. Tiles by
    /// group_id, as make_compact_single_pass's.
    static MoveKernel make_compact_vector_single_pass(int wg, int items, const std::string& name, Pred keep) {
        const std::int32_t tile_size = wg * items;
        return group_kernel(wg, name + "_compact_vector_single_pass(in, state, out, count, n)",
                                 [keep, wg, items, tile_size](Array<T> in, Array<std::uint32_t> state, Array<T> out,
                                                              Array<std::uint32_t> count, Int n) {
            Int t = group_id();
            Int tile_base = t * tile_size;
            Shared<T> staged(tile_size, dsl::Unchecked{});  // places within the subgroups' parts
            const VectorFlags f = load_vector_flags(wg, items, keep, in, t, n, &staged);
            auto [before, kept] = detail::workgroup_exclusive<std::uint32_t>(wg, ScanOp::Add, kept_at_last(wg, f), 0u);
            // It ends with a barrier: every part is staged.
            Expr<std::uint32_t> start = detail::look_back::tile_count_prefix(
                wg, state, t, kept, [&](const Int& tile) { return count_kept(wg, tile_size, keep, in, tile, n); });
            write_staged(wg, items, f, staged, start + before, out, tile_base, n, false, Expr<std::uint32_t>(0u));
            If(t == num_groups() - 1 && local_id() == 0, [&] { count.store(0, start + kept); });
        });
    }

    // --- Tiles ranked by ballots (TileLoad::Ballots, detail/ballot_rank.h) ---
    // The fastest on the H100 through Vulkan and OpenGL.
    static constexpr ScanTile kDefaultBallotTile{128, 16, TileLoad::Ballots};

    /// The single pass over tiles whose subgroups rank their elements by
    /// ballots: subgroup w takes items rows of S consecutive elements, one a
    /// lane (coalesced loads), and a kept element's place among its
    /// subgroup's kept ones is those of the rows before plus those of the
    /// lanes below it in its row (one ballot a row). After the look-back each
    /// kept element is written from registers: a row's kept ones go to
    /// consecutive places, so the stores stay coalesced without staging the
    /// tile in shared memory, which limits how many workgroups an SM holds
    /// (through NVIDIA's Vulkan driver about 48 KB per SM in all).
    /// Tiles by group_id, as make_compact_single_pass's.
    static MoveKernel make_compact_ballot_single_pass(int wg, int items, const std::string& name, Pred keep, detail::BallotSubgroup sub) {
        const std::int32_t tile_size = wg * items;
        return group_kernel(wg, 
            name + "_compact_ballot_single_pass(in, state, out, count, n)", detail::ballot_options(sub),
            [keep, wg, items, tile_size, S = std::min(sub.size, wg)](Array<T> in, Array<std::uint32_t> state, Array<T> out, Array<std::uint32_t> count,
                                                Int n) {
                const int subgroups = wg / S;
                Int t = group_id();
                Int lane = subgroup_invocation();
                Int sg = local_id() / S;
                Int first = t * tile_size + sg * (S * items) + lane;
                std::vector<Var<T>> x;
                for (int j = 0; j < items; ++j) x.emplace_back(in.load(first + j * S));  // all loads first
                Var<std::uint32_t> kept = 0u;  // the subgroup's so far, the same in every lane
                std::vector<Var<std::uint32_t>> place;  // among the subgroup's kept ones; kNotKept if not kept
                for (int j = 0; j < items; ++j) {
                    Bool k = first + j * S < n && keep(x[j]);
                    const detail::BallotRank r = detail::ballot_rank(S, k);
                    place.emplace_back(select(k, kept + r.below, kNotKept));
                    kept = kept + r.count;
                }
                // The subgroups' counts: each invocation sums those before its subgroup, and all.
                Shared<std::uint32_t> counts(subgroups, dsl::Unchecked{});
                If(lane == 0, [&] { counts.store(sg, kept); });
                barrier();
                Var<std::uint32_t> before = 0u;
                Var<std::uint32_t> total = 0u;
                for (int s = 0; s < subgroups; ++s) {
                    UInt c = counts.load(s);
                    before = before + select(s < sg, c, 0u);
                    total = total + c;
                }
                Expr<std::uint32_t> start = detail::look_back::tile_count_prefix(
                    wg, state, t, total, [&](const Int& tile) { return count_kept(wg, tile_size, keep, in, tile, n); });
                Var<std::uint32_t> from = start + before;
                for (int j = 0; j < items; ++j) If(place[j] != kNotKept, [&] { out.store(from + place[j], x[j]); });
                If(t == num_groups() - 1 && local_id() == 0, [&] { count.store(0, start + total); });
            });
    }
    static constexpr std::uint32_t kNotKept = 0xffffffffu;

    void compact_ballot_single_pass(int wg, int items, const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count,
                                    detail::BallotSubgroup sub) const {
        run_single_pass(in, out, count, wg * items, move_kernel(kBallotSinglePass, wg, items, sub, [&] {
                            return make_compact_ballot_single_pass(wg, items, state_->name, state_->keep, sub);
                        }));
    }

    void compact_vector_tiles(int wg, int items, const Stream<T>& in, const Stream<T>& out, const Stream<std::uint32_t>& count, bool split) const {
        compact_in_tiles(in, out, count, wg * items, 1,
                         flags_kernel(kCountVectorTiles, wg, items,
                                      [&] { return make_count_vector_tiles(wg, items, state_->name, state_->keep); }),
                         move_kernel(split ? kPartitionVectorTiles : kCompactVectorTiles, wg, items,
                                     [&] { return make_compact_vector_tiles(wg, items, state_->name, state_->keep, split); }));
    }

    using IotaKernel = decltype(group_kernel<256>("", [](Array<std::uint32_t>, Int) {}));
    static const IotaKernel& iota() {
        static const IotaKernel k = group_kernel<256>("compact_iota(index, n)", [](Array<std::uint32_t> index, Int n) {
            Int i = global_id();
            If(i < n, [&] { index.store(i, cast<std::uint32_t>(i)); });
        });
        return k;
    }

    // Which kernel: the key of the caches, with the tile's shape (0 for untiled ones).
    enum Which { kFlags, kScatter, kSplit, kSearch, kSearchSplit, kSortGather, kSortGatherSplit, kCountTiles,
                 kCompactTiles, kPartitionTiles, kCountRows, kCompactRows, kPartitionRows, kSinglePass, kVectorSinglePass, kCountVectorTiles,
                 kCompactVectorTiles, kPartitionVectorTiles, kBallotSinglePass };
    using Key = std::tuple<int, int, int, detail::BallotSubgroup>;  // which, workgroup, items, ballots' subgroup

    struct State {
        State(std::string n, Pred p) : name(std::move(n)), keep(std::move(p)) {}
        std::string name;
        Pred keep;
        std::mutex mutex;
        std::map<Key, FlagsKernel> flags;
        std::map<Key, MoveKernel> moves;
        std::map<Key, SortGatherKernel> sort_gathers;
    };

    template <class K, class Make>
    const K& cached(std::map<Key, K>& cache, Key key, Make make) const {
        std::lock_guard lock(state_->mutex);
        auto it = cache.find(key);
        if (it == cache.end()) it = cache.emplace(key, make()).first;
        return it->second;  // map entries never move
    }
    template <class Make>
    const FlagsKernel& flags_kernel(Which w, int wg, int items, Make make) const {
        return cached(state_->flags, Key{w, wg, items, {}}, make);
    }
    template <class Make>
    const MoveKernel& move_kernel(Which w, int wg, int items, Make make) const {
        return cached(state_->moves, Key{w, wg, items, {}}, make);
    }
    template <class Make>
    const MoveKernel& move_kernel(Which w, int wg, int items, detail::BallotSubgroup sub, Make make) const {
        return cached(state_->moves, Key{w, wg, items, sub}, make);
    }
    template <class Make>
    const SortGatherKernel& sort_gather_kernel(Which w, Make make) const {
        return cached(state_->sort_gathers, Key{w, 0, 0, {}}, make);
    }

    std::shared_ptr<State> state_;
};

}  // namespace rill
