// IR value types: a scalar kind and a width of 1 to 4 lanes. Structs do not
// exist in the IR: the DSL flattens them into their scalar/vector fields, each
// addressed by its word offset inside the element, which is what lets every
// backend read the tight C++ layout directly.
#pragma once

#include <cstdint>
#include <string>

#include "rill/core/ir_kinds.h"
#include "rill/core/vector_types.h"

namespace rill {

struct Type {
    Scalar scalar = Scalar::Float;
    std::uint8_t width = 1;  // 1..4

    constexpr bool is_float() const { return scalar == Scalar::Float; }
    constexpr bool is_bool() const { return scalar == Scalar::Bool; }
    constexpr bool is_integer() const { return scalar == Scalar::Int || scalar == Scalar::Uint; }
    constexpr Type with_width(int w) const { return Type{scalar, static_cast<std::uint8_t>(w)}; }
    constexpr Type element() const { return Type{scalar, 1}; }
    friend constexpr bool operator==(Type, Type) = default;
};

std::string to_string(Scalar s);
/// "float", "int3", "bool2", ... (the rill host type name).
std::string to_string(Type t);

// --- mapping from host C++ scalar/vector types to IR types -----------------

template <class T>
struct ir_type_of;  // undefined for types that are not rill scalars/vectors

template <> struct ir_type_of<float> { static constexpr Type value{Scalar::Float, 1}; };
template <> struct ir_type_of<std::int32_t> { static constexpr Type value{Scalar::Int, 1}; };
template <> struct ir_type_of<std::uint32_t> { static constexpr Type value{Scalar::Uint, 1}; };
template <> struct ir_type_of<bool> { static constexpr Type value{Scalar::Bool, 1}; };
template <> struct ir_type_of<bool32> { static constexpr Type value{Scalar::Bool, 1}; };
template <class S, int N>
struct ir_type_of<vec<S, N>> {
    static constexpr Type value{ir_type_of<S>::value.scalar, static_cast<std::uint8_t>(N)};
};

template <class T>
concept IrValueType = requires { ir_type_of<T>::value; };

}  // namespace rill
