// qlint's own small graph IR. Front ends (TorchScript, FX) import into it; analyses and
// rules only ever see this. It deliberately has no LibTorch dependency so that the IR,
// analyses, rules and their tests build in seconds.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qlint::ir {

// Element type of a tensor. Unknown is common: scripted graphs rarely record dtypes.
enum class DType {
  Unknown,
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  QInt8,
  QUInt8,
  QInt32,
};

const char* dtype_name(DType dtype);
std::optional<DType> dtype_from_name(const std::string& name);
// PyTorch's ScalarType codes, as TorchScript spells dtype constants (torch.float is 6).
std::optional<DType> dtype_from_scalar_type_code(int64_t code);
std::optional<int64_t> scalar_type_code(DType dtype);
// The integers a quantized dtype holds (qint8: -128..127); nullopt for any other dtype.
std::optional<std::pair<int64_t, int64_t>> quantized_range(std::optional<DType> dtype);
bool is_floating(DType dtype);
bool is_integral(DType dtype);  // Bool excluded

struct Type {
  enum class Kind { Tensor, Int, Float, Bool, Str, None, Device, List, Tuple, Optional, Module, Other };
  Kind kind = Kind::Other;
  DType dtype = DType::Unknown;               // Tensor only
  std::optional<std::vector<int64_t>> sizes;  // Tensor only, when the front end knows them
  std::string name;                           // Module: instance path; Other: type spelling
  std::vector<Type> elements;                 // List, Tuple, Optional

  static Type tensor(DType dtype = DType::Unknown) {
    Type t;
    t.kind = Kind::Tensor;
    t.dtype = dtype;
    return t;
  }
  static Type simple(Kind kind) {
    Type t;
    t.kind = kind;
    return t;
  }
  static Type module(std::string path) {
    Type t;
    t.kind = Kind::Module;
    t.name = std::move(path);
    return t;
  }
  static Type other(std::string spelling) {
    Type t;
    t.kind = Kind::Other;
    t.name = std::move(spelling);
    return t;
  }
  bool is_tensor() const { return kind == Kind::Tensor; }
  bool operator==(const Type& other) const;
};

// A constant attribute value (prim::Constant values, node parameters such as a method name).
struct Attr {
  enum class Kind { Int, Float, Bool, Str, None, Ints, Floats, Tensor };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<int64_t> ints;     // Ints; Tensor: the shape
  std::vector<double> floats;    // Floats; Tensor: the values (empty when elided)
  DType dtype = DType::Unknown;  // Tensor

  static Attr of_int(int64_t v);
  static Attr of_float(double v);
  static Attr of_bool(bool v);
  static Attr of_str(std::string v);
  static Attr none();
  bool operator==(const Attr& other) const;
};

// Where a node came from in the user's Python source. Lines and columns are 1-based; the
// end column is exclusive (one past the last character), as in SARIF and LSP.
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;
  // A trace recorded the op inside PyTorch's own code that this line calls (`self.attn(q, k, v,
  // key_padding_mask=pad)` for the attention's `baddbmm`): the line does not spell the op. Not
  // part of the location's identity.
  bool called_library = false;
  bool known() const { return line > 0; }
  bool operator==(const SourceLoc& other) const;
};

// How a message at `here` names the line of `at`: "line 25" in the same file, else with the
// file's name, "pointpillar_scatter.py:25" (a mask made in a module of another file).
std::string line_seen_from(const SourceLoc& at, const SourceLoc& here);

struct Node;
struct Block;

struct Value {
  std::string name;  // unique within its function
  Type type;
  Node* producer = nullptr;   // null for block parameters
  Block* param_of = nullptr;  // set for block parameters
  std::vector<Node*> users;
  const void* origin = nullptr;  // opaque front-end handle, for the rewriter
  // The front end made the name up (FX names a node after its op: `getitem`, `to_1`): messages
  // do not call the value by it. Not kept by the text form.
  bool generated_name = false;
};

// A number that grows with every node and function made: sets and maps whose order shows in
// messages or in a rewritten archive order them by it (CreationOrder), never by address, which
// varies from run to run (one archive gave three different "no automatic fix" notes in 8 runs).
uint64_t next_serial();

struct Node {
  std::string kind;  // e.g. "aten::eq", "prim::CallMethod"
  std::vector<Value*> inputs;
  std::vector<Value*> outputs;
  std::vector<std::pair<std::string, Attr>> attrs;
  std::vector<std::unique_ptr<Block>> blocks;
  SourceLoc loc;
  Block* owner = nullptr;
  const void* origin = nullptr;  // opaque front-end handle, for the rewriter
  const uint64_t serial = next_serial();

