// The checks that modules binding whole streams (stencils, Segment, the BVH)
// make of their arguments, with one wording for each.
#pragma once

#include <string>

#include <rill/rill.h>

namespace rill::detail {

/// Throws unless `s` ("the mask", "directions") is a dense stream: no
/// domain, stride, repeat or iterator view.
inline void require_dense(const std::string& who, const StreamBase& s, const std::string& name) {
    if (!s.contiguous() || s.is_iterator())
        throw Error(who + ": " + name + " is a view (domain, stride, repeat or iterator); give a dense stream (copy the view first)");
}

/// Throws unless `s` lives on the runtime of `owner` ("the image", "the tree").
inline void require_runtime_of(const std::string& who, const StreamBase& s, const std::string& name, const StreamBase& owner,
                               const std::string& owner_name) {
    if (s.runtime_state() != owner.runtime_state())
        throw Error(who + ": " + name + " belongs to another Runtime than " + owner_name + "; make it with " + owner_name +
                    "'s runtime");
}

}  // namespace rill::detail
