// IR -> GLSL. Expressions become `const`/`precise` temporaries declared at
// their first use in the innermost open scope (and forgotten when that scope
// closes, so a value is never used outside the block that computed it);
// variables are declared at the top of main(); the structured statements map
// 1:1 to GLSL. Float temporaries are `precise` so that drivers keep IEEE
// rounding instead of contracting a*b+c into fma (docs/SEMANTICS.md).
#include "rill/backends/glsl/codegen.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>

#include "rill/backends/glsl/info_layout.h"
#include "rill/core/disk_cache.h"
#include "rill/core/error.h"
#include "rill/core/launch.h"
#include "rill/core/op_traits.h"

namespace rill::glsl {

namespace {

using ir::ExprId;
using ir::Op;
using ir::StmtKind;

/// The generator's experiment knobs (docs/TUNING.md), read once a process.
struct Knobs {
    bool masked_loads = env_flag("RILL_GLSL_MASKED_LOADS");
    bool signed_division = env_flag("RILL_GLSL_SIGNED_DIVISION");
    bool shared_words = env_flag("RILL_GLSL_SHARED_WORDS");
    bool unchecked = env_flag("RILL_GLSL_UNCHECKED");
    bool gl_shared_fence = env_flag("RILL_GLSL_GL_SHARED_FENCE");
    bool element_calls = env_flag("RILL_GLSL_ELEMENT_CALLS");
    bool checked_vector_loads = env_flag("RILL_GLSL_CHECKED_VECTOR_LOADS");
    /// RILL_GLSL_PARAMETERS_FIRST=1 or 0: every group kernel reads its scalar
    /// parameters at its start, or none does; -1 (unset): as the kernel says
    /// (GroupOptions::parameters_at_start).
    long parameters_first =
        env_count("RILL_GLSL_PARAMETERS_FIRST", 0, 1, -1, "the group kernels that read their parameters first (0: none, 1: all)");
};
const Knobs& knobs() {
    static const Knobs k;
    return k;
}

std::string type_name(Type t) {
    static const char* scalar[] = {"bool", "int", "uint", "float"};
    static const char* prefix[] = {"b", "i", "u", ""};
    const int s = static_cast<int>(t.scalar);
    if (t.width == 1) return scalar[s];
    return std::string(prefix[s]) + "vec" + std::to_string(t.width);
}

/// A workgroup barrier that orders shared and buffer memory, and nothing else.
constexpr const char* kBufferBarrier =
    "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, "
    "gl_SemanticsAcquireRelease)";
/// A workgroup barrier that orders shared memory only. Not
/// `memoryBarrierShared(); barrier();`, whose separate fence NVIDIA's Vulkan
/// driver makes a MEMBAR.SC.CTA after the wait (docs/PERFORMANCE.md#radix-sort).
constexpr const char* kSharedBarrier =
    "controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease)";
constexpr const char* kSubgroupSharedBarrier =
    "controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease)";

const char* component(int c) { return c == 0 ? "x" : c == 1 ? "y" : c == 2 ? "z" : "w"; }

class Generator {
public:
    Generator(const ir::Kernel& k, const Signature& sig, const ShaderOptions& opt)
        : k_(k), sig_(sig), opt_(opt), emitted_(k.nodes.size(), 0) {}

    Shader run() {
        Shader sh;
        global_write_before_.assign(k_.stmts.size(), 0);
        shared_vector_width_ = shared_vector_widths();
        if (k_.is_group_kernel() && !k_.shared_only_barriers && reads_what_it_writes()) mark_barriers(k_.body, false);
        header(sh);
        if (k_.is_group_kernel()) {
            group_main();
            sh.source = out_.str();
            return sh;
        }
        // One function per element, so that Return keeps its meaning when an
        // invocation handles several elements (grid-stride loop in main).
        const std::size_t element_from = out_.str().size();
        out_ << "void rill_element(const uint gid) {\n";
        if (needs_positions()) {
            // Only kernels that resize, use views, iterators or indexof pay for these divisions.
            // Only the domain's dimensions: the others' positions are 0.
            const int rank = domain_rank();
            out_ << "    uint pos[4] = uint[4](0u, 0u, 0u, 0u);\n    { uint r = gid;";
            for (int d = rank - 1; d > 0; --d)
                out_ << " pos[" << d << "] = r % I(" << d + 1 << "u); r /= I(" << d + 1 << "u);";
            out_ << " pos[0] = r; }\n";
        }
        for (std::uint32_t p = 0; p < k_.params.size(); ++p) {
            const ir::Param& prm = k_.params[p];
            if (prm.kind != ir::ParamKind::Input && prm.kind != ir::ParamKind::Output) continue;
            if (kind(p) == 3) continue;  // iterators have no storage
            const std::uint32_t sb = stream_block(k_, p);
            if (kind(p) == 1) {
                out_ << "    const uint e" << p << " = I(" << sb << "u) + gid;\n";
            } else {
                out_ << "    const uint e" << p << " = I(" << sb << "u)";
                for (int d = 0; d < domain_rank(); ++d)
                    if (dim_resize(p, d) != 1) out_ << " + " << resized_position(p, d) << " * I(" << sb + 5 + d << "u)";
                out_ << ";\n";
            }
        }
        function_body();
        const std::vector<std::string> statements = element_statements(out_.str().substr(element_from));
        out_ << "void main() {\n";
        out_ << "    const uint n = I(0u);\n";
        out_ << "    const uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * " << opt_.workgroup_size << "u;\n";
        out_ << "    uint gid = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * "
             << opt_.workgroup_size << "u);\n";
        // Unrolled by four: independent elements keep several loads in flight.
        out_ << "    for (; gid + 3u * stride < n && gid + 3u * stride > gid; gid += 4u * stride) {\n";
        if (statements.empty()) {
            out_ << "        rill_element(gid); rill_element(gid + stride);\n"
                    "        rill_element(gid + 2u * stride); rill_element(gid + 3u * stride);\n";
        } else {
            out_ << "        const uint gid_0 = gid, gid_1 = gid + stride, gid_2 = gid + 2u * stride, gid_3 = gid + 3u * stride;\n";
            for (const std::string& statement : statements)
                for (int c = 0; c < 4; ++c) out_ << of_copy(statement, c);
        }
        out_ << "    }\n";
        out_ << "    for (; gid < n; gid += stride) rill_element(gid);\n";
        out_ << "}\n";
        sh.source = out_.str();
        return sh;
    }

private:
    std::uint32_t workgroup_size() const { return k_.is_group_kernel() ? k_.workgroup_size : opt_.workgroup_size; }

    /// The element function's top-level statements, each indented for main's
    /// unrolled loop, where main takes four elements as four copies of its
    /// body, statement by statement (each element's loads then come before
    /// the others' stores: NVIDIA's OpenGL compiler keeps loads after an
    /// earlier store; with four calls its copy of 2^28 floats ran at 2613
    /// GB/s, interleaved at 3000 as through Vulkan, H100 2026-12-07,
    /// docs/PERFORMANCE.md#opengl-against-vulkan). Empty (main calls the
    /// function four times) for a body that returns early, one of more than
    /// kMostInterleavedLines lines, or with RILL_GLSL_ELEMENT_CALLS=1 (an A/B
    /// knob, docs/TUNING.md).
    static constexpr std::size_t kMostInterleavedLines = 80;
    static std::vector<std::string> element_statements(const std::string& function) {
        if (knobs().element_calls || function.find("return") != std::string::npos) return {};
        std::vector<std::string> lines;
        std::istringstream in(function);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        // The function's first line opens it and its last closes it.
        if (lines.size() < 3 || lines.size() - 2 > kMostInterleavedLines) return {};
        std::vector<std::string> statements;
        for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
            const std::string& line = lines[i];
            const bool starts = line.rfind("    ", 0) == 0 && line.size() > 4 && line[4] != ' ' && line[4] != '}';
            if (starts || statements.empty()) statements.emplace_back();
            statements.back() += "    " + line + "\n";
        }
        return statements;
    }
    /// A statement of the element function for copy c of main's unrolled
    /// loop: its element's index and the function's locals named apart.
    static std::string of_copy(const std::string& statement, int c) {
        static const std::regex local(R"(\b(gid|pos|[ertv][0-9]+)\b)");
        return std::regex_replace(statement, local, "$1_" + std::to_string(c));
    }

    /// True when statement s (or one nested in it) writes global memory.
    bool writes_global(ir::StmtId s) const {
        const ir::Stmt& st = k_.stmt(s);
        switch (st.kind) {
            case StmtKind::ArrayStore: case StmtKind::ArrayStoreVector: case StmtKind::Store: return true;
            case StmtKind::Def: return k_.node(st.a).op == Op::Atomic && k_.node(st.a).imm[2] == 0;
            case StmtKind::If: return block_writes_global(st.b) || block_writes_global(st.c);
            case StmtKind::Loop: return block_writes_global(st.a) || block_writes_global(st.b);
            default: return false;
        }
    }
    bool block_writes_global(ir::BlockId b) const {
        for (ir::StmtId s : k_.block(b))
            if (writes_global(s)) return true;
        return false;
    }
    /// Marks each Barrier that a global write may precede (in program order, or
    /// through a loop's back edge); returns whether block b may end after one.
    bool mark_barriers(ir::BlockId b, bool seen) {
        for (ir::StmtId s : k_.block(b)) {
            const ir::Stmt& st = k_.stmt(s);
            if (st.kind == StmtKind::Barrier) global_write_before_[s] = seen && st.a != ir::kSubgroupScope;
            else if (st.kind == StmtKind::If) seen = mark_barriers(st.b, seen) | mark_barriers(st.c, seen);
            else if (st.kind == StmtKind::Loop) {
                seen = seen || block_writes_global(st.a) || block_writes_global(st.b);
                mark_barriers(st.a, seen);
                mark_barriers(st.b, seen);
            } else if (writes_global(s)) {
                seen = true;
            }
        }
        return seen;
    }

    /// The rest of the function holding the kernel's code: Array geometry,
    /// variables, body and epilogue, and the closing brace.
    void function_body() {
        array_geometry(1);
        read_parameters_first(1);
        for (std::size_t v = 0; v < k_.vars.size(); ++v)
            out_ << "    " << type_name(k_.vars[v]) << " v" << v << ";\n";
        scopes_.emplace_back();
        block(k_.body, 1);
        block(k_.epilogue, 1);
        out_ << "}\n";
    }

