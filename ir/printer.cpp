#include <cmath>
#include <cstdio>
#include <sstream>

#include "ir/text.h"

namespace qlint::ir {

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same double, always marked as a float.
std::string print_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

template <typename T, typename Fn>
std::string join(const std::vector<T>& items, Fn&& fn) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += fn(items[i]);
  }
  return out;
}

std::string print_loc(const SourceLoc& loc) {
  if (!loc.known()) return "";
  return " loc(" + quote(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + "-" +
         std::to_string(loc.end_line) + ":" + std::to_string(loc.end_column) + ")";
}

std::string value_ref(const Value* v) { return "%" + v->name; }

std::string typed_value(const Value* v) { return value_ref(v) + " : " + print_type(v->type); }

class Printer {
 public:
  explicit Printer(const NodeAnnotator& annotate) : annotate_(annotate) {}

  std::string print(const Model& model) {
    out_ << "qlint-ir 1\n";
    out_ << "model " << quote(model.file) << "\n";
    if (model.language == Language::Cxx) out_ << "language \"cxx\"\n";
    for (const auto& m : model.modules) {
      out_ << "module " << quote(m.path) << " " << quote(m.class_name);
      if (!m.display.empty() || m.line != 0) out_ << " display " << quote(m.display) << " line " << m.line;
      out_ << "\n";
    }
    for (const auto& [file, lines] : model.source_lines)
      for (const auto& [line, text] : lines)
        out_ << "source " << quote(file) << " " << line << " " << quote(text) << "\n";
    for (const auto& f : model.functions) print_function(*f);
    return out_.str();
  }

 private:
  void print_function(const Function& f) {
    out_ << "\nfunc " << quote(f.method) << " in " << quote(f.module_path) << (f.entry ? " entry" : "") << " ("
         << join(f.body.params, typed_value) << ") {\n";
    print_nodes(f.body, 1);
    indent(1);
    out_ << "return (" << join(f.body.returns, value_ref) << ")\n}\n";
  }

  void print_nodes(const Block& block, int depth) {
    for (const auto& node : block.nodes) print_node(*node, depth);
  }

  void print_node(const Node& node, int depth) {
    indent(depth);
    if (!node.outputs.empty()) out_ << join(node.outputs, typed_value) << " = ";
    out_ << node.kind;
    if (!node.attrs.empty()) {
      out_ << "[" << join(node.attrs, [](const auto& kv) { return kv.first + "=" + print_attr(kv.second); }) << "]";
    }
    out_ << "(" << join(node.inputs, value_ref) << ")" << print_loc(node.loc);
    if (annotate_) {
      std::string note = annotate_(node);
      if (!note.empty()) out_ << "  # " << note;
    }
    if (node.blocks.empty()) {
      out_ << "\n";
      return;
    }
    out_ << " {\n";
    for (const auto& block : node.blocks) {
      indent(depth + 1);
      out_ << "block(" << join(block->params, typed_value) << ") {\n";
      print_nodes(*block, depth + 2);
      indent(depth + 2);
      out_ << "-> (" << join(block->returns, value_ref) << ")\n";
      indent(depth + 1);
      out_ << "}\n";
    }
    indent(depth);
    out_ << "}\n";
  }

  void indent(int depth) { out_ << std::string(2 * depth, ' '); }

  const NodeAnnotator& annotate_;
  std::ostringstream out_;
};

}  // namespace

std::string print_type(const Type& type) {
  using K = Type::Kind;
  switch (type.kind) {
    case K::Tensor: {
      if (type.dtype == DType::Unknown && !type.sizes) return "Tensor";
      std::string s = std::string("Tensor(") + dtype_name(type.dtype);
      if (type.sizes) s += ", [" + join(*type.sizes, [](int64_t d) { return std::to_string(d); }) + "]";
      return s + ")";
    }
    case K::Int:
      return "int";
    case K::Float:
      return "float";
    case K::Bool:
      return "bool";
    case K::Str:
      return "str";
    case K::None:
      return "NoneType";
    case K::Device:
      return "Device";
    case K::List:
      return "List[" + join(type.elements, print_type) + "]";
    case K::Tuple:
      return "Tuple[" + join(type.elements, print_type) + "]";
    case K::Optional:
      return "Optional[" + join(type.elements, print_type) + "]";
    case K::Module:
      return "Module<" + type.name + ">";
    case K::Other:
      return "Other(" + quote(type.name) + ")";
  }
  return "Other(\"?\")";
}

std::string print_attr(const Attr& attr) {
  using K = Attr::Kind;
  switch (attr.kind) {
    case K::Int:
      return std::to_string(attr.i);
    case K::Float:
      return print_double(attr.f);
    case K::Bool:
      return attr.b ? "true" : "false";
    case K::Str:
      return quote(attr.s);
    case K::None:
      return "None";
    case K::Ints:
      return "ints[" + join(attr.ints, [](int64_t v) { return std::to_string(v); }) + "]";
    case K::Floats:
      return "floats[" + join(attr.floats, print_double) + "]";
    case K::Tensor:
      return std::string("tensor<") + dtype_name(attr.dtype) + ", [" +
             join(attr.ints, [](int64_t v) { return std::to_string(v); }) + "]>[" + join(attr.floats, print_double) +
             "]";
  }
  return "None";
}

std::string print_model(const Model& model, const NodeAnnotator& annotate) { return Printer(annotate).print(model); }

}  // namespace qlint::ir
