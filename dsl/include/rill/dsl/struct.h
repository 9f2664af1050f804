// User structs as stream elements and kernel values.
//
//   struct Ray { rill::float3 o, d; float tmax; };
//   RILL_STRUCT(Ray, o, d, tmax);        // at global scope, after the struct
//
// The macro reflects the struct with Boost.Hana (checking that it has no
// padding, so that its C++ layout is the stream layout on every backend) and
// declares rill::Var<Ray>, whose members are DSL variables of the same names:
// inside a kernel `ray.o` is a Var<float3>, `ray.o.x()` its x component.
#pragma once

#include <boost/hana.hpp>
#include <boost/preprocessor/seq/enum.hpp>
#include <boost/preprocessor/seq/for_each.hpp>
#include <boost/preprocessor/seq/transform.hpp>
#include <boost/preprocessor/variadic/to_seq.hpp>
#include <functional>

#include "rill/core/element.h"
#include "rill/dsl/value.h"

namespace rill::dsl {

/// The DSL type for a stream element type (bool32 reads as bool).
template <class T>
using dsl_t = std::conditional_t<std::is_same_v<T, bool32>, bool, T>;

/// Calls f(leaf_var, word_offset) for every scalar/vector field of v, in layout order.
template <class T, class F>
void for_each_leaf(Var<T>& v, F&& f, std::uint32_t& word) {
    if constexpr (IrValueType<T>) {
        f(v, word);
        word += ir_type_of<T>::value.width;
    } else {
        v.for_each_field([&](auto& member) { for_each_leaf(member, f, word); });
    }
}
template <class T, class F>
void for_each_leaf(Var<T>& v, F&& f) {
    std::uint32_t word = 0;
    for_each_leaf(v, f, word);
}

/// Sum of the sizes of a reflected struct's members (== sizeof when unpadded).
template <class S>
constexpr std::size_t member_bytes() {
    std::size_t n = 0;
    boost::hana::for_each(boost::hana::accessors<S>(), [&](auto pair) {
        using M = std::remove_cvref_t<decltype(boost::hana::second(pair)(std::declval<S&>()))>;
        n += sizeof(M);
    });
    return n;
}

}  // namespace rill::dsl

#define RILL_DETAIL_MEMBER(r, S, field) ::rill::Var<::rill::dsl::dsl_t<decltype(S::field)>> field;
#define RILL_DETAIL_FROM_SOURCE(s, src, field) field(src)
#define RILL_DETAIL_ALIAS(s, other, field) field(::rill::dsl::AliasTag{}, other.field)
#define RILL_DETAIL_COPY(s, other, field) field(other.field)
#define RILL_DETAIL_ASSIGN(r, other, field) field = other.field;
#define RILL_DETAIL_VISIT(r, f, field) f(field);
#define RILL_DETAIL_SEQ(...) BOOST_PP_VARIADIC_TO_SEQ(__VA_ARGS__)

#define RILL_STRUCT(S, ...)                                                                         \
    BOOST_HANA_ADAPT_STRUCT(S, __VA_ARGS__);                                                        \
    template <>                                                                                     \
    struct rill::is_user_struct<S> : std::true_type {};                                             \
    template <>                                                                                     \
    struct rill::element_name<S> {                                                                  \
        static std::string get() { return #S; }                                                     \
    };                                                                                              \
    static_assert(::rill::dsl::member_bytes<S>() == sizeof(S),                                      \
                  "RILL_STRUCT(" #S "): the struct has padding or members that are not listed; "   \
                  "list every member, and use only 4-byte scalars, rill vectors and RILL_STRUCTs"); \
    template <>                                                                                     \
    class rill::Var<S> {                                                                            \
    public:                                                                                         \
        using host_type = S;                                                                        \
        BOOST_PP_SEQ_FOR_EACH(RILL_DETAIL_MEMBER, S, RILL_DETAIL_SEQ(__VA_ARGS__))                  \
        explicit Var(const ::rill::dsl::LeafSource& src)                                            \
            : BOOST_PP_SEQ_ENUM(BOOST_PP_SEQ_TRANSFORM(RILL_DETAIL_FROM_SOURCE, src, RILL_DETAIL_SEQ(__VA_ARGS__))) {} \
        Var(::rill::dsl::AliasTag, Var& other)                                                      \
            : BOOST_PP_SEQ_ENUM(BOOST_PP_SEQ_TRANSFORM(RILL_DETAIL_ALIAS, other, RILL_DETAIL_SEQ(__VA_ARGS__))) {} \
        Var() : Var(::rill::dsl::zero_leaves()) {}                                                  \
        Var(const Var& other)                                                                       \
            : BOOST_PP_SEQ_ENUM(BOOST_PP_SEQ_TRANSFORM(RILL_DETAIL_COPY, other, RILL_DETAIL_SEQ(__VA_ARGS__))) {} \
        Var& operator=(const Var& other) {                                                          \
            BOOST_PP_SEQ_FOR_EACH(RILL_DETAIL_ASSIGN, other, RILL_DETAIL_SEQ(__VA_ARGS__))          \
            return *this;                                                                           \
        }                                                                                           \
        template <class F>                                                                          \
        void for_each_field(F&& f) {                                                                \
            BOOST_PP_SEQ_FOR_EACH(RILL_DETAIL_VISIT, f, RILL_DETAIL_SEQ(__VA_ARGS__))               \
        }                                                                                           \
    }