    bool uniform_control_flow() const {
        return opt_.subgroup_uniform_control_flow && opt_.native_subgroups && k_.is_group_kernel() && uses_subgroup_ops();
    }
    void group_main() {
        out_ << (uniform_control_flow() ? "[[subgroup_uniform_control_flow]] void main() {\n" : "void main() {\n");
        // Grids too large for x spread over y; their padding workgroups leave
        // at once (the whole workgroup, so barriers stay uniform).
        out_ << "    const uint rill_group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
        out_ << "    if (rill_group >= I(0u) / " << k_.workgroup_size << "u) return;\n";
        function_body();
    }

    bool uses_subgroup_ops() const {
        for (const ir::Node& n : k_.nodes)
            if (n.op == Op::Subgroup || n.op == Op::SubgroupSize || n.op == Op::SubgroupInvocation) return true;
        return uses_barrier(true);
    }
    /// Whether the kernel has a subgroup barrier (`subgroup`) or a workgroup one.
    bool uses_barrier(bool subgroup) const {
        for (const ir::Stmt& st : k_.stmts)
            if (st.kind == StmtKind::Barrier && (st.a == ir::kSubgroupScope) == subgroup) return true;
        return false;
    }
    bool uses_match() const {
        for (const ir::Node& n : k_.nodes)
            if (n.op == Op::Subgroup && static_cast<ir::SubgroupOp>(n.imm[0]) == ir::SubgroupOp::Match) return true;
        return false;
    }
    /// subgroup_match without subgroupPartitionNV: every invocation compares
    /// its value with each lane's in turn, in uniform control flow (no
    /// reliance on how divergent lanes reconverge); inactive lanes' shuffles
    /// are undefined and masked out by the ballot of the active ones.
    void match_function() {
        out_ << "uvec4 rill_match(uint v) {\n"
                "    uvec4 m = uvec4(0u);\n"
                "    for (uint j = 0u; j < gl_SubgroupSize; ++j)\n"
                "        if (subgroupShuffle(v, j) == v) m[j >> 5u] |= 1u << (j & 31u);\n"
                "    return m & subgroupBallot(true);\n"
                "}\n";
    }

    int kind(std::uint32_t p) const { return sig_.stream_kinds.empty() ? 2 : sig_.stream_kinds[p]; }
    /// Without a signature, code for any rank and resize.
    int domain_rank() const { return sig_.dim_resizes.empty() ? 4 : sig_.domain_rank; }
    int dim_resize(std::uint32_t p, int d) const {
        return sig_.dim_resizes.empty() || d >= sig_.domain_rank ? 2 : sig_.dim_resizes[4 * p + d];
    }
    /// Stream p's position in domain dimension d (Signature::dim_resizes).
    std::string resized_position(std::uint32_t p, int d) const {
        const std::string dim = std::to_string(d);
        switch (dim_resize(p, d)) {
            case 0: return "pos[" + dim + "]";
            case 1: return "0u";
            default: {
                const std::uint32_t sb = stream_block(k_, p);
                return "(pos[" + dim + "] * I(" + std::to_string(sb + 9 + d) + "u) / I(" + std::to_string(sb + 13 + d) + "u))";
            }
        }
    }

    bool needs_positions() const {
        for (std::uint32_t p = 0; p < k_.params.size(); ++p) {
            const auto kind_p = k_.params[p].kind;
            if ((kind_p == ir::ParamKind::Input || kind_p == ir::ParamKind::Output) && kind(p) != 1) return true;
        }
        return uses_op(Op::IndexOf);
    }

    void header(Shader& sh) {
        const bool vk = opt_.dialect == Dialect::Vulkan;
        out_ << "#version 450\n";
        if (opt_.native_subgroups && uses_subgroup_ops())
            for (const char* ext : {"basic", "vote", "ballot", "shuffle", "shuffle_relative", "arithmetic"})
                out_ << "#extension GL_KHR_shader_subgroup_" << ext << " : require\n";
        const bool partitioned = opt_.native_subgroups && opt_.subgroup_partitioned && uses_match();
        if (partitioned) out_ << "#extension GL_NV_shader_subgroup_partitioned : require\n";
        if (uniform_control_flow()) out_ << "#extension GL_EXT_subgroup_uniform_control_flow : require\n";
        if (native_float_add()) out_ << "#extension " << opt_.float_atomic_add_extension << " : require\n";
        if (vk && (uses_barrier(false) || (opt_.native_subgroups && uses_barrier(true))))
            out_ << "#extension GL_KHR_memory_scope_semantics : require\n";
        out_ << "// generated by rill from kernel '" << k_.name << "'\n";
        out_ << "layout(local_size_x = " << workgroup_size() << ") in;\n";
        // A Local<T> array is private to each invocation (no shared qualifier):
        // the driver keeps it in registers or per-invocation memory, so that it
        // does not take the shared memory that bounds the workgroups an SM holds
        // (docs/PERFORMANCE.md#ray-tracing).
        for (std::size_t i = 0; i < k_.shared.size(); ++i) {
            const ir::SharedArray& a = k_.shared[i];
            if (const std::uint32_t w = shared_vector_width(static_cast<std::uint32_t>(i))) {
                out_ << "shared uvec" << w << " sh" << i << "[" << a.count << "];\n";
                continue;
            }
            out_ << (a.per_invocation ? "" : "shared ") << "uint sh" << i << "["
                 << std::uint64_t{a.per_invocation ? a.per_invocation : a.count} * a.words << "];\n";
        }
        if (opt_.fence_through_shared_atomic && fenced()) out_ << "shared uint rill_fence_word;\n";
        if (opt_.native_subgroups && !opt_.subgroup_partitioned && uses_match()) match_function();
        std::uint32_t binding = 0;
        sh.stream_binding.assign(k_.params.size(), ir::kNone);
        for (std::uint32_t p = 0; p < k_.params.size(); ++p) {
            if (k_.params[p].kind == ir::ParamKind::Uniform || kind(p) == 3) continue;
            sh.stream_binding[p] = binding;
            // restrict lets the compiler overlap the loads of several elements with
            // earlier stores; only on buffers the call binds to no other param
            // (an in-place call's other buffers keep it).
            // A stream moved as vectors (load_vector / store_vector) is declared
            // as an array of vectors, and its single words are their
            // components: one view per buffer, so nothing aliases.
            const std::uint32_t vw = k_.params[p].vector_width;
            const bool quads = in_quads(p);
            out_ << "layout(std430, " << (vk ? "set = 0, " : "") << "binding = " << binding << ") "
                 << (!sig_.is_aliased(p) && opt_.reorderable_loads ? "restrict " : "")
                 << (declared_readonly(p) ? "readonly " : "") << (atomically_loaded(p) ? "coherent volatile " : fenced() && writable(p) ? "coherent " : "")
                 << "buffer Stream" << p << " { " << (vw ? "uvec" + std::to_string(vw) : quads ? std::string("uvec4") : std::string("uint"))
                 << " data[]; } s" << p << ";  // '" << k_.params[p].name << "'"
                 << (vw ? ", " + std::to_string(vw) + " elements a vector" : std::string())
                 << (quads ? ", " + std::to_string(k_.params[p].words / 4) + " vectors an element" : std::string()) << "\n";
            if (native_float_add() && float_added(p) && !vw)  // a float view of the same buffer, for atomicAdd
                out_ << "layout(std430, " << (vk ? "set = 0, " : "") << "binding = " << binding << ") buffer FloatStream"
                     << p << " { float data[]; } f" << p << ";\n";
            ++binding;
        }
        sh.info_binding = binding;
        out_ << "layout(std430, " << (vk ? "set = 0, " : "") << "binding = " << binding
             << ") " << (opt_.reorderable_loads ? "restrict readonly " : "")
             << "buffer Info { uint info[]; };  // never aliases a stream\n";
        if (vk) out_ << "layout(push_constant) uniform Push { uint base; } rill_push;\n#define INFO_BASE rill_push.base\n";
        else out_ << "layout(location = 0) uniform uint rill_info_base;\n#define INFO_BASE rill_info_base\n";
        out_ << "uint I(uint i) { return info[INFO_BASE + i]; }\n";
        if ((opt_.opaque_operands != OpaqueOperands::None && uses_op(Op::Min)) ||
            (opt_.opaque_operands == OpaqueOperands::MinAndMax && uses_op(Op::Max)))
            opaque_functions();
    }

    bool uses_op(Op op) const {
        for (const ir::Node& n : k_.nodes)
            if (n.op == op) return true;
        return false;
    }

    /// rill_opaque(x) == x for every type min and max take (ShaderOptions::opaque_operands).
    void opaque_functions() {
        out_ << "uint rill_zero() { return gl_NumWorkGroups.z - 1u; }\n";
        for (const char* n : {"", "2", "3", "4"}) {
            const std::string w = *n ? std::string("vec") + n : "", iv = *n ? "i" + w : "int", uv = *n ? "u" + w : "uint",
                              fv = *n ? w : "float";
            out_ << iv << " rill_opaque(" << iv << " x) { return x ^ int(rill_zero()); }\n";
            out_ << uv << " rill_opaque(" << uv << " x) { return x ^ rill_zero(); }\n";
            out_ << fv << " rill_opaque(" << fv << " x) { return uintBitsToFloat(floatBitsToUint(x) ^ rill_zero()); }\n";
        }
    }

    /// Array param p has atomic loads: they are plain loads of a coherent
    /// volatile buffer (read at the device's coherence point, never hoisted out
    /// of a waiting loop), not read-modify-writes, which every reader of a hot
    /// word would otherwise queue on (a look-back reads many).
    bool atomically_loaded(std::uint32_t p) const {
        return has_global_atomic(p, [](const ir::Node& n) { return static_cast<ir::AtomicOp>(n.imm[1]) == ir::AtomicOp::Load; });
    }

