#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/float_shadow.h"
#include "ir/ir.h"

namespace qlint {

enum class Severity { Note, Warning, Error };

const char* severity_name(Severity severity);

// One graph edit of a fix: data naming IR nodes. What each kind does to a model's graph and to
// the user's Python source lives in one file, rewriter/edits/<kind>.cpp.
struct Edit {
  enum class Kind {
    // Recompute the value feeding `node`'s input `operand` from the float input of the quant
    // call `stub_call` (its float shadow: `shadow` says which nodes and which calls), so the
    // consumer sees exact float values; with `quantize_after_reroot`, then pass the float value
    // through the new stub `new_stub`. Float results are unchanged: the stub is the identity.
    Reroot,
    // Pass `node`'s input `operand` through the new stub `new_stub` (cast to float first when
    // `cast_to_float`).
    QuantizeOperand,
    // Give the quant call `node` the new stub `new_stub` of its own.
    CloneStub,
    // Replace `x == c` by `logical_not(x == 0)` (`x != c` by `x == 0`), `operand` being x.
    // Equal only while x holds nothing but 0 and c.
    CompareWithZero,
    // A traced QAT model has no plain QuantStub to clone (its stubs are calibrated FakeQuantize
    // modules): pass `node`'s input `operand` (cast to float first when `cast_to_float`)
    // through a new fake quant, `fake_quant` says with which parameters; for a quant call
    // (`fake_quant.replaces_call`), its input goes through the new one instead of the call.
    // The new fake quant is a clone of the model's own FakeQuantize module at `template_stub`,
    // registered as `new_stub` on `new_stub_owner` and called like the others, so the model's
    // disable_fake_quant, observers and re-calibration reach it; without such a module (or a
    // module to own it), an in-graph fake quantize op, which they do not reach. Float results
    // are unchanged: a fake quant is the identity in the model's float mode.
    NewFakeQuant,
    // Unroll the `for` loop `node`, which runs `trips` times (a constant count, or the length
    // of a list literal): each iteration's body in sequence, so a stub it applies becomes one
    // call per iteration, each of which can get a stub of its own. Float results are
    // unchanged: the same ops run in the same order.
    UnrollLoop,
  };
  Kind kind = Kind::Reroot;
  const ir::Node* node = nullptr;
  int operand = 0;
  const ir::Node* stub_call = nullptr;  // Reroot
  analysis::FloatShadowPlan shadow;     // Reroot: what to recompute in float, across which calls
  bool cast_to_float = false;           // QuantizeOperand
  // QuantizeOperand in a free function, which has no module to hold a stub: the one call of it
  // (in a module method) is inlined first, and the new stub belongs to that method's module.
  // Reroot: the shadow's inline_call (a helper called from several places), inlined first.
  const ir::Node* inline_call = nullptr;
  // QuantizeOperand in a free function two or more calls away from any module method
  // (`transform_preds` called from `get_final_preds`, called from `forward`): after
  // `inline_call`, each of these calls, in the body inlined just before, is inlined too.
  std::vector<const ir::Node*> inline_within;
  int64_t trips = 0;                   // UnrollLoop
  bool quantize_after_reroot = false;  // Reroot: then quantize the rerooted value (a float mask)
  // A stub the edit creates: a clone of the stub at module path `template_stub`, registered as
  // `new_stub` on the module at `new_stub_owner` ("" for the root). Rules give the base name;
  // rules::run_all makes it unique in the model, once, and every later step uses it as it is.
  std::string new_stub;
  std::string new_stub_owner;
  std::string template_stub;

  bool creates_stub() const { return !new_stub.empty(); }

