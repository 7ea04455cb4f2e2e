// How qlint shows paths and source locations to users, and the version of its JSON formats:
// shared by every layer that renders something (the simulator's report, the command line).
#pragma once

#include <string>

#include "ir/ir.h"

namespace qlint::ir {

// Bumped on any incompatible change of qlint's JSON output; the schema is in
// docs/json-output.md.
constexpr int kJsonSchemaVersion = 1;

// A path as the user would like to read it: relative to the working directory when the file
// lies under it (TorchScript records absolute paths), unchanged otherwise.
std::string display_path(const std::string& path);

// "file:line:col" for a known location (the path as display_path shows it), else
// "(no source location)".
std::string display_location(const SourceLoc& loc);

// A function's name as the user's source spells it: without the `__qlint_float_N` suffixes of
// the copies an earlier `--fix` round made to pass float values in (`net.sa1.forward`).
std::string source_function_name(const std::string& name);

// The first non-blank line of a message (library errors append backtraces and notes).
std::string first_line(const std::string& text);

}  // namespace qlint::ir
