// `qlint cxx`'s notes on the models it did not analyse: an archive that is not there or cannot
// be read, a model in a container, one loaded from different archives, a path to name with
// `--archive`. Each says the model's outputs were counted as unquantized, so that no output
// format (text on stderr, JSON `notes`, SARIF notifications) passes a skipped model as clean.
#pragma once

#include <vector>

#include "cli/render.h"
#include "ir/ir.h"

namespace qlint::cli {

// Who reads the notes: `qlint cxx`, which reads the archives `--archive` names, or the compiler
// plugin, which loads no LibTorch and reads none.
enum class NotesFor { QlintCxx, CompilerPlugin };

// The notes the C++ front end left on `model`'s nodes, in node order.
std::vector<ToolNote> model_notes(const ir::Model& model, NotesFor reader = NotesFor::QlintCxx);

}  // namespace qlint::cli
