// IR -> GLSL 4.50 compute shader, shared by the Vulkan and OpenGL backends.
//
// Streams are bound as `uint[]` storage buffers and read/written at word
// offsets, so the tight C++ layout (float3 = 12 bytes, structs without padding)
// needs no std430 padding. Everything that varies per call (domain, stream
// geometry, constants) lives in an "info" word array that the backend writes
// per dispatch (info_layout.h); a push constant / uniform gives its base.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rill/core/backend.h"
#include "rill/core/ir.h"

namespace rill::glsl {

/// How bindings are spelled for the target API.
enum class Dialect { Vulkan, OpenGL };

/// Invocations per workgroup of every generated shader (dispatch_grid uses it too).
inline constexpr std::uint32_t kWorkgroupSize = 256;

enum class OpaqueOperands { None, Min, MinAndMax };

enum class FloatMinMax : std::uint8_t { AsOtherTypes, Native, NativeButClamps };

struct ShaderOptions {
    Dialect dialect = Dialect::Vulkan;
    /// Workgroup size of element kernels (a group kernel has its own).
    std::uint32_t workgroup_size = kWorkgroupSize;
    /// GL_KHR_shader_subgroup is there; without it a subgroup is one invocation.
    bool native_subgroups = true;
    /// The GLSL extension that gives atomicAdd on float buffer elements
    /// ("GL_EXT_shader_atomic_float", "GL_NV_shader_atomic_float"), or empty:
    /// then float atomic adds loop on compare-exchange.
    std::string float_atomic_add_extension;
    /// memory_fence() as a sequentially consistent atomic on a shared word instead
    /// of memoryBarrierBuffer(): Mesa 22's lavapipe loses the rest of an
    /// invocation that runs OpMemoryBarrier in a loop that waits on another
    /// workgroup (GroupKernels.MemoryFenceHandsRecordsBetweenWorkgroups); on a
    /// CPU device such an atomic is a full fence for the compiler and the core.
    bool fence_through_shared_atomic = false;
    /// GL_NV_shader_subgroup_partitioned is there: subgroup_match is
    /// subgroupPartitionNV, one instruction, instead of a loop of shuffles.
    bool subgroup_partitioned = false;
    /// Buffers may be declared restrict and readonly. Off for Mesa's llvmpipe
    /// through OpenGL: there the driver may merge a load in a loop's condition
    /// with the same load after the loop, and lanes that left the loop early
    /// then read 0 (docs/SEMANTICS.md#driver-workarounds).
    bool reorderable_loads = true;
    /// bit_count, find_lsb and find_msb of uint values are computed on the same
    /// bits as int: NVIDIA's OpenGL compiler treats their int results as uint
    /// when the operand is uint (clamp(bitCount(0u), -7, 8) gave 8; float(findMSB(0u))
    /// 4294967295; docs/SEMANTICS.md#driver-workarounds).
    bool uint_bit_queries_as_int = false;
    /// min and max as the selects that define them (docs/SEMANTICS.md): NVIDIA's
    /// OpenGL compiler merges min(max(x, lo), hi) into a clamp that returns lo
    /// when lo > hi, where min/max give hi, and so also gets a clamp of a clamp
    /// to a disjoint range wrong (docs/SEMANTICS.md#driver-workarounds).
    bool min_max_as_selects = false;
    /// Which of min and max pass their operands through an identity the compiler
    /// cannot see through (x ^ (gl_NumWorkGroups.z - 1), rill dispatches one layer
    /// in z; docs/SEMANTICS.md#driver-workarounds). Min: Mesa 22's loop analysis
    /// takes the constant operand of a min in a loop's exit test as the loop's
    /// bound whichever way the counter moves, and unrolls For(5, min(x, 3), -1) to
    /// two trips where x = 0 needs five. MinAndMax: NVIDIA's OpenGL compiler (580)
    /// folds a clamp of a negated abs wrongly even as selects of a subtraction
    /// (clamp(-abs(i), -2, 0) = -2 for i = 1).
    OpaqueOperands opaque_operands = OpaqueOperands::None;
    /// An int's negation as 0 - x: NVIDIA's OpenGL compiler (580) gives
    /// max(-abs(i), -2) as -2 for i = +-1 (and so clamps of -abs(i)); the
    /// subtraction is compiled right (docs/SEMANTICS.md#driver-workarounds).
    bool int_negation_as_subtraction = false;
    /// Float min and max: as the other types' (AsOtherTypes), or GLSL's own
    /// whatever min_max_as_selects and opaque_operands say (Native), or GLSL's
    /// own but where a min takes a max or a max a min, the clamp pattern that
    /// NVIDIA's OpenGL compiler merges (NativeButClamps: its OpenGL backend's
    /// default, where the rays and PLOC's boxes ran 1.35-1.77x faster than with
    /// AsOtherTypes; RILL_GL_NATIVE_MIN_MAX chooses, docs/TUNING.md).
    FloatMinMax float_min_max = FloatMinMax::AsOtherTypes;
    /// Group kernels with subgroup operations declare main
    /// [[subgroup_uniform_control_flow]] (GL_EXT_subgroup_uniform_control_flow,
    /// VK_KHR_shader_subgroup_uniform_control_flow enabled): their subgroups
    /// reconverge after branches taken by some lanes, which core Vulkan does
    /// not promise (RILL_VK_SUBGROUP_UNIFORM_CONTROL_FLOW=1, docs/TUNING.md).
    bool subgroup_uniform_control_flow = false;
};

struct Shader {
    std::string source;
    /// Binding of each stream param (kNone for constants); the info buffer is last.
    std::vector<std::uint32_t> stream_binding;
    std::uint32_t info_binding = 0;
    /// "<kernel>-<ir hash>-<signature hash>.<vulkan|opengl>.comp": the RILL_DUMP file name.
    std::string dump_name;
};

/// A key of all that shapes the generated code besides the kernel's IR and its
/// signature: every field of `opt` and the generator's knobs (RILL_GLSL_*,
/// docs/TUNING.md). With rill's build, the IR's and the signature's hashes, it
/// names a kernel's compiled code in a disk cache without generating it again.
/// A field added to ShaderOptions goes into it.
std::uint64_t options_key(const ShaderOptions& opt);

/// Where this build may find a kernel's compiled code again without generating
/// its GLSL: `slot` names the entry (the kernel's name, its IR's and signature's
/// hashes and options_key(opt)), `key` is the slot with rill's build
/// (disk_cache::build_id) and is what the entry must carry, so that a rebuild
/// finds another build's entry there, misses and writes over it (one entry a
/// kernel, however often rill is rebuilt). Both 0 where the build has no
/// build-id. A backend adds to both what else its compiled code depends on
/// (the device, its compiler's options).
struct CompiledKey {
    std::uint64_t slot = 0, key = 0;
};
CompiledKey compiled_key(const ir::Kernel& k, const Signature& sig, const ShaderOptions& opt);

/// A shader's bindings as words, to keep beside its compiled code in a cache
/// entry; read_bindings takes them back from the front of the entry's bytes
/// into `sh` and returns how many bytes they took, 0 where they do not parse.
std::vector<std::uint32_t> binding_words(const Shader& sh);
std::size_t read_bindings(std::span<const std::uint8_t> entry, Shader& sh);

/// Generates the shader and, when RILL_DUMP is set, writes it as dump_name.
Shader generate(const ir::Kernel& k, const Signature& sig, const ShaderOptions& opt);

/// Workgroups to launch for `elements` invocations of a generated shader: large
/// domains give each invocation several elements (the shader's grid-stride
/// loop covers any grid), and the x count stays within the device's limit.
struct Grid {
    std::uint32_t x = 0, y = 0;
};
/// A group kernel gets exactly its workgroups (spread evenly over y when x is
/// not enough; the shader skips the fewer than y padding ones). Throws rill::Error naming the kernel
/// when even that exceeds the limits.
Grid dispatch_grid(const ir::Kernel& k, std::uint64_t invocations, std::uint64_t max_x, std::uint64_t max_y);

/// "\n  generated line N: <text>" for the line a compiler log points at
/// (shaderc, Mesa and NVIDIA formats), or "" when it names none.
std::string quote_source_line(const std::string& log, const std::string& source);

}  // namespace rill::glsl
