#include "operands.h"

namespace rill::blas::detail {

namespace {

constexpr std::int64_t kMaxIndex = 0x7fffffff;

Stream<float> bound_extent(const char* who, const char* name, const Stream<float>& s, bool output) {
    if (s.is_iterator())
        throw Error(std::string(who) + ": " + name + " is an iterator stream, which has no storage; pass a stream from "
                    "Runtime::stream");
    for (int d = 0; d < s.shape().rank; ++d)
        if (output && !s.empty() && s.shape().dims[d] > 1 && s.strides()[d] == 0)
            throw Error(std::string(who) + ": " + name + " is a repeat view, whose elements appear several times; "
                        "write into a stream of its own");
    Stream<float> e = s.extent();
    if (e.size() > kMaxIndex)
        throw Error(std::string(who) + ": " + name + " spans " + std::to_string(e.size()) + " elements of its buffer; "
                    "rill's BLAS indexes with 32-bit ints, so split it into parts under 2^31 elements");
    return e;
}

}  // namespace

Vector vector_operand(const char* who, const char* name, const Stream<float>& s, bool output) {
    if (s.shape().rank != 1)
        throw Error(std::string(who) + ": " + name + " has shape " + s.shape().str() +
                    "; vectors are 1D streams (reshape it, e.g. to " + std::to_string(s.size()) + ")");
    Vector v;
    v.extent = bound_extent(who, name, s, output);
    v.n = static_cast<std::int32_t>(s.size());
    v.inc = static_cast<std::int32_t>(s.strides()[0]);
    return v;
}

Matrix matrix_operand(const char* who, const char* name, const Stream<float>& s, bool output) {
    if (s.shape().rank != 2)
        throw Error(std::string(who) + ": " + name + " has shape " + s.shape().str() +
                    "; matrices are 2D streams {rows, columns} (reshape it)");
    Matrix m;
    m.extent = bound_extent(who, name, s, output);
    m.rows = static_cast<std::int32_t>(s.shape()[0]);
    m.cols = static_cast<std::int32_t>(s.shape()[1]);
    m.row_stride = static_cast<std::int32_t>(s.strides()[0]);
    m.col_stride = static_cast<std::int32_t>(s.strides()[1]);
    return m;
}

void wrong_shape(const char* who, const char* name, const Shape& got, const std::string& expected, const std::string& why) {
    throw Error(std::string(who) + ": " + name + " has shape " + got.str() + " but " + why + "; pass " + name +
                " of shape " + expected);
}

}  // namespace rill::blas::detail