    /// Array param p's elements are whole vectors of 4 words (float4, or a
    /// struct of 16, 32, 48... bytes): it is declared as an array of uvec4 and
    /// moved a uvec4 at a time, so that an element is 1-3 wide accesses, not
    /// 4-12 strided word accesses (NVIDIA's compiler does not merge those; a
    /// gather of 48-byte particles ran at a third of the copy rate word by
    /// word). Not where atomics or vector accesses of single words need it as words.
    bool in_quads(std::uint32_t p) const {
        const ir::Param& q = k_.params[p];
        return q.kind == ir::ParamKind::Array && q.vector_width == 0 && q.words >= 4 && q.words % 4 == 0 &&
               !has_global_atomic(p, [](const ir::Node&) { return true; });
    }
    /// RILL_GLSL_MASKED_LOADS=1: a checked load zeroes its value out of range
    /// by an AND with a mask instead of a select (an experiment knob,
    /// docs/TUNING.md: whether NVIDIA's OpenGL compiler turns the select
    /// around a load into a branch; its bounds checks cost SGEMM nn 1.8x and
    /// SGEMV A^T x 2.8x where Vulkan's cost 1.07x, docs/PERFORMANCE.md#blas).
    static bool masked_loads() {
        return knobs().masked_loads;
    }
    /// RILL_GLSL_SIGNED_DIVISION=1: an int divided by a constant is left to the
    /// driver as GLSL's signed `/` (an A/B knob, docs/TUNING.md). By default it
    /// is spelled through unsigned division by that constant, which NVIDIA's
    /// compiler makes a multiply-high and a shift, where its signed division by
    /// 38 took 22 instructions (a float reciprocal and two corrections): the
    /// index arithmetic of a loop over a 2D region, 40% of a Perona-Malik
    /// step's instructions (docs/PERFORMANCE.md#segment).
    static bool signed_division() {
        return knobs().signed_division;
    }
    /// The constant c of `x / c` or `x % c` (ints, scalar) that is spelled as
    /// an unsigned division: 3 or more and not a power of two (powers of two
    /// are shifts already); 0 where there is none.
    std::uint32_t unsigned_divisor(const ir::Node& n) const {
        if (signed_division() || n.type.scalar != Scalar::Int || n.type.width != 1) return 0;
        const ir::Node& d = k_.node(n.args[1]);
        if (d.op != Op::Const) return 0;
        const auto c = static_cast<std::int32_t>(d.imm[0]);
        return c >= 3 && (c & (c - 1)) != 0 ? static_cast<std::uint32_t>(c) : 0;
    }
    /// x / c truncated toward zero (rill's rule) through uint division: |x| / c
    /// with x's sign; -x of INT_MIN is 2^31 as a uint, which divides rightly.
    static std::string quotient_by(const std::string& x, std::uint32_t c) {
        const std::string d = std::to_string(c) + "u";
        return "(" + x + " >= 0 ? int(uint(" + x + ") / " + d + ") : -int(uint(-" + x + ") / " + d + "))";
    }
    /// Per shared array, the width of the uvec2 or uvec4 it is declared as (0:
    /// as words): where its elements are 2 or 4 words and every access moves a
    /// whole element, one 8- or 16-byte access each by construction rather than
    /// by the driver's merging of word accesses (on an H100, SGEMM 0.99-1.06x,
    /// Brook's sum of float4 1.25x: docs/PERFORMANCE.md#blas). Not for Local<T>
    /// arrays (their elements are kept apart per invocation) nor where atomics
    /// need words. RILL_GLSL_SHARED_WORDS=1 declares every shared array in
    /// words (an A/B knob, docs/TUNING.md).
    std::vector<std::uint32_t> shared_vector_widths() const {
        const bool words = knobs().shared_words;
        std::vector<std::uint32_t> width(k_.shared.size(), 0);
        for (std::size_t i = 0; i < k_.shared.size(); ++i) {
            const ir::SharedArray& a = k_.shared[i];
            if (!words && !a.per_invocation && (a.words == 2 || a.words == 4)) width[i] = a.words;
        }
        auto whole = [&](std::uint32_t i, std::uint32_t offset, Type t) {
            if (i < width.size() && (offset != 0 || static_cast<std::uint32_t>(t.width) != width[i] || t.scalar == Scalar::Bool))
                width[i] = 0;
        };
        for (const ir::Node& n : k_.nodes) {
            if (n.op == Op::Atomic && n.imm[2] != 0 && n.aux < width.size()) width[n.aux] = 0;
            if (n.op == Op::SharedLoad) whole(n.aux, n.imm[0], n.type);
        }
        for (const ir::Stmt& st : k_.stmts)
            if (st.kind == StmtKind::SharedStore) whole(st.a, st.d, k_.node(st.b).type);
        return width;
    }
    std::uint32_t shared_vector_width(std::uint32_t i) const { return shared_vector_width_[i]; }
    /// uvec4 `quad` of element `index` (a uint expression) of Array param p, declared in quads.
    std::string quad_of(std::uint32_t p, const std::string& index, std::uint32_t quad) const {
        return "s" + std::to_string(p) + ".data[(rill_offset" + std::to_string(p) + " + " + index + ") * " +
               std::to_string(k_.params[p].words / 4) + "u + " + std::to_string(quad) + "u]";
    }

    /// The kernel has memory_fence(): the buffers written in it are coherent, so
    /// that what another workgroup published before its fence is read from the
    /// device's coherence point, not from a stale per-SM cache.
    bool fenced() const {
        for (const ir::Stmt& st : k_.stmts)
            if (st.kind == StmtKind::Fence) return true;
        return false;
    }

    /// Some atomic on Array param p satisfies pred.
    template <class Pred>
    bool has_global_atomic(std::uint32_t p, Pred pred) const {
        for (const ir::Node& n : k_.nodes)
            if (n.op == Op::Atomic && n.imm[2] == 0 && n.aux == p && pred(n)) return true;
        return false;
    }

    /// Whether the kernel writes Array param p (stores or atomics) / reads it (loads or atomics).
    bool writes_array(std::uint32_t p) const {
        for (const ir::Stmt& st : k_.stmts)
            if ((st.kind == StmtKind::ArrayStore || st.kind == StmtKind::ArrayStoreVector) && st.a == p) return true;
        return has_global_atomic(p, [](const ir::Node&) { return true; });
    }
    bool reads_array(std::uint32_t p) const {
        for (const ir::Node& n : k_.nodes)
            if ((n.op == Op::ArrayLoad || n.op == Op::ArrayLoadVector) && n.aux == p) return true;
        return has_global_atomic(p, [](const ir::Node&) { return true; });
    }

    /// Whether an invocation may read from an Array what another of its
    /// workgroup wrote there (or write where another read): only where some
    /// Array is both written and read (an atomic does both) or the call binds
    /// one buffer twice. Elsewhere no barrier needs to order buffer memory:
    /// the radix scatter, say, reads its input and writes its output only.
    bool reads_what_it_writes() const {
        if (!sig_.distinct_buffers()) return true;
        for (std::uint32_t p = 0; p < k_.params.size(); ++p)
            if (k_.params[p].kind == ir::ParamKind::Array && writes_array(p) && reads_array(p)) return true;
        return false;
    }

    /// Array param p gets float atomic adds (and the device has them natively).
    bool float_added(std::uint32_t p) const {
        return has_global_atomic(p, [](const ir::Node& n) {
            return n.type.scalar == Scalar::Float && static_cast<ir::AtomicOp>(n.imm[1]) == ir::AtomicOp::Add;
        });
    }
    bool native_float_add() const {
        if (opt_.float_atomic_add_extension.empty()) return false;
        for (std::uint32_t p = 0; p < k_.params.size(); ++p)
            if (k_.params[p].kind == ir::ParamKind::Array && float_added(p)) return true;
        return false;
    }

    /// Whether the call may write param p's buffer: it writes p, or binds p's
    /// buffer to another param too (which it may write).
    bool writable(std::uint32_t p) const {
        if (k_.params[p].kind == ir::ParamKind::Output) return true;
        if (k_.params[p].kind != ir::ParamKind::Array) return false;
        return sig_.is_aliased(p) || writes_array(p);
    }

    /// A buffer nothing in the call writes is declared readonly (the driver
    /// may then take its read-only cache path), except in group kernels: there
    /// NVIDIA's compiler then moves loads that a kernel issues together, to be
    /// in flight at once, down to their uses, it seems (on the H100 through
    /// Vulkan, readonly against not: radix histogram 0.55 against 0.42 ms per
    /// pass, sort of 2^28 keys 10.9 against 9.8 ms; docs/PERFORMANCE.md#radix-sort).
    bool declared_readonly(std::uint32_t p) const {
        return !writable(p) && !k_.is_group_kernel() && opt_.reorderable_loads;
    }

    void indent(int depth) { out_ << std::string(4 * depth, ' '); }

    // --- expressions -----------------------------------------------------------

    static std::string float_literal(std::uint32_t bits) {
        const float f = std::bit_cast<float>(bits);
        if (f == f && f != 0.0f && std::fabs(f) < 3.0e38f && std::fabs(f) > 1e-37f) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
            std::string s = buf;
            if (s.find_first_of(".e") == std::string::npos) s += ".0";
            return s;
        }
        return "uintBitsToFloat(" + std::to_string(bits) + "u)";
    }

    static std::string scalar_literal(Scalar s, std::uint32_t bits) {
        switch (s) {
            case Scalar::Float: return float_literal(bits);
            case Scalar::Int: {
                const auto v = static_cast<std::int32_t>(bits);
                return v == INT32_MIN ? "int(0x80000000u)" : std::to_string(v);
            }
            case Scalar::Uint: return std::to_string(bits) + "u";
            case Scalar::Bool: return bits ? "true" : "false";
        }
        RILL_UNREACHABLE("bad scalar");
    }

    std::string constant(const ir::Node& n) {
        if (n.type.width == 1) return scalar_literal(n.type.scalar, n.imm[0]);
        std::string s = type_name(n.type) + "(";
        for (int c = 0; c < n.type.width; ++c) s += (c ? ", " : "") + scalar_literal(n.type.scalar, n.imm[c]);
        return s + ")";
    }

    // One 32-bit word of a stream or the info block, as a value of scalar kind s.
    static std::string from_word(Scalar s, const std::string& word) {
        switch (s) {
            case Scalar::Float: return "uintBitsToFloat(" + word + ")";
            case Scalar::Int: return "int(" + word + ")";
            case Scalar::Uint: return word;
            case Scalar::Bool: return "(" + word + " != 0u)";
        }
        RILL_UNREACHABLE("bad scalar");
    }
    static std::string to_word(Scalar s, const std::string& value) {
        switch (s) {
            case Scalar::Float: return "floatBitsToUint(" + value + ")";
            case Scalar::Int: return "uint(" + value + ")";
            case Scalar::Uint: return value;
            case Scalar::Bool: return "(" + value + " ? 1u : 0u)";
        }
        RILL_UNREACHABLE("bad scalar");
    }

    std::string vector_of(Type t, const std::vector<std::string>& comps) {
        if (t.width == 1) return comps[0];
        std::string s = type_name(t) + "(";
        for (std::size_t c = 0; c < comps.size(); ++c) s += (c ? ", " : "") + comps[c];
        return s + ")";
    }

    std::string load(std::uint32_t p, const std::string& elem, std::uint32_t word, Type t) {
        std::vector<std::string> comps;
        for (int c = 0; c < t.width; ++c)
            comps.push_back(from_word(t.scalar, "s" + std::to_string(p) + ".data[" + elem + " * " +
                                                    std::to_string(k_.params[p].words) + "u + " +
                                                    std::to_string(word + c) + "u]"));
        return vector_of(t, comps);
    }

