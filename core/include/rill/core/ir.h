// The rill IR: what a traced kernel body becomes, and what every backend consumes.
//
// Expressions are pure nodes in an arena, addressed by 32-bit ids and
// hash-consed at construction (one node per distinct computation), with
// constants folded. Mutable state lives in local variable slots; reading one
// yields a ReadVar node that is *defined* by a Def statement at the point of the
// read, so a value captured in a C++ variable keeps its meaning even after the
// variable it came from is reassigned. Statements are structured (If, Loop),
// which maps 1:1 onto GLSL and onto the masked lane executor of the CPU backend.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "rill/core/ir_kinds.h"
#include "rill/core/types.h"

namespace rill::ir {

using ExprId = std::uint32_t;
using StmtId = std::uint32_t;
using BlockId = std::uint32_t;
using VarId = std::uint32_t;
inline constexpr std::uint32_t kNone = 0xffffffffu;

const char* op_name(Op op);
const char* atomic_op_name(AtomicOp op);
const char* subgroup_op_name(SubgroupOp op);
/// Operand count of an op; Construct takes 1 to 4 (its node's nargs says how many).
int op_arity(Op op);

/// One expression node. Meaning of `aux` and `imm` per op:
///   Const       imm[0..width) = bit patterns of the components
///   Uniform     aux = param, imm[0] = word offset of the field inside the constant
///   InputLoad   aux = param, imm[0] = word offset of the field inside the element
///   GatherLoad  aux = param, imm[0] = word offset; args[0] = index (int or intN)
///   IndexOf     aux = param, imm[0] = dimension (0 = outermost)
///   ReadVar     aux = var, imm[0] = a serial number (never merged by CSE)
///   Swizzle     imm[0..width) = source component of each result component
///   Insert      imm[0..width of args[1]) = destination component of each
///               component of args[1] inside a copy of args[0]
///   Cast        value conversion to `type`; Bitcast reinterprets the bits
///   LocalId, GroupId, NumGroups, SubgroupSize, SubgroupInvocation: int
///   ArraySize   aux = param: element count of an Array param (int)
///   ArrayLoad   aux = param, imm[0] = word offset; args[0] = index (int);
///               out of range reads zero
///   ArrayLoadVector aux = param (one-word elements); args[0] = k (int): elements
///               N k .. N k + N - 1 as one N-vector (N = type.width, 2 or 4);
///               components out of range read zero
///   SharedLoad  aux = shared array, imm[0] = word offset; args[0] = index
///   Atomic      aux = param or shared array, imm[0] = word offset, imm[1] =
///               AtomicOp, imm[2] = 1 for a shared array; args = index, value
///               (absent for Load), compare (CompareExchange only)
///   Subgroup    imm[0] = SubgroupOp, imm[1] = combining Op; args[0] = value,
///               args[1] = invocation id / mask / delta where the op takes one
///   In-place ops carry a serial number in imm[3] so that CSE never merges them.
struct Node {
    Op op{};
    Type type{};
    std::uint8_t nargs = 0;
    std::uint16_t aux = 0;
    ExprId args[4] = {kNone, kNone, kNone, kNone};
    std::uint32_t imm[4] = {0, 0, 0, 0};

