// `qlint cxx`'s notes on the models it did not analyse: an archive that is not there or cannot
// be read, a model in a container, one loaded from different archives, a path to name with
// `--archive`. Each says the model's outputs were counted as unquantized, so that no output
// format (text on stderr, JSON `notes`, SARIF notifications) passes a skipped model as clean.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/render.h"
#include "ir/ir.h"

namespace qlint::cli {

// Who reads the notes: `qlint cxx`, which reads the archives `--archive` names, or the compiler
// plugin, which loads no LibTorch and reads none.
enum class NotesFor { QlintCxx, CompilerPlugin };

// Bare names (`model_path`) that hold the archive path of loads in several functions of the
// checked files (`Det::load`, `Reid::load`), with those functions' qualified names for them. Across
// files an `--archive` by the bare name would fit them all and is applied to none, so the notes
// give the qualified name (public C++ round 23: one wasted run on every project with two models);
// in one file it is applied to them all, so the notes say so and give the qualified name for
// models that differ (public C++ round 25: six helpers, each running another model as `model`).
struct SharedArchiveName {
  std::set<std::string> functions;
  bool bare_applies = false;  // one file holds them all
};
using SharedArchiveNames = std::map<std::string, SharedArchiveName>;
SharedArchiveNames shared_archive_names(const std::vector<const ir::Model*>& models);

// The notes the C++ front end left on `model`'s nodes, in node order.
std::vector<ToolNote> model_notes(const ir::Model& model, NotesFor reader = NotesFor::QlintCxx,
                                  const SharedArchiveNames& shared = {});

}  // namespace qlint::cli
