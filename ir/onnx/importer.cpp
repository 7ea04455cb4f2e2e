#include "ir/onnx/importer.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "ir/aten_schemas.h"
#include "ir/input_file.h"
#include "ir/traced_stack.h"
#include "ir/verifier.h"

namespace qlint::onnx {

namespace {

using ir::DType;
namespace pb = ::onnx;

// A structural problem the checker lets through; import_onnx words it for the user.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Up to this many elements of a constant are kept in the IR (scales, zero points, thresholds,
// shapes); larger ones are weights, kept by shape only.
constexpr int64_t kKeptElements = 64;

DType dtype_of(int32_t onnx_type) {
  switch (onnx_type) {
    case pb::TensorProto::FLOAT:
      return DType::Float32;
    case pb::TensorProto::UINT8:
      return DType::UInt8;
    case pb::TensorProto::INT8:
      return DType::Int8;
    case pb::TensorProto::INT16:
      return DType::Int16;
    case pb::TensorProto::INT32:
      return DType::Int32;
    case pb::TensorProto::INT64:
      return DType::Int64;
    case pb::TensorProto::BOOL:
      return DType::Bool;
    case pb::TensorProto::FLOAT16:
      return DType::Float16;
    case pb::TensorProto::BFLOAT16:
      return DType::BFloat16;
    case pb::TensorProto::DOUBLE:
      return DType::Float64;
    default:
      return DType::Unknown;
  }
}

// The element count of a tensor of these dims; nullopt when a dim is negative or the count is
// past any real tensor (a hostile file's dims).
std::optional<int64_t> element_count(const google::protobuf::RepeatedField<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && count > (int64_t{1} << 50) / d)) return std::nullopt;
    count *= d;
  }
  return count;
}

template <typename T>
std::optional<std::vector<double>> raw_values(const std::string& raw, int64_t count) {
  if (raw.size() != static_cast<size_t>(count) * sizeof(T)) return std::nullopt;
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    out[static_cast<size_t>(i)] = static_cast<double>(v);
  }
  return out;
}

template <typename Field>
std::optional<std::vector<double>> field_values(const Field& field, int64_t count) {
  if (field.size() != count) return std::nullopt;
  return std::vector<double>(field.begin(), field.end());
}

// A small tensor's values (stored in the file itself, in one of the types a scale, a zero point
// or a threshold has), else nullopt: large, external, or of another type.
std::optional<std::vector<double>> small_tensor_values(const pb::TensorProto& t) {
  auto count = element_count(t.dims());
  if (!count || *count > kKeptElements || t.data_location() == pb::TensorProto::EXTERNAL) return std::nullopt;
  const bool raw = t.has_raw_data();
  switch (t.data_type()) {
    case pb::TensorProto::FLOAT:
      return raw ? raw_values<float>(t.raw_data(), *count) : field_values(t.float_data(), *count);
    case pb::TensorProto::DOUBLE:
      return raw ? raw_values<double>(t.raw_data(), *count) : field_values(t.double_data(), *count);
    case pb::TensorProto::INT64:
      return raw ? raw_values<int64_t>(t.raw_data(), *count) : field_values(t.int64_data(), *count);
    case pb::TensorProto::INT32:
      return raw ? raw_values<int32_t>(t.raw_data(), *count) : field_values(t.int32_data(), *count);
    case pb::TensorProto::INT16:
      return raw ? raw_values<int16_t>(t.raw_data(), *count) : field_values(t.int32_data(), *count);
    case pb::TensorProto::INT8:
      return raw ? raw_values<int8_t>(t.raw_data(), *count) : field_values(t.int32_data(), *count);
    case pb::TensorProto::UINT8:
    case pb::TensorProto::BOOL:
      return raw ? raw_values<uint8_t>(t.raw_data(), *count) : field_values(t.int32_data(), *count);
    default:
      return std::nullopt;
  }
}

ir::Attr tensor_attr(const pb::TensorProto& t) {
  ir::Attr a;
  a.kind = ir::Attr::Kind::Tensor;
  a.dtype = dtype_of(t.data_type());
  a.ints.assign(t.dims().begin(), t.dims().end());
  if (auto values = small_tensor_values(t)) a.floats = std::move(*values);
  return a;
}

ir::Type type_of(const pb::TypeProto& type) {
  if (!type.has_tensor_type())
    return ir::Type::other("ONNX " + std::string(type.has_sequence_type()   ? "sequence"
                                                 : type.has_optional_type() ? "optional"
                                                                            : "value"));
  ir::Type t = ir::Type::tensor(dtype_of(type.tensor_type().elem_type()));
  if (type.tensor_type().has_shape()) {
    std::vector<int64_t> sizes;
    for (const auto& d : type.tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return t;
      sizes.push_back(d.dim_value());
    }
    t.sizes = std::move(sizes);
  }
  return t;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Parts are attribute names or the indices of a Sequential or ModuleList (`detect.m.2`).
bool is_module_path(const std::string& path) {
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '.')) {
    const bool index =
        !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!is_identifier(part) && !index) return false;
  }
  return !path.empty() && path.back() != '.';
}

