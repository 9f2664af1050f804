// What the runtime needs to know about a stream's element type T: its size in
// 32-bit words and a name for messages. Scalars and vectors are known here;
// RILL_STRUCT (dsl/struct.h) adds user structs.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "rill/core/types.h"

namespace rill {

template <class T>
struct element_name {
    static std::string get() { return to_string(ir_type_of<T>::value); }
};

template <class T>
struct is_user_struct : std::false_type {};

template <class T>
concept StreamElement = (IrValueType<T> || is_user_struct<T>::value) &&
                        std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0 &&
                        !std::is_same_v<T, bool>;

template <class T>
inline constexpr std::uint32_t element_words = static_cast<std::uint32_t>(sizeof(T) / 4);

}  // namespace rill
