// dropped-stub: a QuantStub whose call the model's graph kept without its
// tensor. torch.jit.trace of a float model records QuantStub.forward, an identity in float, as
// a call with no argument and no result, and lets the data flow around it: nothing in the
// archive says where quantization starts, so no hazard after the stub can be checked.
#include <algorithm>
#include <climits>
#include <sstream>
#include <vector>

#include "ir/input_file.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// The lines of the user's file that the function's other nodes come from: its first and last.
struct KnownLines {
  std::string file;
  int first = INT_MAX, last = 0;
};

KnownLines known_lines(const ir::Function& fn) {
  KnownLines known;
  ir::for_each_node(fn.body, [&](const ir::Node& n) {
    if (!n.loc.known() || (!known.file.empty() && n.loc.file != known.file)) return;
    known.file = n.loc.file;
    known.first = std::min(known.first, n.loc.line);
    known.last = std::max(known.last, n.loc.end_line > 0 ? n.loc.end_line : n.loc.line);
  });
  return known;
}

// The trace keeps no location for a call it dropped, but the rest of the function has one: the
// stub's call `self.quant(` is in the same Python function, between its `def` and its last
// traced line. Found only when it is written there once.
std::optional<ir::SourceLoc> dropped_call_location(const ir::Model& model, const ir::Function& fn,
                                                   const std::string& stub) {
  constexpr int kMaxLinesAboveTheFirstTraced = 200;
  const KnownLines known = known_lines(fn);
  if (known.file.empty()) return std::nullopt;
  const std::string call = "self." + stub.substr(stub.rfind('.') + 1) + "(";
  const auto content = ir::read_source_file(known.file, model.file);
  if (!content) return std::nullopt;
  std::vector<std::string> lines;  // lines[0] is line 1
  std::istringstream text(*content);
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  if (static_cast<size_t>(known.last) > lines.size()) return std::nullopt;
  int first = known.first;
  for (int line = known.first; line > 0 && line > known.first - kMaxLinesAboveTheFirstTraced; --line) {
    first = line;
    if (lines[line - 1].find("def ") != std::string::npos) break;
  }
  std::optional<ir::SourceLoc> found;
  for (int line = first; line <= known.last; ++line) {
    const std::string& here = lines[line - 1];
    size_t at = here.find(call);
    if (at == std::string::npos) continue;
    if (found || here.find(call, at + 1) != std::string::npos) return std::nullopt;  // more than one
    found = ir::SourceLoc{known.file, line, static_cast<int>(at) + 1, line, static_cast<int>(at + call.size())};
  }
  return found;
}

std::string message(const ir::Node& call) {
  return "the trace dropped `self." + call.inputs[0]->type.name +
         "`: torch.jit.trace of a float model records no quantization for a QuantStub, so the hazards after it "
         "cannot be checked; export with torch.jit.script(model), or trace after prepare/prepare_qat";
}

// A traced QAT model drops the stub's own call too, but calls the FakeQuantize inside it
// (`quant.activation_post_process`) on the tensor: that stub still quantizes. A prepared stub
// (it has such a child) whose FakeQuantize the trace does not call is one whose output the
// model never uses: the trace lost nothing.
bool quantizes_through_a_child(const analysis::Facts& facts, const std::string& stub) {
  for (const auto& call : facts.quant_calls())
    if (call.point.rfind(stub + ".", 0) == 0) return true;
  return facts.model().find_module(stub + ".activation_post_process") != nullptr;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    // A QuantStub call with `self` and nothing else: the tensor it should quantize is gone. (A
    // dropped DeQuantStub hides nothing of its own: one finding per model's stub is enough.)
    if (facts.stub_call(node) != analysis::StubKind::Quant || node.inputs.size() != 1) return;
    if (quantizes_through_a_child(facts, node.inputs[0]->type.name)) return;
    Diagnostic d = make_diagnostic(dropped_stub_rule(), fn, node, message(node));
    if (!d.loc.known())
      if (auto loc = dropped_call_location(facts.model(), fn, node.inputs[0]->type.name)) d.loc = *loc;
    out.push_back(d);
  });
  return out;
}

}  // namespace

const Rule& dropped_stub_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "dropped-stub";
    r.summary = "a QuantStub whose call the trace kept without its tensor";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A call of a QuantStub module that has no tensor argument in the model's graph. "
        "torch.jit.trace of a float model (before prepare or prepare_qat) records the stub's forward, an "
        "identity in float, as a call with no argument and no result.";
    r.doc.why =
        "The archive no longer says where quantization starts: the data flows around the stub. Every "
        "hazard after it (`x == 1` on the quantized tensor, a bool mask in `*`) is invisible to qlint and "
        "to the accelerator toolchain's own checks, until the quantized model gives wrong results.";
    r.doc.example =
        "    model = Model().eval()              # forward: x = self.quant(x); mask = x[:, -1] == 1\n"
        "    torch.jit.trace(model, example).save(\"model.pt\")   # the stub call is dropped";
    r.doc.fix =
        "Script the model, which keeps the stub calls:\n"
        "    torch.jit.script(model).save(\"model.pt\")\n"
        "or trace it after prepare/prepare_qat, where the stubs become FakeQuantize modules.";
    r.doc.fix_safety = "No automatic fix: the archive has lost what the stub quantized; export the model again.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