    std::string iterator_value(std::uint32_t p, Type t) {
        const std::uint32_t sb = stream_block(k_, p);
        std::vector<std::string> comps;
        for (int c = 0; c < t.width; ++c) {
            // component c follows dimension info[sb+25+c]; its resized position / extent
            const std::string dim = "I(" + std::to_string(sb + 25 + c) + "u)";
            const std::string p_d = "(pos[" + dim + "] * I(" + std::to_string(sb + 9) + "u + " + dim + ") / I(" +
                                    std::to_string(sb + 13) + "u + " + dim + "))";
            const std::string n_d = "I(" + std::to_string(sb + 1) + "u + " + dim + ")";
            const std::string s = from_word(t.scalar, "I(" + std::to_string(sb + 17 + c) + "u)");
            const std::string e = from_word(t.scalar, "I(" + std::to_string(sb + 21 + c) + "u)");
            if (t.scalar == Scalar::Float)
                comps.push_back("(" + s + " + (" + e + " - " + s + ") * (float(" + p_d + ") / float(" + n_d + ")))");
            else
                comps.push_back("(" + s + " + " + type_name(t.element()) + "(floor(float(" + e + " - " + s + ") * float(" +
                                p_d + ") / float(" + n_d + "))))");
        }
        return vector_of(t, comps);
    }

    std::string gather(const ir::Node& n, const std::string& index) {
        const std::uint32_t p = n.aux;
        const std::uint32_t sb = stream_block(k_, p);
        const int rank = k_.params[p].gather_rank;
        std::string e = "(I(" + std::to_string(sb) + "u)";
        for (int d = 0; d < rank; ++d) {
            const std::string comp = rank == 1 ? index : index + "." + component(d);
            e += " + uint(clamp(" + comp + ", 0, int(I(" + std::to_string(sb + 1 + d) + "u)) - 1)) * I(" +
                 std::to_string(sb + 5 + d) + "u)";
        }
        e += ")";
        return load(p, e, n.imm[0], n.type);
    }

    // Component-wise relational ops on vectors use GLSL's functions.
    static const char* vector_relation(Op op) {
        switch (op) {
            case Op::Eq: return "equal";
            case Op::Ne: return "notEqual";
            case Op::Lt: return "lessThan";
            case Op::Le: return "lessThanEqual";
            case Op::Gt: return "greaterThan";
            case Op::Ge: return "greaterThanEqual";
            default: return nullptr;
        }
    }

    static const char* function_name(Op op) {
        switch (op) {
            case Op::Abs: return "abs";
            case Op::Sign: return "sign";
            case Op::Floor: return "floor";
            case Op::Ceil: return "ceil";
            case Op::Round: return "roundEven";
            case Op::Trunc: return "trunc";
            case Op::Fract: return "fract";
            case Op::Sqrt: return "sqrt";
            case Op::InverseSqrt: return "inversesqrt";
            case Op::Exp: return "exp";
            case Op::Exp2: return "exp2";
            case Op::Log: return "log";
            case Op::Log2: return "log2";
            case Op::Sin: return "sin";
            case Op::Cos: return "cos";
            case Op::Tan: return "tan";
            case Op::Asin: return "asin";
            case Op::Acos: return "acos";
            case Op::Atan: return "atan";
            case Op::Sinh: return "sinh";
            case Op::Cosh: return "cosh";
            case Op::Tanh: return "tanh";
            case Op::Asinh: return "asinh";
            case Op::Acosh: return "acosh";
            case Op::Atanh: return "atanh";
            case Op::IsNan: return "isnan";
            case Op::IsInf: return "isinf";
            case Op::BitCount: return "bitCount";
            case Op::FindLSB: return "findLSB";
            case Op::FindMSB: return "findMSB";
            case Op::BitReverse: return "bitfieldReverse";
            case Op::All: return "all";
            case Op::Any: return "any";
            case Op::Mod: return "mod";
            case Op::Min: return "min";
            case Op::Max: return "max";
            case Op::Pow: return "pow";
            case Op::Atan2: return "atan";
            case Op::Dot: return "dot";
            case Op::Fma: return "fma";
            case Op::BitfieldExtract: return "bitfieldExtract";
            default: return nullptr;
        }
    }

    static const char* infix(Op op) {
        switch (op) {
            case Op::Add: return "+";
            case Op::Sub: return "-";
            case Op::Mul: return "*";
            case Op::Div: return "/";
            case Op::Rem: return "%";
            case Op::BitAnd: return "&";
            case Op::BitOr: return "|";
            case Op::BitXor: return "^";
            case Op::Shl: return "<<";
            case Op::Shr: return ">>";
            case Op::Eq: return "==";
            case Op::Ne: return "!=";
            case Op::Lt: return "<";
            case Op::Le: return "<=";
            case Op::Gt: return ">";
            case Op::Ge: return ">=";
            case Op::LogicalAnd: return "&&";
            case Op::LogicalOr: return "||";
            default: return nullptr;
        }
    }

    /// The GLSL expression computing node `id` from its operands' names.
    std::string expression(ExprId id, int depth) {
        const ir::Node& n = k_.node(id);
        auto a = [&](int i) { return ref(n.args[i], depth); };
        auto arg_type = [&](int i) { return k_.node(n.args[i]).type; };
        switch (n.op) {
            case Op::Const: return constant(n);
            case Op::Uniform: {
                std::vector<std::string> comps;
                for (int c = 0; c < n.type.width; ++c) {
                    const std::string w = std::to_string(kHeaderWords + n.imm[0] + c);
                    comps.push_back(from_word(n.type.scalar, parameters_first() ? "rill_u" + w : "I(" + w + "u)"));
                }
                return vector_of(n.type, comps);
            }
            case Op::InputLoad:
                if (kind(n.aux) == 3) return iterator_value(n.aux, n.type);
                return load(n.aux, "e" + std::to_string(n.aux), n.imm[0], n.type);
            case Op::GatherLoad: return gather(n, a(0));
            case Op::IndexOf: return "int(" + resized_position(n.aux, static_cast<int>(n.imm[0])) + ")";
            case Op::ReadVar: case Op::ArrayLoad: case Op::ArrayLoadVector: case Op::SharedLoad: case Op::Atomic:
            case Op::Subgroup:
                RILL_UNREACHABLE("in-place nodes are defined by their Def statement");
            case Op::LocalId: return "int(gl_LocalInvocationID.x)";
            case Op::GroupId: return "int(rill_group)";
            case Op::NumGroups: return "int(I(0u) / " + std::to_string(k_.workgroup_size) + "u)";
            case Op::ArraySize: return "int(" + array_count(n.aux) + ")";
            case Op::SubgroupSize: return opt_.native_subgroups ? "int(gl_SubgroupSize)" : "1";
            case Op::SubgroupInvocation: return opt_.native_subgroups ? "int(gl_SubgroupInvocationID)" : "0";
            case Op::Splat: return type_name(n.type) + "(" + a(0) + ")";
            case Op::Construct: {
                std::string s = type_name(n.type) + "(";
                for (int i = 0; i < n.nargs; ++i) s += (i ? ", " : "") + a(i);
                return s + ")";
            }
            case Op::Swizzle: {
                std::string s = a(0) + ".";
                for (int c = 0; c < n.type.width; ++c) s += component(static_cast<int>(n.imm[c]));
                return s;
            }
            case Op::Insert: {
                const std::string base = a(0), part = a(1);
                const int pw = arg_type(1).width;
                std::vector<std::string> comps;
                for (int c = 0; c < n.type.width; ++c) comps.push_back(base + "." + component(c));
                for (int i = 0; i < pw; ++i)
                    comps[n.imm[i]] = pw == 1 ? part : part + "." + component(i);
                return vector_of(n.type, comps);
            }
            case Op::Cast: return type_name(n.type) + "(" + a(0) + ")";
            case Op::Bitcast: {
                const Scalar from = arg_type(0).scalar, to = n.type.scalar;
                if (from == Scalar::Float) return std::string(to == Scalar::Int ? "floatBitsToInt(" : "floatBitsToUint(") + a(0) + ")";
                if (to == Scalar::Float) return std::string(from == Scalar::Int ? "intBitsToFloat(" : "uintBitsToFloat(") + a(0) + ")";
                return type_name(n.type) + "(" + a(0) + ")";  // int <-> uint keep their bits
            }
            case Op::Select:
                if (arg_type(0).width > 1) return "mix(" + a(2) + ", " + a(1) + ", " + a(0) + ")";
                return "(" + a(0) + " ? " + a(1) + " : " + a(2) + ")";
            case Op::Neg:
                if (opt_.int_negation_as_subtraction && n.type.scalar == Scalar::Int) return "(0 - " + a(0) + ")";
                return "(-" + a(0) + ")";
            case Op::Not: return n.type.width > 1 ? "not(" + a(0) + ")" : "(!" + a(0) + ")";
            case Op::BitNot: return "(~" + a(0) + ")";
            case Op::Sign:
                if (n.type.scalar == Scalar::Uint)  // GLSL has no sign(uint)
                    return n.type.width == 1 ? "uint(" + a(0) + " > 0u)"
                                             : type_name(n.type) + "(greaterThan(" + a(0) + ", " + type_name(n.type) + "(0u)))";
                break;
            case Op::Abs:
                if (n.type.scalar == Scalar::Uint) return a(0);
                break;
            case Op::Min: case Op::Max: {
                if (n.type.scalar == Scalar::Float && opt_.float_min_max != FloatMinMax::AsOtherTypes) {
                    const Op other = n.op == Op::Min ? Op::Max : Op::Min;
                    const bool clamp_like = may_be(n.args[0], other) || may_be(n.args[1], other);
                    if (opt_.float_min_max == FloatMinMax::Native || !clamp_like) break;
                }
                const bool opaque = opt_.opaque_operands == OpaqueOperands::MinAndMax ||
                                    (opt_.opaque_operands == OpaqueOperands::Min && n.op == Op::Min);
                const std::string x = opaque ? "rill_opaque(" + a(0) + ")" : a(0), y = opaque ? "rill_opaque(" + a(1) + ")" : a(1);
                if (opt_.min_max_as_selects) {
                    // min(x, y) = y < x ? y : x, max(x, y) = x < y ? y : x
                    const std::string l = n.op == Op::Min ? y : x, r = n.op == Op::Min ? x : y;
                    if (n.type.width == 1) return "(" + l + " < " + r + " ? " + y + " : " + x + ")";
                    return "mix(" + x + ", " + y + ", lessThan(" + l + ", " + r + "))";
                }
                if (opaque) return std::string(n.op == Op::Min ? "min(" : "max(") + x + ", " + y + ")";
                break;
            }
            case Op::BitCount: case Op::FindLSB: case Op::FindMSB:
                if (opt_.uint_bit_queries_as_int && arg_type(0).scalar == Scalar::Uint) {
                    const std::string i = type_name(n.type) + "(" + a(0) + ")";  // the same bits as int
                    if (n.op == Op::BitCount) return "bitCount(" + i + ")";
                    if (n.op == Op::FindLSB) return "findLSB(" + i + ")";
                    // findMSB(int) finds the highest 0 bit of a negative int; the uint's highest bit is 31.
                    const std::string negative = n.type.width > 1 ? "lessThan(" + i + ", " + type_name(n.type) + "(0))"
                                                                  : "(" + i + " < 0)";
                    return "mix(findMSB(" + i + "), " + type_name(n.type) + "(31), " + negative + ")";
                }
                break;
            case Op::Atan2: return "atan(" + a(0) + ", " + a(1) + ")";
            case Op::Asinh: case Op::Acosh: case Op::Sinh: case Op::Cosh: return hyperbolic(n.op, a(0), n.type);
            case Op::Div:
                if (const std::uint32_t c = unsigned_divisor(n)) return quotient_by(a(0), c);
                break;
            case Op::Rem:
                // GLSL leaves % with negative operands undefined (NVIDIA differs from
                // lavapipe); rill defines it as C++ does, through truncating division.
                if (const std::uint32_t c = unsigned_divisor(n)) return "(" + a(0) + " - " + a(1) + " * " + quotient_by(a(0), c) + ")";
                if (n.type.scalar == Scalar::Int) return "(" + a(0) + " - " + a(1) + " * (" + a(0) + " / " + a(1) + "))";
                break;
            case Op::LogicalAnd: case Op::LogicalOr:
                if (n.type.width > 1) {
                    const std::string u = "uvec" + std::to_string(n.type.width);
                    return type_name(n.type) + "(" + u + "(" + a(0) + ") " + (n.op == Op::LogicalAnd ? "&" : "|") + " " +
                           u + "(" + a(1) + "))";
                }
                break;
            case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
                if (arg_type(0).width > 1) return std::string(vector_relation(n.op)) + "(" + a(0) + ", " + a(1) + ")";
                break;
            default:
                break;
        }
        if (const char* op = infix(n.op)) return "(" + a(0) + " " + op + " " + a(1) + ")";
        if (const char* f = function_name(n.op)) {
            std::string s = std::string(f) + "(";
            for (int i = 0; i < n.nargs; ++i) s += (i ? ", " : "") + a(i);
            return s + ")";
        }
        RILL_UNREACHABLE(std::string("GLSL generator has no spelling for ") + ir::op_name(n.op));
    }