    friend bool operator==(const Node&, const Node&) = default;
};
static_assert(sizeof(Node) <= 40, "keep IR nodes small: the arena is scanned by every pass");

enum class StmtKind : std::uint8_t {
    Nop, Def, Assign, Store, If, Loop, Break, Continue, Return, ArrayStore, ArrayStoreVector, SharedStore, Barrier,
    Fence
};
const char* stmt_name(StmtKind kind);

/// One statement. Operands per kind:
///   Nop       (a placeholder where a variable was declared; see dsl/var.h)
///   Def       a = expression evaluated and bound here (ReadVar or any node)
///   Assign    a = var, b = expression
///   Store     a = output param, b = expression, c = word offset of the field
///   If        a = condition, b = then block, c = else block
///   Loop      a = body block, b = continuing block (runs after body and on Continue)
///   Break / Continue / Return: none
///   Barrier   a = kNone: the workgroup's; kSubgroupScope: the subgroup's, on
///             shared memory (backends may run it as a workgroup barrier)
///   ArrayStore  a = Array param, b = value, c = index, d = word offset
///               (out of range indices store nothing)
///   ArrayStoreVector a = Array param, b = value (an N-vector), c = k: elements
///               N k .. N k + N - 1 (components out of range store nothing)
///   SharedStore a = shared array, b = value, c = index, d = word offset
///   Fence     none: a device-scope acquire-release fence on Array memory
struct Stmt {
    StmtKind kind = StmtKind::Nop;
    std::uint32_t a = kNone, b = kNone, c = kNone, d = kNone;
};
/// Barrier's operand a for a subgroup barrier.
constexpr std::uint32_t kSubgroupScope = 1;

enum class ParamKind : std::uint8_t { Uniform, Input, Output, Gather, Array };
const char* param_kind_name(ParamKind kind);

/// A kernel parameter as the IR and the backends see it. Element layouts are
/// `words` 32-bit words with fields at word offsets (scalars/vectors only).
struct Param {
    std::string name;        // user-facing name, for error messages
    std::string type_name;   // user-facing element type, e.g. "float4" or "Ray"
    ParamKind kind = ParamKind::Input;
    std::uint32_t words = 0;          // element (or constant) size in 32-bit words
    std::uint32_t uniform_offset = 0; // Uniform: first word in the constant block
    std::uint8_t gather_rank = 0;     // Gather: rank the index type implies
    std::uint8_t indexof_rank = 0;    // rank that indexof() on this param assumes (0 = unused)
    /// Array: the most elements the body reads or writes in one vector access
    /// (ArrayLoadVector / ArrayStoreVector: 2 or 4; 0 = none). The view bound
    /// to it must start at a multiple of it, so that every vector access is
    /// one aligned access of the whole vector.
    std::uint8_t vector_width = 0;
};

/// Workgroup-shared memory of a group kernel: `count` elements of `words` words.
struct SharedArray {
    std::string type_name;
    std::uint32_t words = 0;
    std::uint32_t count = 0;
    /// Every index is in range by construction (rill's own algorithms): GPU
    /// code accesses it without bounds checks, which cost the radix scatter
    /// and the compaction instructions per element (docs/PERFORMANCE.md#compaction).
    bool unchecked = false;
    /// A Local<T> array's elements per invocation (0: a Shared<T> array). Its
    /// indices address element i of invocation l at i * workgroup_size + l, as
    /// in shared memory (the CPU backend keeps it there); GPU code keeps each
    /// invocation's elements in its own private memory instead.
    std::uint32_t per_invocation = 0;
    friend bool operator==(const SharedArray&, const SharedArray&) = default;
};

/// When a Vulkan kernel's SPIR-V goes through spirv-opt before the driver
/// compiles it (other backends have no such step).
enum class SpirvOpt : std::uint8_t {
    Always,
    /// Only where the driver does not optimize as well without it: NVIDIA's
    /// does (the FFT's and SGEMM's kernels ran as fast without spirv-opt on
    /// an H100 and built in 0.56 of the time), lavapipe's does not
    /// (the FFT tests took 61 s through it without, 23 s with).
    UnlessTheDriverOptimizes,
    Never,
};

/// A traced kernel: parameters, expression arena, variables and structured code.
class Kernel {
public:
    std::string name;
    std::vector<Param> params;
    std::uint32_t uniform_words = 0;
    /// Invocations per workgroup of a group kernel; 0 for a Brook kernel (one
    /// invocation per output element, workgroups invisible).
    std::uint32_t workgroup_size = 0;
    /// Subgroup size the kernel was traced to require (0: the backend's).
    std::uint32_t subgroup_size = 0;
    /// When the kernel's SPIR-V goes through spirv-opt (GroupOptions::spirv_opt).
    SpirvOpt spirv_opt = SpirvOpt::Always;
    /// Whether Array accesses skip rill's bounds checks (GroupOptions::unchecked_arrays).
    bool unchecked_arrays = false;
    /// Whether barriers order shared memory only (GroupOptions::shared_only_barriers).
    bool shared_only_barriers = false;
    /// Whether a backend reads the scalar parameters once, at the kernel's
    /// start (GroupOptions::parameters_at_start).
    bool parameters_at_start = false;
    /// Whether backends build it for a short compile over fast code
    /// (GroupOptions::quick_build).
    bool quick_build = false;
    std::vector<SharedArray> shared;
    bool is_group_kernel() const { return workgroup_size != 0; }
    std::uint64_t shared_bytes() const {
        std::uint64_t b = 0;
        for (const SharedArray& s : shared) b += std::uint64_t{4} * s.words * s.count;
        return b;
    }

