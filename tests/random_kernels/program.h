// Random DSL kernels: a small typed program (expressions, variables, control
// flow) that is generated from a seed, traced into a rill kernel through the
// public DSL, printed as the C++ a user would write, and evaluated on the host
// by an interpreter that is independent of rill (interval arithmetic in
// float64, exact 32-bit integers).
//
// Every kernel has the same parameters, so that one traced signature serves
// them all; a program reads whichever it likes:
//
//   fa, fb    In<float>          ia   In<int32_t>     ua  In<uint32_t>
//   va        In<float4>         p    In<RkPoint> (pos float3, mass float, id int32)
//   g         Gather<float>      gi   Gather<int32_t, 2>     k  Float (constant)
//   rf ri ru rv   Out<float>, Out<int32_t>, Out<uint32_t>, Out<float4>
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <rill/rill.h>

struct RkPoint {
    rill::float3 pos;
    float mass;
    std::int32_t id;
};
RILL_STRUCT(RkPoint, pos, mass, id);

namespace rill::random_kernels {

/// Value types of the programs: the scalars, float vectors and int2.
enum class Ty : std::uint8_t { F, F2, F3, F4, I, I2, U, B };
int width(Ty t);
bool is_float(Ty t);
bool is_int(Ty t);  // int or uint, scalar or vector
Ty scalar_of(Ty t);
Ty float_of_width(int w);
const char* dsl_type(Ty t);  // "Float3", "Int", ...
const char* host_type(Ty t);  // "float3", "std::int32_t", ...

enum class Op : std::uint8_t {
    // leaves
    Const, Input, Uniform, VarRef, IndexOf, GatherF, GatherI2,
    // element-wise on floats
    Neg, Abs, Sign, Floor, Ceil, Round, Trunc, Fract, Sqrt, InverseSqrt, Exp, Exp2, Log, Log2, Sin, Cos, Tan, Asin,
    Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh,
    Add, Sub, Mul, Div, Rem, Min, Max, Mod, Pow, Atan2, Step,
    // integers
    BitAnd, BitOr, BitXor, Shl, Shr, BitNot, BitCount, FindLsb, FindMsb, BitReverse, BitExtract,
    // three operands
    Clamp, Mix, Fma, Smoothstep, Select,
    // to bool
    Lt, Le, Gt, Ge, Eq, Ne, And, Or, Not,
    // conversions
    Cast, FloatBitsToInt, FloatBitsToUint, IntBitsToFloat, UintBitsToFloat,
    // vectors
    Swizzle, Construct, Dot, Length, Distance, Normalize, Cross,
};
const char* op_name(Op op);

/// Inputs that a program reads per element (Op::Input's `aux`).
enum Input : int { kFa, kFb, kIa, kUa, kVa, kPos, kMass, kId, kInputCount };
/// Outputs (Stmt::Out's `out`).
enum Output : int { kRf, kRi, kRu, kRv, kOutputCount };
Ty input_type(int input);
Ty output_type(int output);

struct Node {
    Op op = Op::Const;
    Ty ty = Ty::F;
    std::vector<int> kids;
    double f[4] = {0, 0, 0, 0};       // float constants (float values held exactly)
    std::int64_t i[4] = {0, 0, 0, 0};  // int / uint / bool constants
    int aux = 0;  // input, variable, swizzle pattern, or (Cast) nothing: the kid's type is the source
};

struct Stmt {
    enum Kind : std::uint8_t { Decl, Assign, AddAssign, Out, If, For, While, Break, Continue, Return } kind = Decl;
    int var = -1;    // Decl / Assign / AddAssign / For (its index) / While (its guard counter)
    int expr = -1;   // value; If / While condition; For end
    int out = -1;    // Out
    int begin = 0;   // For: constant start
    int step = 1;    // For: constant step; While: the guard's bound
    // While(guard < step && cond) { guard += 1; body }: the guard is declared
    // (as 0) by the Decl before the While, and bounds every While.
    std::vector<Stmt> body, orelse;
};

/// Plain variables are Vars the program assigns; a For's index is an Expr in the
/// DSL; a While's guard is a Var that only the loop itself counts up.
enum class VarKind : std::uint8_t { Plain, ForIndex, WhileGuard };

struct Program {
    std::vector<Node> nodes;
    std::vector<Ty> vars;
    std::vector<VarKind> var_kind;
    std::vector<Stmt> body;

    int add(Node n) {
        nodes.push_back(std::move(n));
        return static_cast<int>(nodes.size()) - 1;
    }
    int statement_count() const;
};

/// The streams a program runs on.
struct Inputs {
    std::int64_t n = 0;
    std::vector<float> fa, fb;
    std::vector<std::int32_t> ia;
    std::vector<std::uint32_t> ua;
    std::vector<float4> va;
    std::vector<RkPoint> p;
    std::vector<float> g;            // gathered, size >= 1
    std::int64_t gh = 1, gw = 1;     // gi's shape
    std::vector<std::int32_t> gi;
    float k = 0;
};

/// A program of a few statements from `seed` (the same seed gives the same program).
Program generate(std::uint64_t seed);
Inputs generate_inputs(std::uint64_t seed, std::int64_t n);

/// One output lane as the interpreter knows it: floats as an interval that
/// contains every result a backend keeping docs/SEMANTICS.md may give, ints
/// exactly; `known` is false where the semantics leave the value open (cast of
/// an out-of-range float, division by zero, an overflowing float ...).
struct Lane {
    double lo = 0, hi = 0;
    std::int64_t i = 0;
    bool known = true;
};
struct ElementResult {
    bool determined = true;  // false: control flow hung on an open value; the element is not compared
    Lane out[kOutputCount][4];
};
std::vector<ElementResult> interpret(const Program& prog, const Inputs& in);

/// The program as C++ DSL source: the kernel a user would write.
std::string print(const Program& prog);
/// Element `e`'s inputs, as C++ initializers.
std::string print_inputs(const Inputs& in, std::int64_t e);

/// What a backend computed.
struct Outputs {
    std::vector<float> rf;
    std::vector<std::int32_t> ri;
    std::vector<std::uint32_t> ru;
    std::vector<float4> rv;
};
/// Traces the program into a kernel (through rill's DSL) and runs it on `rt`.
Outputs run(const Program& prog, const Inputs& in, Runtime& rt);

struct Mismatch {
    std::int64_t element = -1;
    std::string what;  // "rf = 3.5, want [1, 1.0001]"
};
/// The first mismatches (at most `limit`) of a backend's outputs against the interpreter.
std::vector<Mismatch> compare(const std::vector<ElementResult>& want, const Outputs& got, int limit = 3);
/// Reductions (sum, min, max, to one value and along rows) of a backend's own
/// outputs, on the same backend, against float64 host sums of those outputs.
std::vector<Mismatch> check_reductions(const Outputs& got, Runtime& rt);

struct Report {
    int kernels = 0, elements = 0, undetermined = 0, failed = 0;
    std::vector<std::string> failures;  // shrunk programs, printed, with their inputs
};
/// Generates `count` programs from seeds `first_seed ...` and checks each on `rt`
/// (`elements` per kernel, or sizes from 1 to 1000 by seed when 0). The first
/// `shrunk` failing programs are shrunk, every failure is printed into the
/// report and passed to `on_failure` as it is found.
Report check_seeds(Runtime& rt, std::uint64_t first_seed, int count, std::int64_t elements, int shrunk = 5,
                   const std::function<void(const std::string&)>& on_failure = {});

}  // namespace rill::random_kernels
