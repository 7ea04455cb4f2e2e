#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint {

enum class Severity { Note, Warning, Error };

const char* severity_name(Severity severity);

struct Diagnostic {
  std::string rule;
  Severity severity = Severity::Warning;
  std::string message;           // what breaks and how to fix it, one or two sentences
  std::vector<std::string> notes;
  const ir::Function* function = nullptr;
  const ir::Node* node = nullptr;
  // The node whose simulated behaviour proves the hazard, when it is not `node` itself
  // (shared-stub-mask reports at the stub; the mask comparison shows the damage).
  const ir::Node* evidence_node = nullptr;
  ir::SourceLoc loc;             // the user's Python range; unknown without debug info
};

}  // namespace qlint