// A module path made of a name the exporter gave (`quant.activation_post_process.scale` without
// its `.scale`), or "" when the name is none (`onnx::QuantizeLinear_19`, `/Constant_output_0`).
std::string module_path_of(const std::string& scale_name) {
  const std::string suffix = ".scale";
  if (scale_name.size() <= suffix.size() ||
      scale_name.compare(scale_name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return "";
  std::string path = scale_name.substr(0, scale_name.size() - suffix.size());
  return is_module_path(path) ? path : "";
}

// A fake-quant module of PyTorch's QAT: it observes the output of the module that holds it.
bool is_fake_quant_module(const std::string& part) {
  const std::string observer = "activation_post_process";
  if (part == "weight_fake_quant" || part == observer) return true;
  return part.size() > observer.size() + 1 && part.compare(0, observer.size() + 1, observer + "_") == 0 &&
         std::all_of(part.begin() + observer.size() + 1, part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The module whose forward ran a node, from the scope PyTorch's exporter writes into node
// names: `/encoder/layers.0/self_attn/MatMul` ran in `encoder.layers.0.self_attn`, `/Equal` in
// the root module. A QDQ pair's scope is its fake-quant module, which belongs to the module
// whose output it quantizes (`/head/activation_post_process/QuantizeLinear`: `head`). nullopt
// for a name of another form (another exporter's, or a hand-made one).
std::optional<std::string> module_of_node_name(const std::string& name) {
  if (name.size() < 2 || name[0] != '/') return std::nullopt;
  std::vector<std::string> scope;
  for (size_t begin = 1, last = name.rfind('/'); begin < last;) {
    const size_t end = name.find('/', begin);
    scope.push_back(name.substr(begin, end - begin));
    if (!is_module_path(scope.back())) return std::nullopt;
    begin = end + 1;
  }
  if (!scope.empty() && is_fake_quant_module(scope.back())) scope.pop_back();
  // Inside a Sequential or ModuleList the exporter writes the whole path again:
  // `/encoder/encoder.1/encoder.1.0/Equal` ran in `encoder.1.0`.
  std::string path;
  for (const std::string& part : scope)
    path = part.compare(0, path.size() + 1, path + ".") == 0 && !path.empty() ? part
                                                                              : (path.empty() ? "" : path + ".") + part;
  return path;
}

// The ATen op an ONNX op was exported from, and the overload of it that takes tensors: the one
// whose schema the analyses read operands by.
struct AtenOp {
  const char* kind;
  const char* overload;
  size_t operands;
};

const std::map<std::string, AtenOp>& elementwise_ops() {
  static const std::map<std::string, AtenOp> ops = {
      {"Add", {"aten::add", "Tensor", 2}},
      {"Sub", {"aten::sub", "Tensor", 2}},
      {"Mul", {"aten::mul", "Tensor", 2}},
      {"Div", {"aten::div", "Tensor", 2}},
      {"Pow", {"aten::pow", "Tensor_Tensor", 2}},
      {"MatMul", {"aten::matmul", "", 2}},
      {"Equal", {"aten::eq", "Tensor", 2}},
      {"Greater", {"aten::gt", "Tensor", 2}},
      {"Less", {"aten::lt", "Tensor", 2}},
      {"GreaterOrEqual", {"aten::ge", "Tensor", 2}},
      {"LessOrEqual", {"aten::le", "Tensor", 2}},
      {"And", {"aten::logical_and", "", 2}},
      {"Or", {"aten::logical_or", "", 2}},
      {"Xor", {"aten::logical_xor", "", 2}},
      {"Not", {"aten::logical_not", "", 1}},
      {"Neg", {"aten::neg", "", 1}},
      {"Abs", {"aten::abs", "", 1}},
      {"Relu", {"aten::relu", "", 1}},
      {"Sigmoid", {"aten::sigmoid", "", 1}},
      {"Tanh", {"aten::tanh", "", 1}},
      {"Exp", {"aten::exp", "", 1}},
      {"Log", {"aten::log", "", 1}},
      {"Sqrt", {"aten::sqrt", "", 1}},
      {"Floor", {"aten::floor", "", 1}},
      {"Ceil", {"aten::ceil", "", 1}},
      {"Round", {"aten::round", "", 1}},
      {"Sign", {"aten::sign", "", 1}},
      {"Reciprocal", {"aten::reciprocal", "", 1}},
      {"IsNaN", {"aten::isnan", "", 1}},
      {"Where", {"aten::where", "self", 3}},
      {"Max", {"aten::maximum", "", 2}},
      {"Min", {"aten::minimum", "", 2}},
      {"CastLike", {"aten::type_as", "", 2}},
      {"Expand", {"aten::expand", "", 2}},
      {"Reshape", {"aten::reshape", "", 2}},
      {"NonZero", {"aten::nonzero", "", 1}},
      // A shape or a size is no data from its tensor (`x.std()` divides by one).
      {"Shape", {"aten::size", "", 1}},
      {"Size", {"aten::numel", "", 1}},
  };
  return ops;
}

class Importer {
 public:
  Importer(pb::ModelProto& proto, const std::string& path) : proto_(proto) {
    model_.file = path;
    model_.language = ir::Language::Python;
  }

  ir::Model run() {
    model_.modules.push_back({"", proto_.graph().name().empty() ? "ONNX graph" : proto_.graph().name(), "", 0});
    fn_ = &model_.add_function("", "forward");
    fn_->entry = true;
    self_ = fn_->add_param(fn_->body, "self", ir::Type::module(""));
    collect_types(proto_.graph());
    std::set<std::string> initializers;
    for (const auto& t : proto_.graph().initializer()) initializers.insert(t.name());
    for (const auto& input : proto_.graph().input()) {
      if (initializers.count(input.name())) continue;  // IR < 4: initializers are listed as inputs too
      ir::Value* v =
          fn_->add_param(fn_->body, is_identifier(input.name()) ? input.name() : fresh_name(), type_of(input.type()));
      v->generated_name = !is_identifier(input.name());
      define(input.name(), v);
    }
    lower_graph(proto_.graph(), fn_->body);
    model_.source_lines = std::move(lines_);
    return std::move(model_);
  }

 private:
  void collect_types(const pb::GraphProto& g) {
    for (const auto& list : {&g.input(), &g.output(), &g.value_info()})
      for (const auto& info : *list)
        if (info.has_type()) types_[info.name()] = type_of(info.type());
  }

  std::string fresh_name() { return "v" + std::to_string(++counter_); }

  void define(const std::string& name, ir::Value* v) {
    if (!values_.emplace(name, v).second)
      throw Malformed("the value `" + ir::printable(name, 80) + "` is defined twice");
    if (!scopes_.empty()) scopes_.back().push_back(name);
  }

  // The names a subgraph defines are its own: an If's two branches may each define `o`.
  class Scope {
   public:
    explicit Scope(Importer& importer) : importer_(importer) { importer_.scopes_.emplace_back(); }
    ~Scope() {
      for (const auto& name : importer_.scopes_.back()) importer_.values_.erase(name);
      importer_.scopes_.pop_back();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Importer& importer_;
  };

  ir::Value* value(const std::string& name) {
    auto it = values_.find(name);
    if (it == values_.end()) throw Malformed("a node reads `" + ir::printable(name, 80) + "`, which nothing defines");
    return it->second;
  }

  ir::Type output_type(const std::string& name) const {
    auto it = types_.find(name);
    return it == types_.end() ? ir::Type::tensor() : it->second;
  }

  void lower_graph(const pb::GraphProto& g, ir::Block& block) {
    collect_types(g);
    if (static_cast<uint64_t>(g.node_size()) + nodes_ > ir::limits().graph_nodes)
      throw ir::ImportError(ir::limit_error("its node count", "graph-nodes", g.node_size() + nodes_));
    nodes_ += g.node_size();
    for (const auto& t : g.initializer()) constant(block, t.name(), tensor_attr(t), t);
    for (const auto& node : g.node()) lower_node(node, block);
    for (const auto& out : g.output()) block.returns.push_back(value(out.name()));
  }

  ir::Value* constant(ir::Block& block, const std::string& name, ir::Attr value, const pb::TensorProto& t) {
    ir::Node* n = fn_->append_node(block, "prim::Constant");
    ir::Type type = ir::Type::tensor(value.dtype);
    type.sizes = value.ints;
    ir::Value* v = fn_->add_output(*n, fresh_name(), std::move(type));
    v->generated_name = true;
    n->set_attr("value", std::move(value));
    // The model's own tensor (an initializer, a Constant), not one a trace froze (frozen-by-trace).
    n->set_attr("onnx_tensor", ir::Attr::of_str(name));
    define(name, v);
    tensors_[name] = &t;
    return v;
  }

  // The node's ATen form, or the ONNX op kept by name.
  void lower_node(const pb::NodeProto& node, ir::Block& block) {
    loc_ = location(node);
    onnx_name_ = node.name();
    const std::string& op = node.op_type();
    if (!node.domain().empty() && node.domain() != "ai.onnx") return opaque(node, block, node.domain() + "." + op);
    if (op == "QuantizeLinear") return quantize(node, block);
    if (op == "DequantizeLinear") return dequantize(node, block);
    if (op == "Identity" && node.input_size() == 1 && node.output_size() == 1) {
      define(node.output(0), value(node.input(0)));
      return;
    }
    if (op == "Constant") return constant_node(node, block);
    if (op == "Cast") return cast(node, block);
    if (op == "Concat") return concat(node, block);
    if (op == "Einsum") return einsum(node, block);
    if (op == "Gather") return gather(node, block);
    if (op == "Unsqueeze" || op == "Squeeze") return squeeze(node, block);
    if (op == "Slice") return slice(node, block);
    if (op == "Transpose") return transpose(node, block);
    if (op == "Resize") return resize(node, block);
    if (op == "Flatten") return flatten(node, block);
    if (op == "Softmax") return softmax(node, block);
    if (op == "ReduceMax" || op == "ReduceMin") return reduce_select(node, block);
    if (op == "TopK") return topk(node, block);
    if (op == "Clip") return clip(node, block);
    if (op == "If") return if_node(node, block);
    if (op == "Loop") return loop_node(node, block);
    if (auto it = elementwise_ops().find(op);
        it != elementwise_ops().end() && static_cast<size_t>(node.input_size()) == it->second.operands)
      return aten(node, block, it->second.kind, inputs_of(node), it->second.overload);
    opaque(node, block, "onnx::" + op);
  }

  std::vector<ir::Value*> inputs_of(const pb::NodeProto& node) {
    std::vector<ir::Value*> in;
    for (const auto& name : node.input())
      if (!name.empty()) in.push_back(value(name));  // "": an optional input left out
    return in;
  }

  ir::Node* emit(ir::Block& block, const std::string& kind, const std::vector<ir::Value*>& inputs) {
    ir::Node* n = fn_->append_node(block, kind);
    for (ir::Value* v : inputs) fn_->add_input(*n, v);
    n->loc = loc_;
    if (!onnx_name_.empty()) n->set_attr("onnx_node", ir::Attr::of_str(onnx_name_));
    if (auto module = module_of_node_name(onnx_name_)) n->set_attr("module", ir::Attr::of_str(*module));
    return n;
  }

  void outputs(ir::Node& n, const pb::NodeProto& node) {
    for (const auto& name : node.output()) {
      if (name.empty()) continue;  // an optional output left out
      ir::Value* v = fn_->add_output(n, fresh_name(), output_type(name));
      v->generated_name = true;
      define(name, v);
    }
  }

  void aten(const pb::NodeProto& node, ir::Block& block, const std::string& kind, const std::vector<ir::Value*>& inputs,
            const std::string& overload) {
    outputs(*aten_node(block, kind, inputs, overload), node);
  }

  ir::Node* aten_node(ir::Block& block, const std::string& kind, const std::vector<ir::Value*>& inputs,
                      const std::string& overload) {
    ir::Node* n = emit(block, kind, inputs);
    std::string schema = ir::overload_schema(kind, overload);
    if (!schema.empty()) n->set_attr("schema", ir::Attr::of_str(schema));
    return n;
  }

  void opaque(const pb::NodeProto& node, ir::Block& block, const std::string& kind) {
    outputs(*emit(block, kind, inputs_of(node)), node);
  }

  ir::Value* constant(ir::Block& block, ir::Attr value, ir::Type::Kind kind) {
    ir::Node* n = fn_->append_node(block, "prim::Constant");
    n->set_attr("value", std::move(value));
    ir::Value* out = fn_->add_output(*n, fresh_name(), ir::Type::simple(kind));
    out->generated_name = true;
    return out;
  }

  ir::Value* int_constant(ir::Block& block, int64_t v) {
    return constant(block, ir::Attr::of_int(v), ir::Type::Kind::Int);
  }

  ir::Value* bool_constant(ir::Block& block, bool v) {
    return constant(block, ir::Attr::of_bool(v), ir::Type::Kind::Bool);
  }

  ir::Value* ints_constant(ir::Block& block, std::vector<int64_t> v) {
    ir::Attr list;
    list.kind = ir::Attr::Kind::Ints;
    list.ints = std::move(v);
    return constant(block, std::move(list), ir::Type::Kind::List);
  }

  const pb::AttributeProto* attribute(const pb::NodeProto& node, const std::string& name) {
    for (const auto& a : node.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }

  std::optional<int64_t> int_attribute(const pb::NodeProto& node, const std::string& name) {
    const pb::AttributeProto* a = attribute(node, name);
    if (a == nullptr || a->type() != pb::AttributeProto::INT) return std::nullopt;
    return a->i();
  }

  // The values a constant input holds (an initializer or a Constant node's), when small.
  std::optional<std::vector<double>> constant_values(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) return std::nullopt;
    return small_tensor_values(*it->second);
  }

  // The same as integers (indices, axes, slice bounds): NaN is none; past int64, the nearest bound
  // (an exporter's INT64_MAX end of a slice reads back as a double just past it).
  std::optional<std::vector<int64_t>> constant_integers(const std::string& name) const {
    auto values = constant_values(name);
    if (!values) return std::nullopt;
    std::vector<int64_t> out;
    for (double v : *values) {
      if (std::isnan(v)) return std::nullopt;
      out.push_back(static_cast<int64_t>(std::clamp(v, -9.2e18, 9.2e18)));
    }
    return out;
  }

  void constant_node(const pb::NodeProto& node, ir::Block& block) {
    const pb::AttributeProto* a = node.attribute_size() == 1 ? &node.attribute(0) : nullptr;
    if (a == nullptr || a->type() != pb::AttributeProto::TENSOR || node.output_size() != 1)
      return opaque(node, block, "onnx::Constant");  // value_float and friends: no threshold PyTorch exports
    ir::Value* v = constant(block, node.output(0), tensor_attr(a->t()), a->t());
    v->producer->loc = loc_;
  }

  // Cast(to) is `x.to(dtype)`: the dtype a ScalarType constant, as TorchScript spells it.
  void cast(const pb::NodeProto& node, ir::Block& block) {
    auto to = int_attribute(node, "to");
    auto code = to ? ir::scalar_type_code(dtype_of(static_cast<int32_t>(*to))) : std::nullopt;
    if (!code || node.input_size() != 1) return opaque(node, block, "onnx::Cast");
    aten(node, block, "aten::to", {value(node.input(0)), int_constant(block, *code)}, "dtype");
  }

  // Concat is `torch.cat([a, b], dim)`.
  void concat(const pb::NodeProto& node, ir::Block& block) {
    auto axis = int_attribute(node, "axis");
    if (!axis) return opaque(node, block, "onnx::Concat");
    ir::Node* list = emit(block, "prim::ListConstruct", inputs_of(node));
    ir::Value* items = fn_->add_output(*list, fresh_name(), ir::Type::simple(ir::Type::Kind::List));
    items->generated_name = true;
    aten(node, block, "aten::cat", {items, int_constant(block, *axis)}, "");
  }

  // Einsum is `torch.einsum(equation, [a, b])`, as TorchScript has it.
  void einsum(const pb::NodeProto& node, ir::Block& block) {
    const pb::AttributeProto* equation = attribute(node, "equation");
    if (equation == nullptr || equation->type() != pb::AttributeProto::STRING)
      return opaque(node, block, "onnx::Einsum");
    ir::Node* list = emit(block, "prim::ListConstruct", inputs_of(node));
    ir::Value* operands = fn_->add_output(*list, fresh_name(), ir::Type::simple(ir::Type::Kind::List));
    operands->generated_name = true;
    aten(node, block, "aten::einsum", {constant(block, ir::Attr::of_str(equation->s()), ir::Type::Kind::Str), operands},
         "");
  }

  // A Gather of one constant index is `x.select(dim, i)` (`x[:, :, :, -1]`); of a list of indices
  // `x.index_select(dim, idx)`.
  void gather(const pb::NodeProto& node, ir::Block& block) {
    if (node.input_size() != 2) return opaque(node, block, "onnx::Gather");
    const int64_t axis = int_attribute(node, "axis").value_or(0);
    auto index = constant_integers(node.input(1));
    auto it = tensors_.find(node.input(1));
    if (index && index->size() == 1 && it != tensors_.end() && it->second->dims_size() == 0)
      return aten(node, block, "aten::select",
                  {value(node.input(0)), int_constant(block, axis), int_constant(block, (*index)[0])}, "int");
    aten(node, block, "aten::index_select", {value(node.input(0)), int_constant(block, axis), value(node.input(1))},
         "");
  }

  // Unsqueeze and Squeeze of one constant axis (an input from opset 13, an attribute before) are
  // `x.unsqueeze(dim)` and `x.squeeze(dim)`.
  void squeeze(const pb::NodeProto& node, ir::Block& block) {
    const std::string kind = node.op_type() == "Unsqueeze" ? "aten::unsqueeze" : "aten::squeeze";
    std::optional<std::vector<int64_t>> axes;
    if (node.input_size() == 2) axes = constant_integers(node.input(1));
    if (const pb::AttributeProto* a = attribute(node, "axes"); a && a->type() == pb::AttributeProto::INTS)
      axes = std::vector<int64_t>(a->ints().begin(), a->ints().end());
    if (!axes || axes->size() != 1) return opaque(node, block, "onnx::" + node.op_type());
    aten(node, block, kind, {value(node.input(0)), int_constant(block, (*axes)[0])},
         kind == "aten::squeeze" ? "dim" : "");
  }

  // Slice(data, starts, ends, axes, steps) of constants is `x[a:b:s]` on each axis: a chain of
  // `aten::slice`, as TorchScript builds it.
  void slice(const pb::NodeProto& node, ir::Block& block) {
    std::vector<std::optional<std::vector<int64_t>>> operands;
    for (int i = 1; i < node.input_size(); ++i)
      operands.push_back(node.input(i).empty() ? std::nullopt : constant_integers(node.input(i)));
    if (node.input_size() < 3 || !operands[0] || !operands[1] || operands[0]->size() != operands[1]->size() ||
        operands[0]->empty() || node.output_size() != 1)
      return opaque(node, block, "onnx::Slice");
    const size_t n = operands[0]->size();
    auto optional_operand = [&](size_t i, int64_t fill) -> std::optional<std::vector<int64_t>> {
      if (node.input_size() <= static_cast<int>(i) + 1 || node.input(static_cast<int>(i) + 1).empty())
        return std::vector<int64_t>(n, fill);
      return operands[i];
    };
    auto axes = optional_operand(2, 0), steps = optional_operand(3, 1);
    if (!axes || !steps || axes->size() != n || steps->size() != n) return opaque(node, block, "onnx::Slice");
    if (node.input_size() <= 3 || node.input(3).empty())
      for (size_t i = 0; i < n; ++i) (*axes)[i] = static_cast<int64_t>(i);
    ir::Value* x = value(node.input(0));
    for (size_t i = 0; i < n; ++i) {
      auto integer = [&](int64_t v) { return int_constant(block, v); };
      ir::Node* step = aten_node(
          block, "aten::slice",
          {x, integer((*axes)[i]), integer((*operands[0])[i]), integer((*operands[1])[i]), integer((*steps)[i])},
          "Tensor");
      if (i + 1 == n) return outputs(*step, node);
      x = fn_->add_output(*step, fresh_name(), ir::Type::tensor(output_type(node.output(0)).dtype));
      x->generated_name = true;
    }
  }

  // Transpose(perm) is `x.permute(perm)`.
  void transpose(const pb::NodeProto& node, ir::Block& block) {
    const pb::AttributeProto* perm = attribute(node, "perm");
    if (node.input_size() != 1 || perm == nullptr || perm->type() != pb::AttributeProto::INTS)
      return opaque(node, block, "onnx::Transpose");
    aten(node, block, "aten::permute",
         {value(node.input(0)), ints_constant(block, {perm->ints().begin(), perm->ints().end()})}, "");
  }

  // Resize in its default mode, nearest, is `F.interpolate(x, size)`: every value kept as it was
  // (a mask resized to a feature map's size is still the mask), the ATen op by the input's rank.
  void resize(const pb::NodeProto& node, ir::Block& block) {
    const pb::AttributeProto* mode = attribute(node, "mode");
    const bool nearest = mode == nullptr || (mode->type() == pb::AttributeProto::STRING && mode->s() == "nearest");
    if (!nearest || node.input_size() == 0 || node.input(0).empty()) return opaque(node, block, "onnx::Resize");
    ir::Value* x = value(node.input(0));
    const size_t rank = x->type.sizes ? x->type.sizes->size() : 4;
    const char* kinds[] = {"aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d"};
    const std::string kind = rank >= 3 && rank <= 5 ? kinds[rank - 3] : "aten::upsample_nearest2d";
    aten(node, block, kind, inputs_of(node), "vec");
  }

  // Flatten(axis) is `x.flatten(axis)`: the dimensions from `axis` on become one (ONNX also joins
  // those before it, which a flatten from 1 leaves as they are).
  void flatten(const pb::NodeProto& node, ir::Block& block) {
    if (node.input_size() != 1) return opaque(node, block, "onnx::Flatten");
    aten(node, block, "aten::flatten",
         {value(node.input(0)), int_constant(block, int_attribute(node, "axis").value_or(1)), int_constant(block, -1)},
         "using_ints");
  }

  // ReduceMax/ReduceMin: `x.amax(dims, keepdim)`, a selection of its values (axes an attribute
  // up to opset 17, an input since 18; none: every axis).
  void reduce_select(const pb::NodeProto& node, ir::Block& block) {
    std::optional<std::vector<int64_t>> axes = std::vector<int64_t>{};
    if (const pb::AttributeProto* a = attribute(node, "axes"); a && a->type() == pb::AttributeProto::INTS)
      axes = std::vector<int64_t>(a->ints().begin(), a->ints().end());
    if (node.input_size() == 2 && !node.input(1).empty()) axes = constant_integers(node.input(1));
    const bool keepdims = int_attribute(node, "keepdims").value_or(1) != 0;
    if (node.input_size() < 1 || !axes || int_attribute(node, "noop_with_empty_axes").value_or(0) != 0)
      return opaque(node, block, "onnx::" + node.op_type());
    aten(node, block, node.op_type() == "ReduceMax" ? "aten::amax" : "aten::amin",
         {value(node.input(0)), ints_constant(block, *axes), bool_constant(block, keepdims)}, "");
  }

  // Clip (ReLU6, hardtanh, `torch.clamp`): `x.clamp(min, max)`, either bound left out.
  void clip(const pb::NodeProto& node, ir::Block& block) {
    if (node.input_size() < 1 || node.input_size() > 3 || node.input(0).empty())
      return opaque(node, block, "onnx::Clip");
    std::vector<ir::Value*> operands = {value(node.input(0))};
    for (int i = 1; i < 3; ++i)
      operands.push_back(i < node.input_size() && !node.input(i).empty()
                             ? value(node.input(i))
                             : constant(block, ir::Attr{}, ir::Type::Kind::None));
    aten(node, block, "aten::clamp", operands, "Tensor");
  }

  // TopK: `x.topk(k, dim, largest, sorted)`, its values and their indices.
  void topk(const pb::NodeProto& node, ir::Block& block) {
    auto k = node.input_size() == 2 ? constant_integers(node.input(1)) : std::nullopt;
    if (!k || k->size() != 1 || node.output_size() != 2) return opaque(node, block, "onnx::TopK");
    aten(node, block, "aten::topk",
         {value(node.input(0)), int_constant(block, (*k)[0]),
          int_constant(block, int_attribute(node, "axis").value_or(-1)),
          bool_constant(block, int_attribute(node, "largest").value_or(1) != 0),
          bool_constant(block, int_attribute(node, "sorted").value_or(1) != 0)},
         "");
  }

  // Softmax(axis) is `x.softmax(axis)`.
  void softmax(const pb::NodeProto& node, ir::Block& block) {
    if (node.input_size() != 1) return opaque(node, block, "onnx::Softmax");
    aten(node, block, "aten::softmax",
         {value(node.input(0)), int_constant(block, int_attribute(node, "axis").value_or(-1))}, "int");
  }

  // A QDQ pair: QuantizeLinear makes the quant point, DequantizeLinear is its float output again.
  // On a constant (a weight's fake quant) it is the weight.
  void quantize(const pb::NodeProto& node, ir::Block& block) {
    if (node.input_size() < 2 || node.output_size() != 1) return opaque(node, block, "onnx::QuantizeLinear");
    ir::Value* x = value(node.input(0));
    if (x->producer != nullptr && x->producer->kind == "prim::Constant") return define(node.output(0), x);
    define(node.output(0), quant_point(node, block, x));
  }

  void dequantize(const pb::NodeProto& node, ir::Block& block) {
    if (node.input_size() < 2 || node.output_size() != 1) return opaque(node, block, "onnx::DequantizeLinear");
    ir::Value* q = value(node.input(0));
    // After a QuantizeLinear (its quant point, or the weight), or of a constant: the same value.
    if (quant_points_.count(q) || (q->producer != nullptr && q->producer->kind == "prim::Constant"))
      return define(node.output(0), q);
    // Of integers that come from elsewhere (a model input quantized by the caller): the quant
    // point is here.
    define(node.output(0), quant_point(node, block, q));
  }

  // A QuantStub-like instance called on `x`, one per scale (pairs sharing a scale are one quant
  // point called twice), with the scale, zero point and range the pair states.
  ir::Value* quant_point(const pb::NodeProto& node, ir::Block& block, ir::Value* x) {
    const std::string& scale_name = node.input(1);
    auto [it, added] = quant_point_paths_.try_emplace(scale_name);
    if (added) {
      it->second = module_path_of(scale_name);
      std::string display;
      if (it->second.empty()) {
        it->second = "onnx_qdq_" + std::to_string(quant_point_paths_.size());
        display = ir::printable(node.name().empty() ? scale_name : node.name(), 80);  // messages quote it
      }
      model_.modules.push_back({it->second, "torch.ao.quantization.stubs.QuantStub", display, loc_.line});
    }
    ir::Node* get = emit(block, "prim::GetAttr", {self_});
    get->set_attr("name", ir::Attr::of_str(it->second));
    ir::Value* module = fn_->add_output(*get, fresh_name(), ir::Type::module(it->second));
    module->generated_name = true;
    ir::Node* call = emit(block, "prim::CallMethod", {module, x});
    call->set_attr("name", ir::Attr::of_str("forward"));
    ir::Value* out = fn_->add_output(*call, fresh_name(), ir::Type::tensor(DType::Float32));
    out->generated_name = true;
    state_parameters(node, *call);
    quant_points_.insert(out);
    return out;
  }

  // The scale, zero point and range of a per-tensor pair, as the call's attributes (as the C++
  // front end states `at::quantize_per_tensor(x, 0.05, 0, torch::kQInt8)`).
  void state_parameters(const pb::NodeProto& node, ir::Node& call) {
    auto scale = constant_values(node.input(1));
    // ONNX requires a positive scale; any other is stated by no model that runs.
    if (!scale || scale->size() != 1 || !std::isfinite((*scale)[0]) || !((*scale)[0] > 0)) return;
    int64_t zero_point = 0, quant_min = 0, quant_max = 255;  // no zero point: uint8, 0
    if (node.input_size() >= 3 && !node.input(2).empty()) {
      auto zp = constant_values(node.input(2));
      auto it = tensors_.find(node.input(2));
      if (!zp || zp->size() != 1 || it == tensors_.end()) return;
      const DType stored = dtype_of(it->second->data_type());
      if (stored != DType::Int8 && stored != DType::UInt8) return;
      zero_point = static_cast<int64_t>((*zp)[0]);
      std::tie(quant_min, quant_max) = *ir::quantized_range(stored == DType::Int8 ? DType::QInt8 : DType::QUInt8);
    }
    call.set_attr("scale", ir::Attr::of_float((*scale)[0]));
    call.set_attr("zero_point", ir::Attr::of_int(zero_point));
    call.set_attr("quant_min", ir::Attr::of_int(quant_min));
    call.set_attr("quant_max", ir::Attr::of_int(quant_max));
  }

  const pb::GraphProto* graph_attribute(const pb::NodeProto& node, const std::string& name) {
    const pb::AttributeProto* a = attribute(node, name);
    return a != nullptr && a->type() == pb::AttributeProto::GRAPH ? &a->g() : nullptr;
  }

  // If(cond) with then/else graphs: prim::If with their blocks (outer values are read by name).
  void if_node(const pb::NodeProto& node, ir::Block& block) {
    const pb::GraphProto* branches[] = {graph_attribute(node, "then_branch"), graph_attribute(node, "else_branch")};
    if (node.input_size() != 1 || !branches[0] || !branches[1]) return opaque(node, block, "onnx::If");
    ir::Node* n = emit(block, "prim::If", {value(node.input(0))});
    for (const pb::GraphProto* g : branches) {
      n->blocks.push_back(std::make_unique<ir::Block>());
      n->blocks.back()->owner = n;
      Scope scope(*this);
      lower_graph(*g, *n->blocks.back());
    }
    outputs(*n, node);
  }

  // Loop(M, cond, carried...) with body(iteration, cond, carried...) -> (cond, carried...,
  // scans...): prim::Loop's form. A scan output has a block parameter of its own (never read),
  // so that each output lines up with its return.
  void loop_node(const pb::NodeProto& node, ir::Block& block) {
    const pb::GraphProto* body = graph_attribute(node, "body");
    if (!body || node.input_size() < 2 || body->input_size() != node.input_size())
      return opaque(node, block, "onnx::Loop");
    std::vector<ir::Value*> in;
    for (const auto& name : node.input())
      in.push_back(name.empty() ? int_constant(block, 0) : value(name));  // "": no trip count or no condition
    ir::Node* n = emit(block, "prim::Loop", in);
    n->blocks.push_back(std::make_unique<ir::Block>());
    n->blocks.back()->owner = n;
    loop_body(*body, *n->blocks.back(), in[1], node.input_size() - 2);
    outputs(*n, node);
  }

  void loop_body(const pb::GraphProto& body, ir::Block& b, ir::Value* condition, int carried) {
    Scope scope(*this);
    collect_types(body);
    for (int i = 0; i < body.input_size(); ++i) {
      if (i == 1) {  // the condition: TorchScript's body takes none; reads of it read the first
        define(body.input(1).name(), condition);
        continue;
      }
      ir::Value* p = fn_->add_param(b, fresh_name(), output_type(body.input(i).name()));
      p->generated_name = true;
      define(body.input(i).name(), p);
    }
    for (int i = carried; i < body.output_size() - 1; ++i) {
      ir::Value* p = fn_->add_param(b, fresh_name(), ir::Type::tensor());
      p->generated_name = true;
    }
    lower_graph(body, b);
  }

  // The node's Python line from the stack in its doc_string; stacks repeat, so each is read once.
  ir::SourceLoc location(const pb::NodeProto& node) {
    if (node.doc_string().empty()) return {};
    auto [it, added] = locations_.try_emplace(node.doc_string());
    if (added) it->second = ir::traced_stack_location(node.doc_string(), lines_).value_or(ir::SourceLoc{});
    return it->second;
  }

  pb::ModelProto& proto_;
  ir::Model model_;
  ir::Function* fn_ = nullptr;
  ir::Value* self_ = nullptr;
  std::map<std::string, ir::Value*> values_;               // ONNX name -> value
  std::vector<std::vector<std::string>> scopes_;           // the names each open subgraph defined
  std::map<std::string, ir::Type> types_;                  // ONNX name -> declared or inferred type
  std::map<std::string, const pb::TensorProto*> tensors_;  // ONNX name -> its constant tensor
  std::map<std::string, std::string> quant_point_paths_;   // scale's name -> module path
  std::set<const ir::Value*> quant_points_;                // quant point outputs
  std::map<std::string, ir::SourceLoc> locations_;         // doc_string -> location
  ir::SourceLines lines_;
  ir::SourceLoc loc_;      // of the node being lowered
  std::string onnx_name_;  // its name
  uint64_t nodes_ = 0;
  int counter_ = 0;
};

// Every tensor of the model stored outside it (onnx.save_model(save_as_external_data=True)) is in a
// file under the model's directory, within that file's size; a small one (a scale, a zero point, a
// threshold) is read into the model, so qlint knows its values as for any other. Returns how many
// stay outside: ONNX's checker must then be told the model's directory.
class ExternalData {
 public:
  explicit ExternalData(std::filesystem::path dir) : dir_(std::move(dir)) {}

  int resolve(pb::GraphProto& g) {
    int outside = 0;
    for (auto& t : *g.mutable_initializer()) outside += resolve(t);
    for (auto& node : *g.mutable_node())
      for (auto& a : *node.mutable_attribute()) {
        if (a.has_t()) outside += resolve(*a.mutable_t());
        for (auto& t : *a.mutable_tensors()) outside += resolve(t);
        if (a.has_g()) outside += resolve(*a.mutable_g());
        for (auto& sub : *a.mutable_graphs()) outside += resolve(sub);
      }
    return outside;
  }

 private:
  // Whether the tensor stays outside the model.
  bool resolve(pb::TensorProto& t) {
    if (t.data_location() != pb::TensorProto::EXTERNAL) return false;
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& entry : t.external_data()) {
      if (entry.key() == "location") location = entry.value();
      auto number = [&](int64_t& field) {
        auto n = ir::parse_int(entry.value(), 0, INT64_MAX);
        if (!n) throw Malformed("the tensor `" + ir::printable(t.name(), 80) + "` has an invalid " + entry.key());
        field = *n;
      };
      if (entry.key() == "offset") number(offset);
      if (entry.key() == "length") number(length);
    }
    const std::string name = "`" + ir::printable(t.name(), 80) + "`";
    const std::filesystem::path relative(location);
    if (location.empty() || relative.is_absolute() ||
        std::any_of(relative.begin(), relative.end(), [](const auto& part) { return part == ".."; }))
      throw Malformed("the tensor " + name + " names its external data as `" + ir::printable(location, 80) +
                      "`, which is not a file beside the model");
    const std::filesystem::path file = dir_ / relative;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
      throw ir::ImportError("has its tensor " + name + " in `" + ir::printable(location, 80) +
                            "`, which is missing beside the model");
    const uintmax_t size = std::filesystem::file_size(file, ec);
    if (ec || static_cast<uintmax_t>(offset) > size ||
        (length >= 0 && static_cast<uintmax_t>(length) > size - static_cast<uintmax_t>(offset)))
      throw ir::ImportError("has its tensor " + name + " in `" + ir::printable(location, 80) +
                            "`, which is shorter than the model says");
    auto count = element_count(t.dims());
    const uintmax_t bytes = length >= 0 ? static_cast<uintmax_t>(length) : size - static_cast<uintmax_t>(offset);
    if (!count || *count > kKeptElements || bytes > static_cast<uintmax_t>(kKeptElements) * 8) return true;
    read_into(t, file, offset, static_cast<size_t>(bytes));
    return false;
  }

  static void read_into(pb::TensorProto& t, const std::filesystem::path& file, int64_t offset, size_t bytes) {
    std::ifstream in(file, std::ios::binary);
    std::string data(bytes, '\0');
    if (!in.seekg(offset) || !in.read(data.data(), static_cast<std::streamsize>(bytes)))
      throw ir::ImportError("cannot read the tensor `" + ir::printable(t.name(), 80) + "` from its external data");
    t.clear_external_data();
    t.set_data_location(pb::TensorProto::DEFAULT);
    t.set_raw_data(std::move(data));
  }

  std::filesystem::path dir_;
};

// ONNX's shape inference divides by these attributes without looking (a Conv's stride of 0 is a
// SIGFPE in Debian's libonnx, found by fuzzing), and its checker lets them through: a model with
// one that is not positive is refused before shape inference sees it.
void refuse_zero_extents(const pb::GraphProto& g) {
  static const std::set<std::string> extents = {"strides", "dilations", "kernel_shape", "group", "blocksize"};
  for (const auto& node : g.node())
    for (const auto& a : node.attribute()) {
      if (extents.count(a.name())) {
        const bool bad = a.type() == pb::AttributeProto::INTS
                             ? std::any_of(a.ints().begin(), a.ints().end(), [](int64_t v) { return v <= 0; })
                             : a.type() == pb::AttributeProto::INT && a.i() <= 0;
        if (bad)
          throw Malformed("node `" + ir::printable(node.name(), 80) + "` (" + ir::printable(node.op_type(), 40) +
                          ") has " + a.name() + " that are not positive");
      }
      if (a.has_g()) refuse_zero_extents(a.g());
      for (const auto& sub : a.graphs()) refuse_zero_extents(sub);
    }
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return ir::printable(line, 300);
}

// `model_file`: the file the model was read from, when there is one. ONNX's checker finds a tensor
// stored outside the model relative to the working directory unless it reads the file itself.
ir::Model import_proto(pb::ModelProto& proto, const std::string& path, bool model_file) {
  try {
    const int outside = ExternalData(std::filesystem::path(path).parent_path()).resolve(*proto.mutable_graph());
    if (outside > 0 && model_file)
      pb::checker::check_model(path);
    else
      pb::checker::check_model(proto);
  } catch (const Malformed& e) {
    throw ir::ImportError(std::string("is a malformed ONNX model: ") + e.what());
  } catch (const pb::checker::ValidationError& e) {
    throw ir::ImportError("is not a valid ONNX model: " + first_line(e.what()));
  }
  try {
    refuse_zero_extents(proto.graph());
  } catch (const Malformed& e) {
    throw ir::ImportError(std::string("is not a valid ONNX model: ") + e.what());
  }
  try {
    // Types for every value; a node ONNX cannot type keeps an unknown type.
    pb::shape_inference::InferShapes(proto, pb::OpSchemaRegistry::Instance(),
                                     pb::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
  }
  ir::Model model;
  try {
    model = Importer(proto, path).run();
  } catch (const Malformed& e) {
    throw ir::ImportError(std::string("is a malformed ONNX model: ") + e.what());
  }
  std::vector<std::string> problems = ir::verify(model);
  if (!problems.empty()) {
    if (std::string too_deep = ir::beyond_limits(model); !too_deep.empty()) throw ir::ImportError(too_deep);
    throw ir::ImportError("is a malformed ONNX model: " + ir::printable(problems.front(), 200));
  }
  return model;
}

void parse_bytes(const std::string& bytes, pb::ModelProto& proto) {
  // Protobuf's own bound on a message.
  if (bytes.size() > INT32_MAX)
    throw ir::ImportError("is over 2 GiB, more than an ONNX model can be (protobuf's bound)");
  if (!proto.ParseFromString(bytes))
    throw ir::ImportError(
        "is not an ONNX model: protobuf cannot read it as a ModelProto (damaged, truncated, or nested deeper than "
        "100 levels)");
}

}  // namespace

ir::Model import_onnx_bytes(const std::string& bytes, const std::string& path) {
  pb::ModelProto proto;
  parse_bytes(bytes, proto);
  return import_proto(proto, path, false);
}

ir::Model import_onnx_proto(const pb::ModelProto& proto, const std::string& path) {
  pb::ModelProto copy(proto);  // the importer reads small external tensors in and adds inferred types
  return import_proto(copy, path, false);
}

void read_onnx_file(const std::string& path, pb::ModelProto& proto) {
  // Only a regular file within the size limit (never a FIFO or a device).
  ir::check_regular_file(path, std::min<uint64_t>(ir::limits().archive_bytes, INT32_MAX), "archive-bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ir::ImportError("cannot be opened for reading");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) throw ir::ImportError("cannot be read");
  parse_bytes(bytes.str(), proto);
}

ir::Model import_onnx(const std::string& path) {
  pb::ModelProto proto;
  read_onnx_file(path, proto);
  return import_proto(proto, path, true);
}

}  // namespace qlint::onnx