    std::vector<Node> nodes;
    std::vector<Stmt> stmts;
    std::vector<std::vector<StmtId>> blocks;
    std::vector<Type> vars;
    BlockId body = kNone;      // the user's code
    BlockId epilogue = kNone;  // output stores; runs after body, also after Return

    const Node& node(ExprId id) const { return nodes[id]; }
    const Stmt& stmt(StmtId id) const { return stmts[id]; }
    const std::vector<StmtId>& block(BlockId id) const { return blocks[id]; }

    /// Content hash of the whole kernel (names of params excluded): the cache key.
    std::uint64_t hash() const;
};

/// Builds a Kernel: one constructor per node kind that checks operand types,
/// folds constants, and hash-conses (Dr.Jit's "check, fold, CSE, append").
class Builder {
public:
    explicit Builder(Kernel& k) : k_(k) {}

    ExprId constant(Type t, const std::uint32_t bits[4]);
    ExprId constant_f(float v);
    ExprId constant_i(std::int32_t v);
    ExprId constant_u(std::uint32_t v);
    ExprId constant_b(bool v);

    ExprId uniform(std::uint16_t param, std::uint32_t word, Type t);
    ExprId input(std::uint16_t param, std::uint32_t word, Type t);
    ExprId gather(std::uint16_t param, std::uint32_t word, Type t, ExprId index);
    ExprId index_of(std::uint16_t param, std::uint32_t dim);
    /// A leaf of the group ops (LocalId ... SubgroupInvocation, ArraySize).
    ExprId group_leaf(Op op, std::uint16_t aux = 0);
    /// An in-place node (see defined_in_place), with its Def statement appended.
    ExprId in_place(Node n);
    ExprId read_var(VarId v);  // also appends the Def statement
    /// A ReadVar node without its Def statement (for passes that copy statements).
    ExprId read_var_node(VarId v);
    /// Re-creates node `n` of another kernel with its operands mapped through
    /// `map` (folding and hash-consing again).
    ExprId remap(const Node& n, const std::vector<ExprId>& map);

    ExprId splat(ExprId a, int width);
    ExprId construct(Type t, const ExprId* parts, int n);
    ExprId swizzle(ExprId a, const int* comps, int n);
    ExprId insert(ExprId vec, ExprId part, const int* comps);
    ExprId cast(ExprId a, Scalar to);
    ExprId bitcast(ExprId a, Scalar to);
    ExprId select(ExprId cond, ExprId a, ExprId b);
    ExprId unary(Op op, ExprId a);
    ExprId binary(Op op, ExprId a, ExprId b);
    ExprId ternary(Op op, ExprId a, ExprId b, ExprId c);

    // statements, appended to the current block
    BlockId new_block();
    BlockId current_block() const { return cur_; }
    void set_current_block(BlockId b) { cur_ = b; }
    StmtId append(Stmt s);
    VarId new_var(Type t);

    Kernel& kernel() { return k_; }

private:
    ExprId intern(const Node& n);
    ExprId fold(const Node& n);

    struct NodeHash {
        std::size_t operator()(const Node& n) const;
    };
    Kernel& k_;
    std::unordered_map<Node, ExprId, NodeHash> cse_;
    BlockId cur_ = kNone;
    std::uint32_t read_serial_ = 0;
};

/// Result type of a unary/binary op on operands of type `a` (and `b`); throws
/// rill::Error on a type the op does not accept (the DSL prevents this at compile
/// time; IR built by hand can still get it wrong).
Type result_type(Op op, Type a, Type b);

/// Op::Cast on one scalar's bits (the rule every backend follows; see semantics.h).
std::uint32_t convert_scalar_bits(std::uint32_t bits, Scalar from, Scalar to);

/// Whether block `b` (or a block nested in it) contains a Return statement.
bool contains_return(const Kernel& k, BlockId b);

/// Readable text of a kernel: parameters, then its code with expressions inline.
std::string print(const Kernel& k);

/// Checks structural invariants (operands defined before use and in scope,
/// types, block structure); aborts with file and line where one is broken.
void validate(const Kernel& k);

}  // namespace rill::ir