    /// Hyperbolic functions over the whole float range. The drivers' formulas
    /// overflow where the result does not: asinh and acosh square x (inf from
    /// about 2e19), sinh and cosh take exp(|x|) (inf from 88.7, the result from
    /// 89.4). Past a threshold the result is log(|x|) + ln 2, or exp(|x| - ln 2),
    /// exact within float precision there. Below it asinh is written with |x|
    /// (NVIDIA's GL evaluates log(x + sqrt(x*x + 1)) as written, which cancels
    /// for large negative x) and acosh with (x - 1)(x + 1), exact near 1. Both
    /// branches are computed and one is selected (mix with a bool picks, it
    /// does not blend), so the other branch's inf does no harm.
    std::string hyperbolic(Op op, const std::string& x, Type t) {
        const std::string ln2 = "0.693147180559945";
        auto above = [&](const std::string& v, const char* limit) {
            return t.width > 1 ? "greaterThan(" + v + ", " + type_name(t) + "(" + limit + "))"
                               : "(" + v + " > " + limit + ")";
        };
        const std::string a = "abs(" + x + ")";
        switch (op) {
            case Op::Asinh:
                return "(sign(" + x + ") * mix(log(" + a + " + sqrt(" + a + " * " + a + " + 1.0)), log(" + a + ") + " +
                       ln2 + ", " + above(a, "4096.0") + "))";
            case Op::Acosh:
                return "mix(log(" + x + " + sqrt((" + x + " - 1.0) * (" + x + " + 1.0))), log(" + x + ") + " + ln2 +
                       ", " + above(x, "4096.0") + ")";
            case Op::Sinh:
                return "(sign(" + x + ") * mix(sinh(" + a + "), exp(" + a + " - " + ln2 + "), " + above(a, "64.0") + "))";
            case Op::Cosh:
                return "mix(cosh(" + x + "), exp(" + a + " - " + ln2 + "), " + above(a, "64.0") + ")";
            default:
                RILL_UNREACHABLE("not a hyperbolic function");
        }
    }

    /// The name (or literal) of node `id`, declaring its temporary in the
    /// current scope on first use.
    std::string ref(ExprId id, int depth) {
        const ir::Node& n = k_.node(id);
        if (n.op == Op::Const) return constant(n);
        if (ir::defined_in_place(n.op)) return "r" + std::to_string(id);
        if (emitted_[id]) return "t" + std::to_string(id);
        std::string e = expression(id, depth);
        indent(depth);
        out_ << (n.type.is_float() ? "precise " : "") << type_name(n.type) << " t" << id << " = " << e << ";\n";
        emitted_[id] = 1;
        scopes_.back().push_back(id);
        return "t" + std::to_string(id);
    }

    // --- group kernels: memory, atomics, subgroups ---------------------------------

    /// Element count of Array param p (its binding is flattened to one dimension).
    std::string array_count(std::uint32_t p) const { return "rill_size" + std::to_string(p); }

    /// An Array param's offset and size, read from the info block once per
    /// invocation (the compiler cannot keep info words across stores otherwise).
    void array_geometry(int depth) {
        for (std::uint32_t p = 0; p < k_.params.size(); ++p) {
            if (k_.params[p].kind != ir::ParamKind::Array) continue;
            const std::uint32_t sb = stream_block(k_, p);
            indent(depth);
            out_ << "const uint rill_offset" << p << " = I(" << sb << "u), rill_size" << p << " = I(" << sb + 1
                 << "u), rill_last" << p << " = max(rill_size" << p << ", 1u) - 1u;\n";
        }
    }
    /// GroupOptions::parameters_at_start (or RILL_GLSL_PARAMETERS_FIRST, an
    /// A/B knob, docs/TUNING.md): a group kernel reads the info words of its
    /// scalar parameters once, here at the top of main, where each use (in a
    /// loop, each trip) reads the info block again otherwise; NVIDIA's OpenGL
    /// assembly keeps such reads after the stores before them
    /// (docs/PERFORMANCE.md#opengl-against-vulkan).
    bool parameters_first() const {
        return k_.is_group_kernel() && (knobs().parameters_first < 0 ? k_.parameters_at_start : knobs().parameters_first == 1);
    }
    void read_parameters_first(int depth) {
        if (!parameters_first()) return;
        std::vector<std::uint32_t> words;
        for (const ir::Node& n : k_.nodes)
            if (n.op == Op::Uniform)
                for (int c = 0; c < n.type.width; ++c) words.push_back(kHeaderWords + static_cast<std::uint32_t>(n.imm[0]) + c);
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        for (std::uint32_t w : words) {
            indent(depth);
            out_ << "const uint rill_u" << w << " = I(" << w << "u);\n";
        }
    }
    std::string count_of(bool shared, std::uint32_t id) const {
        return shared ? std::to_string(k_.shared[id].count) + "u" : array_count(id);
    }
    /// Whether accesses to the array go without rill's bounds checks: its indices are in range by
    /// construction (a dsl::Unchecked shared array, or every Array of a GroupOptions::unchecked_arrays kernel).
    /// RILL_GLSL_UNCHECKED=1 drops every check (an experiment knob, docs/TUNING.md: what the
    /// checks cost a device's kernels; an index out of range is then undefined behaviour).
    bool unchecked_of(bool shared, std::uint32_t id) const {
        return knobs().unchecked || (shared ? k_.shared[id].unchecked : k_.unchecked_arrays);
    }
    /// The storage word `word` of element `index` (an int expression, in range).
    std::string word_of(bool shared, std::uint32_t id, const std::string& index, std::uint32_t word,
                        const char* buffer = "s") const {
        if (shared) {
            // A Local<T> index is element * workgroup size + local id: the element is its quotient.
            const std::string element = k_.shared[id].per_invocation
                                            ? "(uint(" + index + ") / " + std::to_string(workgroup_size()) + "u)"
                                            : "uint(" + index + ")";
            return "sh" + std::to_string(id) + "[" + element + " * " + std::to_string(k_.shared[id].words) + "u + " +
                   std::to_string(word) + "u]";
        }
        if (const std::uint32_t vw = k_.params[id].vector_width)  // one-word elements as vector components
            return element_of_vectors(id, "(rill_offset" + std::to_string(id) + " + uint(" + index + "))", vw);
        if (in_quads(id)) return quad_of(id, "uint(" + index + ")", word / 4) + "[" + std::to_string(word % 4) + "]";
        return buffer + std::to_string(id) + ".data[(rill_offset" + std::to_string(id) + " + uint(" + index + ")) * " +
               std::to_string(k_.params[id].words) + "u + " + std::to_string(word) + "u]";
    }
    /// Word `e` (a uint expression) of Array param p, declared as vectors of vw words.
    static std::string element_of_vectors(std::uint32_t p, const std::string& e, std::uint32_t vw) {
        return "s" + std::to_string(p) + ".data[" + e + " / " + std::to_string(vw) + "u][" + e + " % " +
               std::to_string(vw) + "u]";
    }
    /// The vector of Array param p holding elements N k .. N k + N - 1 (k a
    /// uint expression, in range), for N up to the param's vector width vw;
    /// `part` gets the component of the first one.
    std::string vector_holding(std::uint32_t p, const std::string& k, int N, std::string& part) const {
        const std::uint32_t vw = k_.params[p].vector_width;
        const std::string per = std::to_string(vw / N) + "u";  // N-vectors per declared vector
        part = "(" + k + " % " + per + ") * " + std::to_string(N) + "u";
        return "s" + std::to_string(p) + ".data[rill_offset" + std::to_string(p) + " / " + std::to_string(vw) + "u + " + k +
               " / " + per + "]";
    }