  // NewFakeQuant: the new op's range is the model's own (that of the fake quant the value
  // meets); its scale is exact for a 0/1 mask, or unset until --fix measures the value on the
  // inputs (symmetric, as the simulator's MinMaxObserver).
  struct FakeQuant {
    int64_t quant_min = -32768;
    int64_t quant_max = 32767;
    bool mask = false;  // a 0/1 mask: scale 1 and zero point 0 keep 0 and 1 exact
    // Integers cast to float (cell indices, counts, class ids): scale 1 keeps them exact where
    // their range fits the integer range; the rewriter measures the range.
    bool whole_numbers = false;
    // The graph leaves open that the value holds whole numbers (a forward input, sums and
    // products of such): inputs that show only whole numbers are believed, and scale 1 keeps
    // them. Not so for a quotient or a layer's output, whole on some inputs by chance.
    bool whole_if_observed = false;
    int64_t whole_up_to = 0;  // the largest whole number measured, when scale 1 keeps them all
    int64_t whole_from = 0;   // the smallest (0, or below for a sign's -1)
    std::optional<double> scale;
    int64_t zero_point = 0;
    // The range the scale was computed from (a mask's is [0, 1]): a cloned FakeQuantize's
    // observer starts from it, so re-enabled observation goes on from this scale.
    double observed_min = 0;
    double observed_max = 1;
    bool replaces_call = false;
    // The ordinary module whose output fake quant this one stands beside for one call ("proj"), or "".
    std::string output_of_module;
    std::string scale_source;  // for the summary: "exact for a 0/1 mask", "calibrated on 1 input batch"
  };
  FakeQuant fake_quant;
};

// In a fix's description, replaced by the new stub's final name (`self.{stub}`).
constexpr const char* kNewStubPlaceholder = "{stub}";

// Ruff's three levels: safe fixes keep float results identical and are applied by --fix;
// unsafe ones may change float results and need --unsafe-fixes; display-only ones are shown.
enum class Applicability { Safe, Unsafe, DisplayOnly };

struct Fix {
  Applicability applicability = Applicability::Safe;
  std::string description;  // "compute the comparison on the float input of self.quant"
  std::vector<Edit> edits;
};

struct Diagnostic {
  std::string rule;
  Severity severity = Severity::Warning;
  std::string message;  // what breaks and how to fix it, one or two sentences
  std::vector<std::string> notes;
  const ir::Function* function = nullptr;
  const ir::Node* node = nullptr;
  // The node whose simulated behaviour proves the hazard, when it is not `node` itself
  // (shared-stub-mask reports at the stub; the mask comparison shows the damage).
  const ir::Node* evidence_node = nullptr;
  // sim-divergence of a model output: its index (simulation attribution finds its causes).
  int evidence_output = -1;
  ir::SourceLoc loc;       // the user's Python range; unknown without debug info
  std::vector<Fix> fixes;  // empty when qlint cannot rewrite this one
};

// The fix --fix (or --diff) applies for a diagnostic: its first safe one, or with
// --unsafe-fixes its first safe or unsafe one. Null when there is none.
inline const Fix* first_applicable_fix(const Diagnostic& d, bool unsafe_fixes) {
  for (const auto& fix : d.fixes)
    if (fix.applicability == Applicability::Safe || (unsafe_fixes && fix.applicability == Applicability::Unsafe))
      return &fix;
  return nullptr;
}

// A fix that waits for --unsafe-fixes: where, for which finding, and what it would do (its
// description says why it is unsafe).
struct HeldBackFix {
  std::string rule;
  ir::SourceLoc loc;
  std::string description;
};

// The unsafe fixes that wait for --unsafe-fixes: one per finding that has no safe fix.
inline std::vector<HeldBackFix> unsafe_fixes_held_back(const std::vector<Diagnostic>& diagnostics, bool unsafe_fixes) {
  std::vector<HeldBackFix> held;
  if (unsafe_fixes) return held;
  for (const auto& d : diagnostics) {
    if (first_applicable_fix(d, false) != nullptr) continue;
    for (const auto& f : d.fixes)
      if (f.applicability == Applicability::Unsafe) {
        held.push_back({d.rule, d.loc, f.description});
        break;
      }
  }
  return held;
}

}  // namespace qlint
