// eq-nonzero-const: `x == c` / `x != c` where x carries quantization and c is nonzero.
// Symmetric quantization represents 0 exactly but c only as the nearest multiple of the
// scale, so the comparison that was exact in float is (almost) never true once quantized.
#include <cmath>
#include <cstdio>

#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

bool is_equality(const std::string& kind) {
  return kind == "aten::eq" || kind == "aten::ne" || kind == "aten::eq_" || kind == "aten::ne_";
}

bool any_nonzero(const std::vector<double>& values) {
  for (double v : values)
    if (v != 0) return true;
  return false;
}

std::string format_number(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string describe_constant(const std::vector<double>& values) {
  if (values.size() == 1) return format_number(values[0]);
  return "a nonzero constant tensor";
}

std::string message(const analysis::Facts& facts, const ir::Node& node, const ir::Value* quantized,
                    const std::vector<double>& constant) {
  std::string op = operator_spelling(node.kind);
  std::string text = operand_text(facts.model(), quantized);
  std::string subject = text.empty() ? "a value" : text;
  std::string c = describe_constant(constant);
  return "`" + op + "` compares " + subject + " quantized by " + describe_stubs(facts, quantized) +
         " with " + c + ", which quantization only approximates (1.0 may become 1.0007), so it is "
         "almost never " + (op == "==" ? "true" : "false") +
         "; compare the float tensor before the QuantStub, or compare with 0 if the values are "
         "only 0 and " + (constant.size() == 1 ? c : "that constant");
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  for_each_model_node(facts.model(), [&](const ir::Function& fn, const ir::Node& node) {
    if (!is_equality(node.kind) || node.inputs.size() != 2) return;
    for (int side = 0; side < 2; ++side) {
      const ir::Value* operand = node.inputs[side];
      auto constant = constant_values(node.inputs[1 - side]);
      if (!facts.quantized(operand) || !constant || !any_nonzero(*constant)) continue;
      out.push_back(make_diagnostic(eq_nonzero_const_rule(), fn, node,
                                    message(facts, node, operand, *constant)));
      return;
    }
  });
  return out;
}

}  // namespace

const Rule& eq_nonzero_const_rule() {
  static const Rule rule{
      "eq-nonzero-const",
      "`==`/`!=` between a quantized value and a nonzero constant",
      Severity::Warning,
      check,
      {
          "An equality comparison (`==`, `!=`, `torch.eq`, `torch.ne`) between a value that "
          "carries quantization error (it passed a QuantStub or another quant point, also after "
          "a DeQuantStub) and a nonzero constant.",
          "A symmetric int16/int8 quantizer stores `round(x / scale) * scale`. Zero is exact, but "
          "a nonzero constant c is replaced by the nearest multiple of the scale. With int16 and "
          "data up to 60.5 the scale is 0.0018463, so 1.0 becomes 1.0007 and `x == 1` is never "
          "true: a mask built this way is all False and everything it gates becomes zero. The "
          "float model is correct, so nothing fails until the model runs on the accelerator.",
          "    x = self.quant(x)\n"
          "    mask = x[:, :, :, -1] == 1        # always False once quantized\n"
          "    out = x * mask[:, :, :, None]",
          "Compute the comparison on the float tensor before the QuantStub (exact in float) and "
          "pass the mask through its own QuantStub:\n"
          "    mask = (x[:, :, :, -1] == 1).to(torch.float)\n"
          "    data = self.quant(x)\n"
          "    mask = self.quant_mask(mask)\n"
          "If the compared values are only ever 0 and c, `torch.logical_not(x == 0)` is exact "
          "too, since 0 survives quantization.",
          "Moving the comparison before the stub is safe: the float model computes the same "
          "values. Rewriting to `logical_not(x == 0)` is unsafe: it changes the float result "
          "for any value other than 0 and c.",
      }};
  return rule;
}

}  // namespace qlint::rules