    /// GLSL's name of a subgroup reduction/scan for combining op `op`.
    static std::string subgroup_arith(ir::SubgroupOp kind, Op op) {
        const char* prefix = kind == ir::SubgroupOp::Reduce ? "subgroup" : kind == ir::SubgroupOp::InclusiveScan
                                                                               ? "subgroupInclusive" : "subgroupExclusive";
        const char* name = op == Op::Add ? "Add" : op == Op::Mul ? "Mul" : op == Op::Min ? "Min" : op == Op::Max ? "Max"
                           : op == Op::BitAnd ? "And" : op == Op::BitOr ? "Or" : "Xor";
        return std::string(prefix) + name;
    }

    /// The identity of combining op `op` on type t (an exclusive scan's first value).
    static std::string identity(Op op, Type t) {
        return type_name(t) + "(" + from_word(t.scalar, std::to_string(ir::combine_identity_bits(op, t.scalar)) + "u") + ")";
    }

    std::string subgroup_expression(const ir::Node& n, const std::string& v, const std::string& arg) {
        const auto kind = static_cast<ir::SubgroupOp>(n.imm[0]);
        const auto op = static_cast<Op>(n.imm[1]);
        if (!opt_.native_subgroups) {
            // One invocation per subgroup: every operation reduces to its own value.
            switch (kind) {
                case ir::SubgroupOp::Elect: return "true";
                case ir::SubgroupOp::Ballot: return "uvec4(" + v + " ? 1u : 0u, 0u, 0u, 0u)";
                case ir::SubgroupOp::Match: return "uvec4(1u, 0u, 0u, 0u)";
                case ir::SubgroupOp::ExclusiveScan: return identity(op, n.type);
                default: return v;
            }
        }
        switch (kind) {
            case ir::SubgroupOp::Elect: return "subgroupElect()";
            case ir::SubgroupOp::All: return "subgroupAll(" + v + ")";
            case ir::SubgroupOp::Any: return "subgroupAny(" + v + ")";
            case ir::SubgroupOp::Ballot: return "subgroupBallot(" + v + ")";
            case ir::SubgroupOp::Broadcast:
                // subgroupBroadcast wants a constant id; a computed one goes through a shuffle.
                if (k_.node(n.args[1]).op == Op::Const) return "subgroupBroadcast(" + v + ", uint(" + arg + "))";
                return "subgroupShuffle(" + v + ", uint(" + arg + "))";
            case ir::SubgroupOp::BroadcastFirst: return "subgroupBroadcastFirst(" + v + ")";
            case ir::SubgroupOp::Shuffle: return "subgroupShuffle(" + v + ", uint(" + arg + "))";
            case ir::SubgroupOp::ShuffleXor: return "subgroupShuffleXor(" + v + ", uint(" + arg + "))";
            case ir::SubgroupOp::ShuffleUp: return "subgroupShuffleUp(" + v + ", uint(" + arg + "))";
            case ir::SubgroupOp::ShuffleDown: return "subgroupShuffleDown(" + v + ", uint(" + arg + "))";
            case ir::SubgroupOp::Reduce: case ir::SubgroupOp::InclusiveScan: case ir::SubgroupOp::ExclusiveScan:
                return subgroup_arith(kind, op) + "(" + v + ")";
            case ir::SubgroupOp::Match: return (opt_.subgroup_partitioned ? "subgroupPartitionNV(" : "rill_match(") + v + ")";
        }
        RILL_UNREACHABLE("bad subgroup op");
    }

