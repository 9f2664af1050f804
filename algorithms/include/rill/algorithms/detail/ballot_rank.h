// Ranking by ballots: where a lane's element goes among those of its subgroup
// that hold a flag, from one ballot instead of a scan of shuffles. The
// subgroup's size is known when the kernel is traced (a device of one size, or
// one pinned by GroupOptions::subgroup_size), so a subgroup of up to 32 uses
// one word of the ballot.
#pragma once

#include <rill/core/backend.h>
#include <rill/dsl/group.h>

#include <utility>

namespace rill::detail {

/// The subgroup size a kernel ranking by ballots is traced for on this device,
/// and whether its pipelines must pin it (GroupOptions::subgroup_size); 0
/// where the device has no ballots and shuffles, or subgroups of fewer than 8
/// or more than 128.
struct BallotSubgroup {
    int size = 0;
    bool pin = false;
    bool operator<(const BallotSubgroup& o) const { return std::pair(size, pin) < std::pair(o.size, o.pin); }
};
inline BallotSubgroup ballot_subgroup(const DeviceLimits& limits) {
    const std::uint32_t needs = kSubgroupBallot | kSubgroupShuffle;
    const std::uint32_t S = limits.subgroup_size;
    if (S < 8 || S > 128 || (limits.subgroup_ops & needs) != needs) return {};
    if (S < limits.min_subgroup_size || S > limits.max_subgroup_size) return {};
    return {static_cast<int>(S), limits.min_subgroup_size != limits.max_subgroup_size};
}
inline GroupOptions ballot_options(BallotSubgroup s) {
    return GroupOptions{.subgroup_size = s.pin ? static_cast<std::uint32_t>(s.size) : 0u};
}

/// The lanes below the calling one, as the first word of a ballot: the
/// whole ballot in subgroups of up to 32.
inline Expr<std::uint32_t> lanes_below_word() { return (1u << cast<std::uint32_t>(subgroup_invocation())) - 1u; }

/// The lanes below the calling one, as a ballot (subgroups of up to 128).
inline Expr<uint4> lanes_below() {
    Int lane = subgroup_invocation();
    auto part = [&](int c) {  // lanes below this one among lanes 32 c .. 32 c + 31
        Int k = lane - 32 * c;
        return select(k <= 0, 0u, select(k >= 32, 0xffffffffu, (1u << cast<std::uint32_t>(clamp(k, 0, 31))) - 1u));
    };
    return Expr<uint4>(part(0), part(1), part(2), part(3));
}

/// Among the S lanes of the subgroup: how many lanes below the calling one
/// hold `b`, and how many hold it in all.
struct BallotRank {
    Expr<std::uint32_t> below, count;
};
inline BallotRank ballot_rank(int S, const Expr<bool>& b) {
    Expr<uint4> votes = subgroup_ballot(b);
    if (S <= 32) {
        UInt word = votes.x();
        return {cast<std::uint32_t>(bit_count(word & lanes_below_word())), cast<std::uint32_t>(bit_count(word))};
    }
    return {cast<std::uint32_t>(ballot_bit_count(votes & lanes_below())), cast<std::uint32_t>(ballot_bit_count(votes))};
}

}  // namespace rill::detail