  const Attr* attr(std::string_view name) const;  // a view: callers name attributes with literals
  void set_attr(const std::string& name, Attr value);
  Value* output() const { return outputs.size() == 1 ? outputs[0] : nullptr; }
};

struct Block {
  std::vector<Value*> params;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<Value*> returns;
  Node* owner = nullptr;  // null for a function body
};

// One method of one module instance (or a free function). Owns all of its values.
struct Function {
  std::string name;         // qualified: "forward", "head.forward", "head.mask.compute"
  std::string module_path;  // instance path of `self`, "" for the root module
  std::string method;       // "forward"
  // Its parameters are the program's inputs, as forward's are: every C++ function, since any
  // may be called from outside the translation unit.
  bool entry = false;
  Block body;
  std::vector<std::unique_ptr<Value>> values;
  const uint64_t serial = next_serial();

  Value* new_value(std::string name, Type type);
  Node* append_node(Block& block, std::string kind);
  void add_input(Node& node, Value* value);
  Value* add_output(Node& node, std::string name, Type type);
  Value* add_param(Block& block, std::string name, Type type);
};

// Orders nodes, or functions, as the front end made them (see next_serial).
struct CreationOrder {
  template <class T>
  bool operator()(const T* a, const T* b) const {
    return a->serial < b->serial;
  }
};

struct ModuleInfo {
  std::string path;  // "" for the root, "head.mask" for nested instances
  std::string class_name;
  // How messages name the instance when it is not `self.<path>`: the C++ front end makes one
  // quant point per quantizing call (`at::quantize_per_tensor`, on `line`).
  std::string display;
  int line = 0;
};

// The source language the front end read: messages spell casts and quant points in it
// (ir/spelling.h).
enum class Language { Python, Cxx };

// The model as qlint sees it: module instances, the functions reachable from forward, and
// the lines of Python source the debug info carried (so diagnostics can show them even when
// the .py file is gone).
struct Model {
  std::string file;
  Language language = Language::Python;
  std::vector<ModuleInfo> modules;
  std::vector<std::unique_ptr<Function>> functions;
  std::map<std::string, std::map<int, std::string>> source_lines;  // file -> line -> text

  const ModuleInfo* find_module(const std::string& path) const;
  const Function* find_function(const std::string& name) const;
  // The function whose body holds `node`, directly or in a nested block.
  const Function* function_of(const Node& node) const;
  Function& add_function(std::string module_path, std::string method);
  const std::string* source_line(const std::string& file, int line) const;

 private:
  // By name, for find_function: a call is resolved at every call node (20,000 C++ functions
  // calling each other made the linear search quadratic). Functions are added only by
  // add_function.
  std::unordered_map<std::string, const Function*> function_index_;
};

std::string qualified_function_name(const std::string& module_path, const std::string& method);

// How deep blocks may nest in a model qlint accepts (ir::verify refuses deeper ones; archives'
// code is refused past it before LibTorch compiles it). Python allows about 100 levels; a walk
// over nested blocks may recurse, since it never goes deeper than this.
inline constexpr int kMaxNesting = 256;

// How deep calls may nest (the longest chain of functions calling each other, from a function
// nobody calls): ir::verify refuses longer chains. TorchScript inlines functions, so only C++
// code comes near it; the analyses follow a call into its callee by recursion, which Facts runs
// on a large stack (ir/large_stack.h).
inline constexpr int kMaxCallDepth = 20000;

// Visits every node of a block, nested blocks included, in program order.
template <typename Fn>
void for_each_node(const Block& block, Fn&& fn) {
  for (const auto& node : block.nodes) {
    fn(*node);
    for (const auto& inner : node->blocks) for_each_node(*inner, fn);
  }
}

// The function a call node invokes, and the call's arguments lined up with the callee's
// parameters (prim::CallMethod passes `self` first; prim::CallFunction's first input is the
// function constant and is skipped).
const Function* callee_of(const Model& model, const Node& call);
std::vector<Value*> call_arguments(const Node& call);

// Which output of its producer `v` is (`v` must have a producer).
size_t output_index(const Value& v);

// What the callee returns for `v`, an output of a call into it; nullptr when `v` is no call's
// output or the call's outputs do not line up with the callee's returns.
const Value* returned_for(const Model& model, const Value& v);

}  // namespace qlint::ir