    /// One atomic on `word` (a uint lvalue) for node n; returns the old bits.
    /// Float add and signed min/max have no uint atomic: they loop on compare-swap.
    void atomic(const ir::Node& n, const std::string& index, const std::string& value, const std::string& compare,
                const std::string& result, int depth) {
        const bool shared = n.imm[2] != 0;
        const std::string word = word_of(shared, n.aux, index, n.imm[0]);
        const auto op = static_cast<ir::AtomicOp>(n.imm[1]);
        const Scalar s = n.type.scalar;
        const std::string v = value.empty() ? "" : to_word(s, value);
        auto line = [&](const std::string& text) {
            indent(depth);
            out_ << text << "\n";
        };
        if (op == ir::AtomicOp::Add && s == Scalar::Float && !opt_.float_atomic_add_extension.empty() && !shared &&
            !k_.params[n.aux].vector_width) {
            // The float view f<p> of the same buffer (declared in the header).
            line(result + " = atomicAdd(" + word_of(false, n.aux, index, n.imm[0], "f") + ", " + value + ");");
            return;
        }
        const bool cas_loop = (op == ir::AtomicOp::Add && s == Scalar::Float) ||
                              ((op == ir::AtomicOp::Min || op == ir::AtomicOp::Max) && s == Scalar::Int);
        if (cas_loop) {
            std::string next;
            if (op == ir::AtomicOp::Add) next = "floatBitsToUint(uintBitsToFloat(rill_old) + " + value + ")";
            else next = std::string("uint(") + (op == ir::AtomicOp::Min ? "min" : "max") + "(int(rill_old), " + value + "))";
            line("{ uint rill_old = " + word + "; for (;;) { const uint rill_new = " + next + ";");
            line("  if (rill_new == rill_old) break; const uint rill_seen = atomicCompSwap(" + word +
                 ", rill_old, rill_new); if (rill_seen == rill_old) break; rill_old = rill_seen; }");
            line("  " + result + " = " + from_word(s, "rill_old") + "; }");
            return;
        }
        std::string call;
        switch (op) {
            case ir::AtomicOp::Add: call = "atomicAdd(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::Min: call = "atomicMin(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::Max: call = "atomicMax(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::And: call = "atomicAnd(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::Or: call = "atomicOr(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::Xor: call = "atomicXor(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::Exchange: call = "atomicExchange(" + word + ", " + v + ")"; break;
            case ir::AtomicOp::CompareExchange:
                call = "atomicCompSwap(" + word + ", " + to_word(s, compare) + ", " + v + ")";
                break;
            case ir::AtomicOp::Load: call = shared ? "atomicOr(" + word + ", 0u)" : word; break;
        }
        line(result + " = " + from_word(s, call) + ";");
    }

    /// Declares r<id> for an in-place node and computes it here. Memory out of
    /// range is never written: loads give zero, atomics do nothing.
    void in_place(ExprId id, int depth) {
        const ir::Node& n = k_.node(id);
        std::vector<std::string> args;
        for (int i = 0; i < n.nargs; ++i) args.push_back(ref(n.args[i], depth));
        const std::string r = "r" + std::to_string(id);
        indent(depth);
        if (n.op == Op::Subgroup) {
            out_ << (n.type.is_float() ? "precise " : "") << type_name(n.type) << " " << r << " = "
                 << subgroup_expression(n, args[0], n.nargs > 1 ? args[1] : "") << ";\n";
            return;
        }
        if (n.op == Op::ArrayLoadVector) return vector_load(n, r, args[0], depth);
        const bool shared = n.op == Op::SharedLoad || (n.op == Op::Atomic && n.imm[2] != 0);
        const bool unchecked = unchecked_of(shared, n.aux);
        // A field of an element kept in quads: the whole uvec4s that hold it,
        // each one wide load (the compiler merges the other fields' loads of
        // the same uvec4 with it), then their components.
        auto quad_words = [&](const std::string& index) {
            std::vector<std::string> comps;
            const std::uint32_t first = n.imm[0], last = n.imm[0] + n.type.width - 1;
            for (std::uint32_t q = first / 4; q <= last / 4; ++q) {
                out_ << "const uvec4 " << r << "_q" << q << " = " << quad_of(n.aux, "uint(" + index + ")", q) << ";\n";
                indent(depth);
            }
            for (int c = 0; c < n.type.width; ++c) {
                const std::uint32_t w = n.imm[0] + c;
                comps.push_back(from_word(n.type.scalar, r + "_q" + std::to_string(w / 4) + "." + component(static_cast<int>(w % 4))));
            }
            return comps;
        };
        // The loaded value's components at element `index`.
        auto words_at = [&](const std::string& index) {
            if (!shared && n.op != Op::Atomic && in_quads(n.aux)) return quad_words(index);
            if (shared && n.op != Op::Atomic && shared_vector_width(n.aux)) {
                // The whole element in one access, then its components.
                out_ << "const uvec" << int{n.type.width} << " " << r << "_e = sh" << n.aux << "[uint(" << index << ")];\n";
                indent(depth);
                std::vector<std::string> comps;
                for (int c = 0; c < n.type.width; ++c) comps.push_back(from_word(n.type.scalar, r + "_e." + component(c)));
                return comps;
            }
            std::vector<std::string> comps;
            for (int c = 0; c < n.type.width; ++c)
                comps.push_back(from_word(n.type.scalar, word_of(shared, n.aux, index, n.imm[0] + c)));
            return comps;
        };
        if (unchecked && n.op != Op::Atomic) {
            const std::vector<std::string> comps = words_at(args[0]);
            out_ << type_name(n.type) << " " << r << " = " << vector_of(n.type, comps) << ";\n";
            return;
        }
        if (n.op != Op::Atomic) {
            // Loads clamp the index (always in bounds: an empty Array is bound at
            // offset 0 of a buffer of at least one word) and select zero outside,
            // without a branch, so that the compiler can issue many loads at once.
            const std::string last = shared ? std::to_string(k_.shared[n.aux].count - 1) + "u"
                                            : "rill_last" + std::to_string(n.aux);
            const std::string clamped = "int(min(uint(" + args[0] + "), " + last + "))";
            const std::vector<std::string> comps = words_at(clamped);
            // The load is a statement of its own: glslang turns a ?: around a
            // load into a branch, and the H100 then issues the loads one branch
            // at a time (a striped copy ran at 0.57 of the copy roof).
            out_ << type_name(n.type) << " " << r << "_w = " << vector_of(n.type, comps) << ";\n";
            indent(depth);
            const std::string inside = "uint(" + args[0] + ") < " + count_of(shared, n.aux);
            if (masked_loads() && n.type.scalar != Scalar::Bool) {
                const std::string mask = "(0u - uint(" + inside + "))";
                out_ << type_name(n.type) << " " << r << " = "
                     << (n.type.width == 1
                             ? from_word(n.type.scalar, "(" + to_word(n.type.scalar, r + "_w") + " & " + mask + ")")
                             : from_words(n.type, "(" + to_words(n.type, r + "_w") + " & uvec" + std::to_string(int{n.type.width}) +
                                                      "(" + mask + "))"))
                     << ";\n";
                return;
            }
            out_ << type_name(n.type) << " " << r << " = " << inside << " ? " << r << "_w : " << type_name(n.type) << "(0);\n";
            return;
        }
        out_ << type_name(n.type) << " " << r << " = " << type_name(n.type) << "(0);\n";
        indent(depth);
        out_ << (unchecked ? std::string("{\n") : "if (uint(" + args[0] + ") < " + count_of(shared, n.aux) + ") {\n");
        atomic(n, args[0], n.nargs > 1 ? args[1] : "", n.nargs > 2 ? args[2] : "", r, depth + 1);
        indent(depth);
        out_ << "}\n";
    }

    /// N elements as one N-word vector of the value type t, and back.
    static std::string from_words(Type t, const std::string& words) {
        switch (t.scalar) {
            case Scalar::Float: return "uintBitsToFloat(" + words + ")";
            case Scalar::Int: return type_name(t) + "(" + words + ")";
            case Scalar::Uint: return words;
            case Scalar::Bool: break;
        }
        RILL_UNREACHABLE("vector access of a bool stream");
    }
    static std::string to_words(Type t, const std::string& value) {
        switch (t.scalar) {
            case Scalar::Float: return "floatBitsToUint(" + value + ")";
            case Scalar::Int: return "uvec" + std::to_string(t.width) + "(" + value + ")";
            case Scalar::Uint: return value;
            case Scalar::Bool: break;
        }
        RILL_UNREACHABLE("vector access of a bool stream");
    }

    /// r = elements N k .. N k + N - 1 of Array n.aux: one access of the
    /// vector holding them (clamped into the stream, as scalar loads are),
    /// then zero for the components out of range, without a branch. In a
    /// kernel whose Arrays are unchecked (every element of the vector in
    /// range by construction, as the CPU backend's compiled kernels assume
    /// and RILL_CPU_VERIFY_UNCHECKED checks) the access alone, as its scalar
    /// loads are; RILL_GLSL_CHECKED_VECTOR_LOADS=1 checks them all the same
    /// (an A/B knob, docs/TUNING.md).
    void vector_load(const ir::Node& n, const std::string& r, const std::string& k, int depth) {
        const std::string p = std::to_string(n.aux), w = std::to_string(n.type.width), words = "uvec" + w;
        const bool checked = !unchecked_of(false, n.aux) || knobs().checked_vector_loads;
        out_ << "const uint " << r << "_k = " << (checked ? "min(uint(" + k + "), rill_last" + p + " / " + w + "u)" : "uint(" + k + ")")
             << ";\n";
        std::string part;
        const std::string vec = vector_holding(n.aux, r + "_k", n.type.width, part);
        std::string loaded = vec;
        if (static_cast<std::uint32_t>(n.type.width) < k_.params[n.aux].vector_width)  // pairs of a vector of 4
            loaded = "(" + part + " == 0u ? " + vec + ".xy : " + vec + ".zw)";
        indent(depth);
        if (!checked) {
            out_ << type_name(n.type) << " " << r << " = " << from_words(n.type, loaded) << ";\n";
            return;
        }
        out_ << "const " << words << " " << r << "_w = " << loaded << ";\n";
        indent(depth);
        // Out of range (k past the last vector) every component compares against 0.
        out_ << "const uint " << r << "_n = uint(" << k << ") == " << r << "_k ? rill_size" << p << " : 0u;\n";
        indent(depth);
        const std::string inside = "lessThan(" + words + "(" + r + "_k * " + w + "u) + " + words +
                                   (n.type.width == 4 ? "(0u, 1u, 2u, 3u)" : "(0u, 1u)") + ", " + words + "(" + r + "_n))";
        out_ << type_name(n.type) << " " << r << " = "
             << from_words(n.type, masked_loads() ? "(" + r + "_w & (" + words + "(0u) - " + words + "(" + inside + ")))"
                                                  : "mix(" + words + "(0u), " + r + "_w, " + inside + ")")
             << ";\n";
    }

    /// Elements N k .. of Array st.a = the vector st.b: one store of the whole
    /// vector where it lies in the stream, component by component at its end
    /// (and for pairs of a stream declared as vectors of 4).
    void vector_store(const ir::Stmt& st, ir::StmtId sid, int depth) {
        const ir::Node& v = k_.node(st.b);
        const std::string value = ref(st.b, depth), k = ref(st.c, depth);
        const std::string p = std::to_string(st.a), w = std::to_string(v.type.width), tag = "rs" + std::to_string(sid);
        const std::uint32_t vw = k_.params[st.a].vector_width;
        std::string part;
        const std::string vec = vector_holding(st.a, tag + "_k", v.type.width, part);
        indent(depth);
        out_ << "{ const uint " << tag << "_k = uint(" << k << ");\n";
        indent(depth);
        out_ << "if (" << tag << "_k <= rill_last" << p << " / " << w << "u) {\n";
        indent(depth + 1);
        out_ << "const uvec" << w << " " << tag << "_w = " << to_words(v.type, value) << ";\n";
        indent(depth + 1);
        if (static_cast<std::uint32_t>(v.type.width) == vw)
            out_ << "if (" << tag << "_k * " << w << "u + " << v.type.width - 1 << "u < rill_size" << p << ") " << vec << " = "
                 << tag << "_w;\n";
        else
            out_ << "if (false) {}\n";
        indent(depth + 1);
        out_ << "else for (uint c = 0u; c < " << w << "u; ++c) if (" << tag << "_k * " << w << "u + c < rill_size" << p
             << ") " << element_of_vectors(st.a, "(rill_offset" + p + " + " + tag + "_k * " + w + "u + c)", vw) << " = "
             << tag << "_w[c];\n";
        indent(depth);
        out_ << "} }\n";
    }

    // --- statements ------------------------------------------------------------

    void open_scope() { scopes_.emplace_back(); }
    void close_scope() {
        for (ExprId id : scopes_.back()) emitted_[id] = 0;
        scopes_.pop_back();
    }

    void store(const ir::Stmt& st, int depth) {
        const ir::Node& n = k_.node(st.b);
        const std::string v = ref(st.b, depth);
        const std::uint32_t p = st.a;
        for (int c = 0; c < n.type.width; ++c) {
            indent(depth);
            out_ << "s" << p << ".data[e" << p << " * " << k_.params[p].words << "u + " << st.c + c
                 << "u] = " << to_word(n.type.scalar, n.type.width == 1 ? v : v + "." + component(c)) << ";\n";
        }
    }

    /// The run of stores from list[at] on into one element of an Array in
    /// quads (a struct's fields, stored one after another): each uvec4 they
    /// fill is one wide store, the rest single words. Returns the run's last.
    std::size_t quad_store(const std::vector<ir::StmtId>& list, std::size_t at, int depth) {
        const ir::Stmt& head = k_.stmt(list[at]);
        const std::uint32_t p = head.a, words = k_.params[p].words;
        std::vector<std::string> word(words);
        std::size_t end = at;
        for (; end < list.size(); ++end) {
            const ir::Stmt& st = k_.stmt(list[end]);
            if (st.kind != StmtKind::ArrayStore || st.a != p || st.c != head.c) break;
            const ir::Node& v = k_.node(st.b);
            const std::string value = ref(st.b, depth);
            for (int c = 0; c < v.type.width; ++c)
                word[st.d + c] = to_word(v.type.scalar, v.type.width == 1 ? value : value + "." + component(c));
        }
        const std::string index = ref(head.c, depth), element = "uint(" + index + ")";
        indent(depth);
        if (unchecked_of(false, p)) out_ << "{\n";
        else out_ << "if (" << element << " < " << array_count(p) << ") {\n";
        for (std::uint32_t q = 0; q < words / 4; ++q) {
            const bool whole = !word[4 * q].empty() && !word[4 * q + 1].empty() && !word[4 * q + 2].empty() && !word[4 * q + 3].empty();
            if (whole) {
                indent(depth + 1);
                out_ << quad_of(p, element, q) << " = uvec4(" << word[4 * q] << ", " << word[4 * q + 1] << ", " << word[4 * q + 2]
                     << ", " << word[4 * q + 3] << ");\n";
                continue;
            }
            for (std::uint32_t c = 0; c < 4; ++c) {
                if (word[4 * q + c].empty()) continue;
                indent(depth + 1);
                out_ << quad_of(p, element, q) << "[" << c << "] = " << word[4 * q + c] << ";\n";
            }
        }
        indent(depth);
        out_ << "}\n";
        return end - 1;
    }

    void block(ir::BlockId b, int depth) {
        const std::vector<ir::StmtId>& list = k_.block(b);
        for (std::size_t at = 0; at < list.size(); ++at) {
            const ir::StmtId sid = list[at];
            const ir::Stmt& st = k_.stmt(sid);
            switch (st.kind) {
                case StmtKind::Nop:
                    break;
                case StmtKind::Def: {
                    const ir::Node& n = k_.node(st.a);
                    if (n.op == Op::ReadVar) {
                        indent(depth);
                        out_ << type_name(n.type) << " r" << st.a << " = v" << n.aux << ";\n";
                    } else {
                        in_place(st.a, depth);
                    }
                    break;
                }
                case StmtKind::ArrayStore: case StmtKind::SharedStore: {
                    const bool shared = st.kind == StmtKind::SharedStore;
                    if (!shared && in_quads(st.a)) {
                        at = quad_store(list, at, depth);
                        break;
                    }
                    const ir::Node& v = k_.node(st.b);
                    const std::string value = ref(st.b, depth), index = ref(st.c, depth);
                    indent(depth);
                    if (unchecked_of(shared, st.a)) out_ << "{\n";
                    else out_ << "if (uint(" << index << ") < " << count_of(shared, st.a) << ") {\n";
                    if (shared && shared_vector_width(st.a)) {  // the whole element in one store
                        indent(depth + 1);
                        out_ << "sh" << st.a << "[uint(" << index << ")] = " << to_words(v.type, value) << ";\n";
                    } else {
                        for (int c = 0; c < v.type.width; ++c) {
                            indent(depth + 1);
                            out_ << word_of(shared, st.a, index, st.d + c) << " = "
                                 << to_word(v.type.scalar, v.type.width == 1 ? value : value + "." + component(c)) << ";\n";
                        }
                    }
                    indent(depth);
                    out_ << "}\n";
                    break;
                }
                case StmtKind::ArrayStoreVector:
                    vector_store(st, sid, depth);
                    break;
                case StmtKind::Barrier:
                    if (st.a == ir::kSubgroupScope) {
                        // Subgroups of one invocation (no native subgroups) need none.
                        if (!opt_.native_subgroups) break;
                        indent(depth);
                        // Shared memory only: subgroupBarrier() orders every kind of memory.
                        out_ << (opt_.dialect == Dialect::Vulkan ? kSubgroupSharedBarrier
                                                                 : "subgroupMemoryBarrierShared(); subgroupBarrier()")
                             << ";\n";
                        break;
                    }
                    indent(depth);
                    // Only barriers that a global write may precede order buffers. Through
                    // Vulkan not groupMemoryBarrier(): it orders image and atomic-counter memory
                    // too, which NVIDIA's Vulkan driver makes expensive (the radix scatter, ten
                    // such barriers per tile: 3.7 against 2.3 ms per pass on the H100).
                    if (opt_.dialect == Dialect::Vulkan) out_ << (global_write_before_[sid] ? kBufferBarrier : kSharedBarrier) << ";\n";
                    // OpenGL's barrier() alone orders shared variables in compute
                    // shaders (what one invocation wrote before it, the others read
                    // after it); a memoryBarrierShared() before it is a fence of its
                    // own, as through Vulkan (RILL_GLSL_GL_SHARED_FENCE=1, the old
                    // way, for the A/B).
                    else if (!global_write_before_[sid]) out_ << (knobs().gl_shared_fence ? "memoryBarrierShared(); barrier();\n" : "barrier();\n");
                    else out_ << "groupMemoryBarrier(); barrier();\n";
                    break;
                case StmtKind::Fence:
                    // GLSL 4.50's memoryBarrierBuffer() is SPIR-V's device-scope
                    // acquire-release barrier on buffer memory; the buffers it orders
                    // are coherent (see fenced()).
                    indent(depth);
                    out_ << (opt_.fence_through_shared_atomic ? "atomicAdd(rill_fence_word, 0u);\n"
                                                              : "memoryBarrierBuffer();\n");
                    break;
                case StmtKind::Assign: {
                    const std::string v = ref(st.b, depth);
                    indent(depth);
                    out_ << "v" << st.a << " = " << v << ";\n";
                    break;
                }
                case StmtKind::Store:
                    store(st, depth);
                    break;
                case StmtKind::If: {
                    const std::string c = ref(st.a, depth);
                    indent(depth);
                    out_ << "if (" << c << ") {\n";
                    open_scope();
                    block(st.b, depth + 1);
                    close_scope();
                    if (!k_.block(st.c).empty()) {
                        indent(depth);
                        out_ << "} else {\n";
                        open_scope();
                        block(st.c, depth + 1);
                        close_scope();
                    }
                    indent(depth);
                    out_ << "}\n";
                    break;
                }
                case StmtKind::Loop: {
                    const std::string first = "first" + std::to_string(sid);
                    indent(depth);
                    out_ << "{ bool " << first << " = true; while (true) {\n";
                    open_scope();
                    if (!k_.block(st.b).empty()) {
                        indent(depth + 1);
                        out_ << "if (!" << first << ") {\n";
                        open_scope();
                        block(st.b, depth + 2);
                        close_scope();
                        indent(depth + 1);
                        out_ << "}\n";
                    }
                    indent(depth + 1);
                    out_ << first << " = false;\n";
                    block(st.a, depth + 1);
                    close_scope();
                    indent(depth);
                    out_ << "} }\n";
                    break;
                }
                case StmtKind::Break:
                    indent(depth);
                    out_ << "break;\n";
                    break;
                case StmtKind::Continue:
                    indent(depth);
                    out_ << "continue;\n";
                    break;
                case StmtKind::Return:
                    // The epilogue (output stores) runs on every path out of the kernel.
                    indent(depth);
                    out_ << "{\n";
                    open_scope();
                    block(k_.epilogue, depth + 1);
                    close_scope();
                    indent(depth + 1);
                    out_ << "return;\n";
                    indent(depth);
                    out_ << "}\n";
                    break;
            }
        }
    }

    /// Whether node `id` is a min or max (`op`), or reads a variable that one
    /// may have been assigned to, directly or through other variables: the
    /// driver sees through variables as through temporaries, so a min of a
    /// variable that holds a max is a clamp to it too (FloatMinMax::NativeButClamps).
    bool may_be(ExprId id, Op op) {
        const ir::Node& n = k_.nodes[id];
        if (n.op == op) return true;
        if (n.op != Op::ReadVar) return false;
        if (var_holds_.empty()) {
            // Per variable, bit 0: may hold a min, bit 1: a max; to a fixed point
            // through assignments of one variable to another.
            var_holds_.assign(k_.vars.size(), 0);
            for (bool changed = true; changed;) {
                changed = false;
                for (const ir::Stmt& st : k_.stmts) {
                    if (st.kind != StmtKind::Assign) continue;
                    const ir::Node& v = k_.nodes[st.b];
                    const std::uint8_t holds = v.op == Op::Min ? 1 : v.op == Op::Max ? 2 : v.op == Op::ReadVar ? var_holds_[v.aux] : 0;
                    if ((var_holds_[st.a] | holds) != var_holds_[st.a]) {
                        var_holds_[st.a] |= holds;
                        changed = true;
                    }
                }
            }
        }
        return (var_holds_[n.aux] & (op == Op::Min ? 1 : 2)) != 0;
    }

    const ir::Kernel& k_;
    const Signature& sig_;
    ShaderOptions opt_;
    std::vector<std::uint8_t> var_holds_;  // may_be's, made on first use
    std::ostringstream out_;
    std::vector<char> emitted_;
    std::vector<std::vector<ExprId>> scopes_;
    std::vector<char> global_write_before_;  // per statement: a Barrier that must order buffers too
    std::vector<std::uint32_t> shared_vector_width_;  // per shared array (shared_vector_widths)
};

}  // namespace

std::uint64_t options_key(const ShaderOptions& opt) {
    std::uint64_t h = disk_cache::hash_bytes(opt.float_atomic_add_extension.data(), opt.float_atomic_add_extension.size());
    const std::uint64_t fields[] = {static_cast<std::uint64_t>(opt.dialect), opt.workgroup_size, opt.native_subgroups,
                                    opt.fence_through_shared_atomic, opt.subgroup_partitioned, opt.reorderable_loads,
                                    opt.uint_bit_queries_as_int, opt.min_max_as_selects, static_cast<std::uint64_t>(opt.opaque_operands),
                                    opt.int_negation_as_subtraction, static_cast<std::uint64_t>(opt.float_min_max), knobs().masked_loads, knobs().signed_division,
                                    knobs().shared_words, knobs().unchecked, knobs().gl_shared_fence,
                                    knobs().element_calls, static_cast<std::uint64_t>(knobs().parameters_first + 1), knobs().checked_vector_loads,
                                    opt.subgroup_uniform_control_flow};
    return disk_cache::hash_bytes(fields, sizeof fields, h);
}

CompiledKey compiled_key(const ir::Kernel& k, const Signature& sig, const ShaderOptions& opt) {
    const std::uint64_t build = disk_cache::build_id();
    if (build == 0) return {};
    const std::uint64_t parts[] = {k.hash(), sig.hash(), options_key(opt)};
    const std::uint64_t slot = disk_cache::hash_bytes(k.name.data(), k.name.size(), disk_cache::hash_bytes(parts, sizeof parts));
    return {slot, disk_cache::hash_bytes(&build, sizeof build, slot)};
}

namespace {
constexpr std::uint32_t kBindingsFormat = 0x72697231;  // "rir1"
}

std::vector<std::uint32_t> binding_words(const Shader& sh) {
    std::vector<std::uint32_t> words{kBindingsFormat, static_cast<std::uint32_t>(sh.stream_binding.size()), sh.info_binding};
    words.insert(words.end(), sh.stream_binding.begin(), sh.stream_binding.end());
    return words;
}

std::size_t read_bindings(std::span<const std::uint8_t> entry, Shader& sh) {
    auto word = [&](std::size_t i) {
        std::uint32_t w = 0;
        std::memcpy(&w, entry.data() + 4 * i, 4);
        return w;
    };
    const std::size_t words = entry.size() / 4;
    if (words < 3 || word(0) != kBindingsFormat || words - 3 < word(1)) return 0;
    sh.info_binding = word(2);
    sh.stream_binding.resize(word(1));
    for (std::size_t i = 0; i < sh.stream_binding.size(); ++i) sh.stream_binding[i] = word(3 + i);
    return 4 * (3 + sh.stream_binding.size());
}

Shader generate(const ir::Kernel& k, const Signature& sig, const ShaderOptions& opt) {
    Shader sh = Generator(k, sig, opt).run();
    std::ostringstream name;
    name << k.name << "-" << std::hex << k.hash() << "-" << sig.hash()
         << (opt.dialect == Dialect::Vulkan ? ".vulkan.comp" : ".opengl.comp");
    sh.dump_name = name.str();
    detail::dump_file(sh.dump_name, sh.source);
    return sh;
}

Grid dispatch_grid(const ir::Kernel& k, std::uint64_t invocations, std::uint64_t max_x, std::uint64_t max_y) {
    std::uint64_t groups = 0;
    if (k.is_group_kernel()) {
        groups = invocations / k.workgroup_size;
    } else {
        // From 2^22 elements on, four per invocation keeps memory-bound kernels at
        // the bandwidth roof (measured on the H100, docs/PERFORMANCE.md).
        const std::uint64_t per_invocation = invocations >= (std::uint64_t{1} << 22) ? 4 : 1;
        groups = (invocations + kWorkgroupSize * per_invocation - 1) / (kWorkgroupSize * per_invocation);
    }
    // As few rows as the x limit allows, the groups spread evenly over them:
    // fewer than y padding workgroups (65536 groups under a limit of 65535:
    // 2 x 32768, where 65535 x 2 padded 65534).
    const std::uint64_t y = std::max<std::uint64_t>(1, (groups + max_x - 1) / max_x);
    const std::uint64_t x = (groups + y - 1) / y;
    if (y > max_y)
        throw Error("kernel '" + k.name + "': " + std::to_string(invocations) +
                    " invocations exceed the device's dispatch limits; " +
                    (k.is_group_kernel() ? "run fewer workgroups per call" : "split the output stream"));
    return Grid{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)};
}

std::string quote_source_line(const std::string& log, const std::string& source) {
    // shaderc: "name.comp:12: error", Mesa: "0:12(5): error", NVIDIA: "0(12) : error".
    int line = 0;
    const auto colon = log.find(':');
    if (std::sscanf(log.c_str(), "0:%d", &line) != 1 && std::sscanf(log.c_str(), "0(%d)", &line) != 1 &&
        colon != std::string::npos)
        line = std::atoi(log.c_str() + colon + 1);
    if (line <= 0) return {};
    std::istringstream in(source);
    std::string text;
    for (int i = 1; std::getline(in, text); ++i)
        if (i == line) return "\n  generated line " + std::to_string(line) + ": " + text;
    return {};
}

}  // namespace rill::glsl
