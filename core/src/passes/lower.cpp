// How a traced kernel becomes the IR every backend compiles. Read top to bottom.
#include <cstdlib>
#include <sstream>

#include "rill/core/launch.h"
#include "rill/core/passes.h"

namespace rill::ir {

namespace {
void log_stage(const Kernel& k, const char* stage) {
    if (!std::getenv("RILL_DUMP")) return;
    std::ostringstream name;
    name << k.name << "-" << std::hex << k.hash() << "." << stage << ".ir.txt";
    detail::dump_file(name.str(), print(k));
}
}  // namespace

Kernel lower(const Kernel& traced) {
    validate(traced);
    log_stage(traced, "0-traced");
    check_barriers(traced);
    Kernel k = forward_variables(traced);
    validate(k);
    log_stage(k, "1-forwarded");
    return k;
}

}  // namespace rill::ir
