#include "ir/cxx/lowering.h"

#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "ir/archive_flag.h"
#include "ir/aten_schemas.h"
#include "ir/cxx/archive_names.h"
#include "ir/cxx/call_sites.h"
#include "ir/cxx/function_key.h"
#include "ir/import_error.h"
#include "ir/ops.h"
#include "ir/verifier.h"

namespace qlint::cxx {

namespace {

using namespace clang;

// LibTorch's operator overloads as the aten:: ops TorchScript records for them.
const char* operator_kind(OverloadedOperatorKind op, unsigned operands) {
  switch (op) {
    case OO_EqualEqual:
      return "aten::eq";
    case OO_ExclaimEqual:
      return "aten::ne";
    case OO_Less:
      return "aten::lt";
    case OO_LessEqual:
      return "aten::le";
    case OO_Greater:
      return "aten::gt";
    case OO_GreaterEqual:
      return "aten::ge";
    case OO_Star:
      return "aten::mul";
    case OO_Plus:
      return operands == 2 ? "aten::add" : nullptr;
    case OO_Minus:
      return operands == 2 ? "aten::sub" : "aten::neg";
    case OO_Slash:
      return "aten::div";
    case OO_Percent:
      return "aten::remainder";
    case OO_Amp:
      return "aten::__and__";
    case OO_Pipe:
      return "aten::__or__";
    case OO_Caret:
      return "aten::__xor__";
    case OO_Tilde:
      return "aten::bitwise_not";
    case OO_Exclaim:
      return "aten::logical_not";
    case OO_StarEqual:
      return "aten::mul_";
    case OO_PlusEqual:
      return "aten::add_";
    case OO_MinusEqual:
      return "aten::sub_";
    case OO_SlashEqual:
      return "aten::div_";
    case OO_AmpEqual:
      return "aten::__iand__";
    case OO_PipeEqual:
      return "aten::__ior__";
    default:
      return nullptr;
  }
}

const char* builtin_kind(BinaryOperatorKind op) {
  switch (op) {
    case BO_EQ:
      return "aten::eq";
    case BO_NE:
      return "aten::ne";
    case BO_LT:
      return "aten::lt";
    case BO_LE:
      return "aten::le";
    case BO_GT:
      return "aten::gt";
    case BO_GE:
      return "aten::ge";
    case BO_Mul:
      return "aten::mul";
    case BO_Add:
      return "aten::add";
    case BO_Sub:
      return "aten::sub";
    case BO_Div:
      return "aten::div";
    default:
      return nullptr;
  }
}

std::string record_name(QualType type) {
  type = type.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto* record = type->getAsCXXRecordDecl()) return record->getQualifiedNameAsString();
  if (const auto* e = type->getAs<EnumType>()) return e->getDecl()->getQualifiedNameAsString();
  return "";
}

bool is_tensor_type(QualType type) {
  std::string name = record_name(type);
  return name == "at::Tensor" || name == "at::TensorBase";
}

// `t.accessor<float, 2>()` and its packed forms: a view of t's elements, read by `a[i][j]`.
bool is_accessor_type(QualType type) {
  static const std::set<std::string> accessors = {"at::TensorAccessor", "at::TensorAccessorBase",
                                                  "at::GenericPackedTensorAccessor",
                                                  "at::GenericPackedTensorAccessorBase"};
  return accessors.count(record_name(type)) > 0;
}

bool is_accessor_method(const std::string& name) {
  return name == "accessor" || name == "packed_accessor32" || name == "packed_accessor64" ||
         name == "generic_packed_accessor";
}

// The IR type of a C++ value, or nullopt when the value is nothing tensor code needs.
std::optional<ir::Type> ir_type(QualType qt) {
  using K = ir::Type::Kind;
  QualType type = qt.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (is_tensor_type(type) || is_accessor_type(type)) return ir::Type::tensor();
  if (type->isBooleanType()) return ir::Type::simple(K::Bool);
  if (type->isEnumeralType() || type->isIntegerType()) return ir::Type::simple(K::Int);
  if (type->isRealFloatingType()) return ir::Type::simple(K::Float);
  std::string name = record_name(type);
  if (name == "c10::Scalar") return ir::Type::other("Scalar");
  // What a TorchScript model returns: an IValue, a tuple of them; its elements are unknown. A dict
  // of them (`toGenericDict()`) is read as such a container: `d.at("scores")` may be any value.
  if (name == "c10::IValue" || name == "c10::intrusive_ptr" || name == "c10::ivalue::Tuple" ||
      name == "c10::ivalue::TupleElements" || name == "std::vector" || name == "c10::List" || name == "c10::ArrayRef" ||
      name == "std::tuple" || name == "std::pair" || name == "c10::Dict")
    return ir::Type::simple(K::Tuple);
  if (name == "torch::jit::Module" || name == "torch::jit::script::Module") return ir::Type::other("ScriptModule");
  return std::nullopt;
}

// A TorchScript module, or what holds one and runs it with `->forward`: a pointer,
// `std::unique_ptr<torch::jit::Module>`, `std::shared_ptr<torch::jit::Module>` (AlphaPose-CPP's
// `_model`, the old LibTorch API's `std::shared_ptr<torch::jit::script::Module>`).
bool holds_module(QualType type) {
  type = type.getNonReferenceType().getCanonicalType();
  if (type->isPointerType()) type = type->getPointeeType();
  if (record_name(type) == "torch::jit::Module") return true;
  const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  if (spec == nullptr || spec->getTemplateArgs().size() == 0) return false;
  const std::string name = spec->getQualifiedNameAsString();
  const TemplateArgument& held = spec->getTemplateArgs()[0];
  return (name == "std::unique_ptr" || name == "std::shared_ptr") && held.getKind() == TemplateArgument::Type &&
         record_name(held.getAsType()) == "torch::jit::Module";
}

// `model.deepcopy()`, `model.clone()`, `model.copy()`: a module that runs the same archive (public C++
// round 25: Silero's voice-activity code copies its stateful model per stream); the module copied,
// else null.
const Expr* copied_module(const Expr* e) {
  const auto* call = dyn_cast_or_null<CXXMemberCallExpr>(e);
  const CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
  if (method == nullptr || call->getImplicitObjectArgument() == nullptr ||
      !holds_module(call->getImplicitObjectArgument()->getType()))
    return nullptr;
  const std::string name = method->getNameAsString();
  return name == "deepcopy" || name == "clone" || name == "copy" ? call->getImplicitObjectArgument() : nullptr;
}

// `std::make_unique<torch::jit::Module>(torch::jit::load(path))` (or make_shared): the module it
// is given, which the pointer holds; else null.
const Expr* made_holder_of(const Expr* e) {
  // `new torch::jit::Module(torch::jit::load(path))`: a raw pointer to the module (public C++
  // round 27: KeySAM's `model_ = new torch::jit::Module(...)` was never followed).
  if (const auto* made = dyn_cast_or_null<CXXNewExpr>(e);
      made && made->hasInitializer() && holds_module(made->getType()))
    return made->getInitializer();
  const auto* call = dyn_cast<CallExpr>(e);
  const FunctionDecl* callee = call != nullptr ? call->getDirectCallee() : nullptr;
  if (callee == nullptr || call->getNumArgs() != 1 || !holds_module(call->getType())) return nullptr;
  const std::string name = callee->getQualifiedNameAsString();
  return name == "std::make_unique" || name == "std::make_shared" ? call->getArg(0) : nullptr;
}

// A ScalarType or an optional one (`x.to(torch::kLong)`, `x.sum(dtype)`); not another optional
// (`x.slice(1, 0, 4)`'s start and end are optional integers).
bool is_dtype_argument(QualType type) {
  const std::string record = record_name(type);
  if (record == "c10::ScalarType") return true;
  if (record != "c10::optional") return false;
  const auto* optional = type.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  const auto* specialization = dyn_cast_or_null<ClassTemplateSpecializationDecl>(optional);
  if (specialization == nullptr || specialization->getTemplateArgs().size() == 0) return false;
  const TemplateArgument& inner = specialization->getTemplateArgs()[0];
  return inner.getKind() == TemplateArgument::Type && record_name(inner.getAsType()) == "c10::ScalarType";
}

// Whether the outermost implicit conversion that strip() skips turns a floating-point value into
// an integer (`int c = x.item<float>();`, `return score;` from an int function).
bool converts_floating_to_integer(const Expr* e) {
  for (int depth = 0; e != nullptr && depth < 32; ++depth) {
    if (const auto* i = dyn_cast<ImplicitCastExpr>(e)) {
      if (i->getCastKind() == CK_FloatingToIntegral) return true;
      e = i->getSubExpr();
    } else if (const auto* c = dyn_cast<ExprWithCleanups>(e)) {
      e = c->getSubExpr();
    } else if (const auto* p = dyn_cast<ParenExpr>(e)) {
      e = p->getSubExpr();
    } else {
      return false;
    }
  }
  return false;
}

// `T x{f()}`, `m_{torch::jit::load(path)}` with f() a T: C++17 initialises x from that one
// element (no copy), and Clang keeps the braces as an InitListExpr of type T around it. The
// value is the element's, as for `T x(f())` (brace initialisation is what modernize-* checks
// and style guides ask for; the braces must not hide a model's archive or a tensor's value).
const Expr* same_class_brace_init(const Expr* e) {
  const auto* list = dyn_cast<InitListExpr>(e);
  if (list == nullptr || list->getNumInits() != 1 || !list->getType()->isRecordType()) return nullptr;
  const Expr* only = list->getInit(0);
  QualType outer = list->getType().getCanonicalType().getUnqualifiedType();
  QualType inner = only->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
  return outer == inner ? only : nullptr;
}

// `int(v)` of a floating value: a conversion that truncates, as `static_cast<int>(v)` and
// `(int)v` do, not a wrapper to see through (public C++ round 23: mmdetection's
// `int(result_data[i][0])` on a detector's boxes went unseen).
bool truncates(const CXXFunctionalCastExpr& cast) {
  return cast.getType()->isIntegerType() && cast.getSubExpr()->IgnoreImpCasts()->getType()->isRealFloatingType();
}

// Implicit conversions, temporaries and converting constructors: what the user wrote inside.
const Expr* strip(const Expr* e) {
  for (int depth = 0; e != nullptr && depth < 32; ++depth) {
    if (const auto* c = dyn_cast<ExprWithCleanups>(e)) {
      e = c->getSubExpr();
    } else if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = m->getSubExpr();
    } else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) {
      e = b->getSubExpr();
    } else if (const auto* i = dyn_cast<ImplicitCastExpr>(e)) {
      e = i->getSubExpr();
    } else if (const auto* p = dyn_cast<ParenExpr>(e)) {
      e = p->getSubExpr();
    } else if (const auto* l = dyn_cast<CXXStdInitializerListExpr>(e)) {
      e = l->getSubExpr();
    } else if (const Expr* only = same_class_brace_init(e)) {
      e = only;
    } else if (const auto* f = dyn_cast<CXXFunctionalCastExpr>(e);
               f && !isa<InitListExpr>(f->getSubExpr()) && !truncates(*f)) {
      e = f->getSubExpr();
    } else if (const auto* c = dyn_cast<CXXConstructExpr>(e);
               c && !isa<CXXTemporaryObjectExpr>(c) && c->getNumArgs() >= 1 &&
               (c->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(c->getArg(1)))) {
      e = c->getArg(0);
    } else {
      return e;
    }
  }
  return e;
}

class FunctionLowering;

// The assignments in a body, `a = b` on builtin types and through `operator=`, each handed to the
// derived visitor's `found(target, value)`.
template <typename Derived>
struct AssignmentVisitor : RecursiveASTVisitor<Derived> {
  bool VisitBinaryOperator(BinaryOperator* b) {
    if (b->getOpcode() == BO_Assign) static_cast<Derived*>(this)->found(b->getLHS(), b->getRHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr* op) {
    if (op->getOperator() == OO_Equal && op->getNumArgs() == 2)
      static_cast<Derived*>(this)->found(op->getArg(0), op->getArg(1));
    return true;
  }
};

// State of one translation unit: the model, the functions by declaration.
class UnitLowering {
 public:
  UnitLowering(ASTContext& context, const Options& options)
      : ctx_(context), sm_(context.getSourceManager()), options_(options) {}

  ir::Model run();

  ASTContext& ctx_;
  SourceManager& sm_;
  const Options& options_;
  ir::Model model_;
  std::map<const FunctionDecl*, std::string> function_names_;

  // "ns::f", "Class::method"; a lambda "f::lambda@28", after the function around it and its line.
  std::string ir_function_name(const FunctionDecl& fd) const {
    const auto* method = dyn_cast<CXXMethodDecl>(&fd);
    if (fd.isTemplateInstantiation()) {  // `scale<float>`
      std::string name;
      llvm::raw_string_ostream out(name);
      fd.getNameForDiagnostic(out, ctx_.getPrintingPolicy(), true);
      return out.str();
    }
    if (method == nullptr || !method->getParent()->isLambda()) return fd.getQualifiedNameAsString();
    std::string outer = "lambda";
    for (const DeclContext* dc = method->getParent()->getDeclContext(); dc != nullptr; dc = dc->getParent())
      if (const auto* f = dyn_cast<FunctionDecl>(dc)) {
        outer = ir_function_name(*f) + "::lambda";
        break;
      }
    return outer + "@" + std::to_string(sm_.getExpansionLineNumber(fd.getLocation()));
  }

  // The IR name of a function, method or lambda of the file (with a body), or null.
  const std::string* function_name(const FunctionDecl* fd) const {
    if (fd == nullptr) return nullptr;
    auto it = function_names_.find(fd->getFirstDecl());
    return it == function_names_.end() ? nullptr : &it->second;
  }
  int quant_points_ = 0;
  std::unordered_map<const Stmt*, SourceLocation> begins_, ends_;

  std::string file_name(SourceLocation loc) const {
    FileID id = sm_.getFileID(sm_.getFileLoc(loc));
    if (const FileEntry* entry = sm_.getFileEntryForID(id)) {
      StringRef real = entry->tryGetRealPathName();
      if (!real.empty()) return real.str();
      return entry->getName().str();
    }
    return "";
  }

  // A statement's range as Clang gives it, without Clang's cost on long chains: the begin of
  // `a + b + ... + z` is the begin of its left operand, found by recursion each time it is
  // asked for, and the lowering asks at every operation (a 100,000-term sum took 46 s).
  // Memoised here, where the operands were asked first.
  SourceRange range(const Stmt* s) { return {begin_of(s), end_of(s)}; }

  SourceLocation begin_of(const Stmt* s) {
    if (auto it = begins_.find(s); it != begins_.end()) return it->second;
    const Stmt* leftmost = nullptr;
    if (const auto* b = dyn_cast<BinaryOperator>(s))
      leftmost = b->getLHS();
    else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
             op && op->getNumArgs() == 2 && op->getOperator() != OO_Arrow)
      leftmost = op->getArg(0);
    else if (const auto* cast = dyn_cast<ImplicitCastExpr>(s))
      leftmost = cast->getSubExpr();
    else if (const auto* member = dyn_cast<MemberExpr>(s); member && !member->isImplicitAccess())
      leftmost = member->getBase();
    else if (const auto* call = dyn_cast<CallExpr>(s); call && !isa<CXXOperatorCallExpr>(s))
      leftmost = call->getCallee();
    SourceLocation begin = leftmost != nullptr ? begin_of(leftmost) : SourceLocation();
    if (begin.isInvalid()) begin = s->getBeginLoc();
    return begins_[s] = begin;
  }

  // Likewise for the end: an overloaded operator computes its begin to give its end.
  SourceLocation end_of(const Stmt* s) {
    if (auto it = ends_.find(s); it != ends_.end()) return it->second;
    const Stmt* rightmost = nullptr;
    SourceLocation end;
    if (const auto* b = dyn_cast<BinaryOperator>(s))
      rightmost = b->getRHS();
    else if (const auto* cast = dyn_cast<ImplicitCastExpr>(s))
      rightmost = cast->getSubExpr();
    else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->getNumArgs() == 2) {
      if (op->getOperator() == OO_Call || op->getOperator() == OO_Subscript)
        end = op->getRParenLoc();
      else if (op->getOperator() != OO_PlusPlus && op->getOperator() != OO_MinusMinus)
        rightmost = op->getArg(1);
    }
    if (rightmost != nullptr) end = end_of(rightmost);
    if (end.isInvalid()) end = s->getEndLoc();
    return ends_[s] = end;
  }

  ir::SourceLoc location(SourceRange range) const {
    ir::SourceLoc loc;
    SourceLocation begin = sm_.getFileLoc(range.getBegin());
    SourceLocation last = sm_.getFileLoc(range.getEnd());
    if (begin.isInvalid() || last.isInvalid()) return loc;
    SourceLocation end = Lexer::getLocForEndOfToken(last, 0, sm_, ctx_.getLangOpts());
    if (end.isInvalid()) end = last;
    loc.file = file_name(begin);
    loc.line = static_cast<int>(sm_.getSpellingLineNumber(begin));
    loc.column = static_cast<int>(sm_.getSpellingColumnNumber(begin));
    loc.end_line = static_cast<int>(sm_.getSpellingLineNumber(end));
    loc.end_column = static_cast<int>(sm_.getSpellingColumnNumber(end));
    return loc;
  }

  // The source text of a range within one line of the main file, as written.
  std::string text(SourceRange range) const {
    ir::SourceLoc loc = location(range);
    if (!loc.known() || loc.end_line != loc.line) return "";
    auto file = model_.source_lines.find(loc.file);
    if (file == model_.source_lines.end()) return "";
    auto line = file->second.find(loc.line);
    if (line == file->second.end() || static_cast<size_t>(loc.end_column - 1) > line->second.size()) return "";
    return line->second.substr(static_cast<size_t>(loc.column - 1), static_cast<size_t>(loc.end_column - loc.column));
  }

  static bool is_model_load(const FunctionDecl* callee) {
    if (callee == nullptr) return false;
    const std::string qualified = callee->getQualifiedNameAsString();
    return qualified == "torch::jit::load" || qualified == "torch::jit::import_ir_module";
  }

  // What a `torch::jit::load` call reads: the archive, a string literal or a variable the command
  // line names (`--archive VAR=PATH`, also `--archive 'argv[1]=PATH'` for the expression as
  // written); else that variable or expression, for the note that names it.
  struct ModelLoad {
    std::string archive, variable;
    // Different archives for one load (the calls of its function pass different paths, or a field
    // is set from two): each with where it is given, as a note lists them. No archive then.
    std::string conflict;
    // The loader parameters the calls gave archives to, whose `--archive` is not applied then.
    std::string parameters;
    // An `--archive` that fits several variables, not applied (ArchiveName::ambiguous).
    std::string ambiguous;
    // `variable`, qualified by its function's name (ArchiveName::qualified); only a note's
    // wording, so two loads are one source whatever it is.
    std::string qualified;
    bool operator<(const ModelLoad& o) const {
      return std::tie(archive, variable, conflict, parameters, ambiguous) <
             std::tie(o.archive, o.variable, o.conflict, o.parameters, o.ambiguous);
    }
  };

  // What a load's path may name: each archive (or unnamed variable) with the first place that
  // gives it, and the parameters whose calls gave them.
  struct Sources {
    std::map<ModelLoad, SourceLocation> loads;
    std::set<std::string> parameters;
  };

  ModelLoad load_of(const CallExpr& load) const {
    if (load.getNumArgs() == 0) return {};
    return archive_named_by(load.getArg(0));
  }

  // A load in function `in`: its path, with a parameter of `in` read from the calls of `in`.
  ModelLoad load_in(const CallExpr& load, const FunctionDecl* in) const {
    if (load.getNumArgs() == 0) return {};
    return one_of(sources_of(load.getArg(0), in, load.getBeginLoc()));
  }

  // The archive a path in function `in` names. A parameter of a function the unit calls
  // (`void load(const std::string& model_path)` called as `det.load("yolo.pt")`) names what its
  // calls pass: the function is read once for all of them, so its parameter's name would give
  // every call one archive (`--archive model_path=PATH`), and two objects loading different
  // archives would share it. A parameter given the same archive by every call (or one unnamed
  // variable, when `--archive` names the parameter itself) is that archive.
  Sources sources_of(const Expr* path, const FunctionDecl* in, SourceLocation at) const {
    const Expr* written = path;
    if (const auto* fallback = dyn_cast<CXXDefaultArgExpr>(written)) written = fallback->getExpr();
    if (in != nullptr) written = literal_kept_in_constructor(*in, written);
    if (in != nullptr)
      if (std::optional<Sources> carried = field_of_parameter(written, *in)) return *carried;
    const ModelLoad own = archive_named_by(written);
    const int param = in != nullptr ? parameter_named(*in, written) : -1;
    if (param < 0 && in != nullptr)
      if (std::optional<Sources> differing = different_paths_joined(written, *in)) return *differing;
    if (param < 0) return {{{own, at}}, {}};
    if (passing_.count({in->getCanonicalDecl(), param})) return {};  // passes on what the other calls give
    const Sources& passed = passed_to(*in, param);
    const bool one_unnamed = passed.loads.size() == 1 && passed.loads.begin()->first.archive.empty() &&
                             passed.loads.begin()->first.conflict.empty();
    if (passed.loads.empty() || (one_unnamed && !own.archive.empty())) return {{{own, at}}, {}};
    return passed;
  }

  // A path joined from a parameter and more (`modelPath + suffix`): what the calls pass is not the
  // archive, but calls that pass different paths load different archives, which one `--archive`
  // for the expression as written would make one (public round 19 C++: a face detector's three
  // subclasses, each passing its own archive to the base's `load(modelPath + suffix)`). nullopt
  // when the calls pass one path, or the path joins no parameter.
  std::optional<Sources> different_paths_joined(const Expr* written, const FunctionDecl& in) const {
    const int param = parameter_joined(in, strip(written), 0);
    if (param < 0 || passing_.count({in.getCanonicalDecl(), param})) return std::nullopt;
    Sources passed = passed_to(in, param);
    if (passed.loads.size() < 2) return std::nullopt;
    passed.parameters.insert(
        Lexer::getSourceText(CharSourceRange::getTokenRange(written->getSourceRange()), sm_, ctx_.getLangOpts()).str());
    return passed;
  }

  // The parameter of `in` that a string sum (`a + b`, `a + "/" + b`) reads, -1 if none.
  static int parameter_joined(const FunctionDecl& in, const Expr* e, int depth) {
    constexpr int kMaxTerms = 8;
    const auto* sum = dyn_cast_or_null<CXXOperatorCallExpr>(e);
    if (sum == nullptr || sum->getOperator() != OO_Plus || sum->getNumArgs() != 2 || depth > kMaxTerms) return -1;
    for (const Expr* term : {strip(sum->getArg(0)), strip(sum->getArg(1))}) {
      if (const int param = parameter_named(in, term); param >= 0) return param;
      if (const int param = parameter_joined(in, term, depth + 1); param >= 0) return param;
    }
    return -1;
  }

  // `c.model_path` of a parameter `c` (or of a field a constructor initialises from one:
  // `param_(std::move(param))`, then `param_.model_path`), read from what each call passes: an
  // aggregate (`Cfg{"det.pt"}`) or a builder method that sets the field from its parameter
  // (`Param().set_net("det.pt")`). Public round 18 C++ (VisualFusion_libtorch's
  // `ImageAlign::Param::set_net`): two objects built with two archives got the one `--archive
  // param_.model_path=PATH` named, silently. nullopt when a call passes what this does not read.
  std::optional<Sources> field_of_parameter(const Expr* written, const FunctionDecl& in) const {
    const auto* member = dyn_cast<MemberExpr>(string_of(strip(written)));
    const auto* field = member != nullptr ? dyn_cast<FieldDecl>(member->getMemberDecl()) : nullptr;
    if (field == nullptr) return std::nullopt;
    const int param = parameter_named(in, constructor_parameter_kept(in, unmoved(strip(member->getBase()))));
    if (param < 0) return std::nullopt;
    const auto key = std::make_pair(in.getCanonicalDecl(), -2 - param);
    const std::vector<CallSite>& calls = call_sites_.of(&in);
    if (calls.empty() || passing_.count(key)) return std::nullopt;
    passing_.insert(key);
    Sources out;
    bool read = true;
    for (const CallSite& call : calls) {
      const Expr* value = static_cast<size_t>(param) < call.args.size()
                              ? field_value(call.args[static_cast<size_t>(param)], *field, 0)
                              : nullptr;
      if (value == nullptr) {
        read = false;
        break;
      }
      Sources given = sources_of(value, call.caller, call.at);
      for (const auto& [load, where] : given.loads) out.loads.emplace(load, where);
      out.parameters.insert(given.parameters.begin(), given.parameters.end());
    }
    passing_.erase(key);
    if (!read || out.loads.empty()) return std::nullopt;
    // The path as written (`param_.model_path`) is what an `--archive` would name.
    out.parameters.insert(
        Lexer::getSourceText(CharSourceRange::getTokenRange(member->getSourceRange()), sm_, ctx_.getLangOpts()).str());
    return out;
  }

  // `std::move(param)`: the variable moved.
  static const Expr* unmoved(const Expr* e) {
    const auto* call = dyn_cast_or_null<CallExpr>(e);
    const FunctionDecl* callee = call != nullptr ? call->getDirectCallee() : nullptr;
    if (callee == nullptr || call->getNumArgs() != 1 || !callee->isInStdNamespace()) return e;
    const std::string name = callee->getNameAsString();
    return name == "move" || name == "forward" ? strip(call->getArg(0)) : e;
  }

  // What `field` holds in the object an argument builds: the aggregate's initializer for it, or
  // the argument a builder method called on the object assigns to it (the last such call).
  static const Expr* field_value(const Expr* object, const FieldDecl& field, int depth) {
    object = strip(object);
    if (object == nullptr || depth > 8) return nullptr;
    if (const auto* cast = dyn_cast<CXXFunctionalCastExpr>(object)) object = strip(cast->getSubExpr());
    if (const auto* list = dyn_cast<InitListExpr>(object)) {
      const unsigned index = field.getFieldIndex();
      return index < list->getNumInits() ? list->getInit(index) : nullptr;
    }
    const auto* call = dyn_cast<CXXMemberCallExpr>(object);
    const CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
    if (method == nullptr || method->getParent() != field.getParent()) return nullptr;
    if (const int assigned = parameter_assigned_to(*method, field); assigned >= 0)
      return static_cast<unsigned>(assigned) < call->getNumArgs() ? call->getArg(static_cast<unsigned>(assigned))
                                                                  : nullptr;
    return field_value(call->getImplicitObjectArgument(), field, depth + 1);  // `set_mode(...)` before it
  }

  // The parameter a method assigns to `field` (`model_path = p;` in `set_net(const std::string& p)`),
  // or -1.
  static int parameter_assigned_to(const CXXMethodDecl& method, const FieldDecl& field) {
    const FunctionDecl* definition = method.getDefinition();
    if (definition == nullptr || definition->getBody() == nullptr) return -1;
    struct Assignments : AssignmentVisitor<Assignments> {
      const FieldDecl* field = nullptr;
      const Expr* value = nullptr;
      void found(const Expr* target, const Expr* assigned) {
        const auto* m = dyn_cast<MemberExpr>(strip(target));
        if (m != nullptr && m->getMemberDecl() == field) value = assigned;
      }
    } assignments;
    assignments.field = &field;
    assignments.TraverseStmt(const_cast<Stmt*>(definition->getBody()));
    return assignments.value != nullptr ? parameter_named(*definition, unmoved(strip(assignments.value))) : -1;
  }

  // What the calls of `fd` pass as its parameter `param` (memoised; a call the function makes of
  // itself with that parameter, directly or not, adds nothing).
  const Sources& passed_to(const FunctionDecl& fd, int param) const {
    const auto key = std::make_pair(fd.getCanonicalDecl(), param);
    if (auto it = passed_.find(key); it != passed_.end()) return it->second;
    passing_.insert(key);
    Sources out;
    for (const CallSite& call : call_sites_.of(&fd)) {
      if (static_cast<size_t>(param) >= call.args.size()) continue;
      Sources given = sources_of(call.args[static_cast<size_t>(param)], call.caller, call.at);
      for (const auto& [load, where] : given.loads) out.loads.emplace(load, where);
      out.parameters.insert(given.parameters.begin(), given.parameters.end());
    }
    if (!out.loads.empty()) out.parameters.insert(fd.getParamDecl(static_cast<unsigned>(param))->getNameAsString());
    passing_.erase(key);
    return passed_[key] = std::move(out);
  }

  // The model a module parameter of `fd` holds (`torch::Tensor infer(torch::jit::Module& model,
  // ...)`, mmseg-libtorch's `inference(module, x)`): what the calls of `fd` in the file pass, each
  // a variable loaded in its function (`torch::jit::Module m = torch::jit::load(p);`, or assigned
  // so), a field or global the unit knows the load of, or a module parameter of the caller,
  // followed to its calls. Without calls in the file, or when a call passes anything else, the
  // parameter's own name, which `--archive model=PATH` names (a helper in another file than main).
  ModelLoad module_passed(const FunctionDecl& fd, const ParmVarDecl& param, const Expr& written) const {
    Sources sources;
    if (modules_passed_to(fd, param, sources, 0) && !sources.loads.empty()) return one_of(sources);
    return archive_named_by(&written);
  }

  bool modules_passed_to(const FunctionDecl& fd, const ParmVarDecl& param, Sources& out, int depth) const {
    const int index = parameter_index(fd, param);
    const std::vector<CallSite>& calls = call_sites_.of(&fd);
    if (index < 0 || calls.empty() || depth > 4) return false;
    for (const CallSite& call : calls) {
      if (static_cast<size_t>(index) >= call.args.size()) return false;
      if (!module_given(strip(call.args[static_cast<size_t>(index)]), call, out, depth)) return false;
    }
    return true;
  }

  // The loads one call's argument for a module parameter may hold; false when it is none qlint reads.
  bool module_given(const Expr* arg, const CallSite& call, Sources& out, int depth) const {
    const auto* ref = dyn_cast<DeclRefExpr>(arg);
    const ValueDecl* decl = ref != nullptr ? ref->getDecl() : nullptr;
    if (const auto* member = dyn_cast<MemberExpr>(arg)) decl = member->getMemberDecl();
    if (decl == nullptr) return false;
    if (auto stored = stored_loads_.find(decl); stored != stored_loads_.end()) {
      out.loads.emplace(stored->second, call.at);
      return true;
    }
    if (const auto* outer = dyn_cast<ParmVarDecl>(decl))
      return call.caller != nullptr && modules_passed_to(*call.caller, *outer, out, depth + 1);
    const auto* var = dyn_cast<VarDecl>(decl);
    if (var == nullptr || call.caller == nullptr || !call.caller->hasBody()) return false;
    std::vector<const Expr*> values;
    if (var->hasInit()) values.push_back(var->getInit());
    assigned_values(call.caller->getBody(), var, values);
    bool any = false;
    for (const Expr* value : values) {
      auto load = model_source(value, call.caller);
      if (!load) continue;
      out.loads.emplace(*load, value->getBeginLoc());
      any = true;
    }
    return any;
  }

  // The values `var = value;` gives a variable in a function body.
  static void assigned_values(const Stmt* body, const VarDecl* var, std::vector<const Expr*>& out) {
    std::vector<const Stmt*> pending = {body};
    for (size_t i = 0; i < pending.size(); ++i) {
      const Stmt* s = pending[i];
      const Expr* target = nullptr;
      const Expr* value = nullptr;
      if (const auto* bin = dyn_cast<BinaryOperator>(s); bin && bin->getOpcode() == BO_Assign)
        std::tie(target, value) = std::pair(bin->getLHS(), bin->getRHS());
      if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s);
          op && op->getOperator() == OO_Equal && op->getNumArgs() == 2)
        std::tie(target, value) = std::pair(op->getArg(0), op->getArg(1));
      if (const auto* ref = target != nullptr ? dyn_cast<DeclRefExpr>(strip(target)) : nullptr;
          ref != nullptr && ref->getDecl() == var)
        out.push_back(value);
      for (const Stmt* child : s->children())
        if (child != nullptr) pending.push_back(child);
    }
  }

  static int parameter_index(const FunctionDecl& fd, const ParmVarDecl& param) {
    for (unsigned i = 0; i < fd.getNumParams(); ++i)
      if (fd.getParamDecl(i) == &param) return static_cast<int>(i);
    return -1;
  }

  // One archive when the sources agree; else no archive, and the sources for the note.
  ModelLoad one_of(const Sources& sources) const {
    if (sources.loads.size() == 1) return sources.loads.begin()->first;
    if (sources.loads.empty()) return {};
    std::vector<std::pair<SourceLocation, ModelLoad>> given;
    for (const auto& [load, where] : sources.loads) given.emplace_back(where, load);
    std::stable_sort(given.begin(), given.end(), [&](const auto& a, const auto& b) {
      if (a.first.isInvalid() || b.first.isInvalid()) return b.first.isInvalid() && a.first.isValid();
      return sm_.isBeforeInTranslationUnit(a.first, b.first);
    });
    ModelLoad conflict;
    for (const auto& [where, load] : given)
      conflict.conflict += (conflict.conflict.empty() ? "" : ", ") + source_description(load, where);
    for (const std::string& p : sources.parameters) conflict.parameters += (conflict.parameters.empty() ? "" : ",") + p;
    return conflict;
  }

  // "`yolo.pt` (line 40)", "`path` (line 41, named by no --archive)"; a place in another file by
  // its name, "detector.h:12".
  std::string source_description(const ModelLoad& load, SourceLocation where) const {
    std::string what = !load.conflict.empty()  ? load.conflict
                       : !load.archive.empty() ? "`" + load.archive + "`"
                                               : "`" + load.variable + "`";
    std::string place = where_is(where);
    if (load.archive.empty() && load.conflict.empty())
      place += place.empty() ? "named by no --archive" : ", named by no --archive";
    return place.empty() ? what : what + " (" + place + ")";
  }

  // "line 12" in the checked file, "detector.h:12" in another one.
  std::string where_is(SourceLocation loc) const {
    if (loc.isInvalid()) return "";
    SourceLocation at = sm_.getExpansionLoc(loc);
    const std::string line = std::to_string(sm_.getExpansionLineNumber(at));
    if (sm_.isInMainFile(at)) return "line " + line;
    return std::filesystem::path(file_name(at)).filename().string() + ":" + line;
  }

  // `path.c_str()`, `path.data()` (AlphaPose-CPP's `_weight_path.data()`): the string they read,
  // which `--archive path=PATH` names; any other expression as it is.
  static const Expr* string_of(const Expr* path) {
    const auto* call = dyn_cast<CXXMemberCallExpr>(path);
    const CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
    if (method == nullptr || call->getNumArgs() != 0 ||
        record_name(call->getImplicitObjectArgument()->getType()).find("basic_string") == std::string::npos)
      return path;
    const std::string name = method->getNameAsString();
    return name == "c_str" || name == "data" ? strip(call->getImplicitObjectArgument()) : path;
  }

  // The archive an expression that is a load's path names (`"yolo.pt"`, `path`, `argv[1]`).
  ModelLoad archive_named_by(const Expr* written) const {
    if (const auto* fallback = dyn_cast<CXXDefaultArgExpr>(written)) written = fallback->getExpr();
    const Expr* path = strip(written);
    if (const auto* literal = dyn_cast<StringLiteral>(path)) {
      const std::string redirected = archive_names_.literal(literal->getString().str());
      return {redirected.empty() ? literal->getString().str() : redirected, "", "", "", "", ""};
    }
    path = string_of(path);
    // A variable by its name (a static member's or global's qualified), any other expression
    // (`argv[1]`, `cfg.model`) as it is written.
    const auto* ref = dyn_cast<DeclRefExpr>(path);
    const std::string as_written =
        Lexer::getSourceText(CharSourceRange::getTokenRange(path->getSourceRange()), sm_, ctx_.getLangOpts()).str();
    const std::string name = ref != nullptr ? variable_name(*ref, as_written) : as_written;
    if (name.empty() || name.size() > 200 || name.find('\n') != std::string::npos) return {};
    const ArchiveName named = archive_names_.lookup(ref, as_written);
    // An ambiguous `--archive` has a note of its own, which names the variable.
    const bool unnamed = named.archive.empty() && named.ambiguous.empty();
    return {named.archive, unnamed ? name : "", "", "", named.ambiguous, unnamed ? named.qualified : ""};
  }

  // The `--archive` entries, and which of them the file's code named.
  ArchiveNames archive_names_{options_.archives, options_.ambiguous_names};

  // `torch::jit::Module module_;` set from a load, in a constructor's initializer
  // (`Detector() : module_(torch::jit::load("yolo.pt"))`) or by an assignment in any method: the
  // methods that run `module_.forward(...)` run that archive (YOLOv5's C++ ports hold the model
  // so). The same for a namespace-scope module, loaded in one function and run in others (demo
  // programs' `torch::jit::script::Module module;`). A field or global set from two archives has
  // none.
  std::map<const ValueDecl*, ModelLoad> stored_loads_;

  // Where the unit's functions are called, and what they pass to a parameter that names an
  // archive (memoised).
  CallSites call_sites_;
  mutable std::map<std::pair<const FunctionDecl*, int>, Sources> passed_;
  mutable std::set<std::pair<const FunctionDecl*, int>> passing_;  // being read: a recursive call

  // The model a value is, when the code says which archive it loads: `torch::jit::load(path)`,
  // the same in braces or held by a smart pointer (`std::make_unique<torch::jit::Module>(...)`),
  // or a call of a function of the file that returns a model it loads (crnn_libtorch's
  // `loadModule(modelFile)`).
  // `in` is the function the value is computed in (null: none, or its parameters are not to be
  // read from its calls).
  std::optional<ModelLoad> model_source(const Expr* value, const FunctionDecl* in, int depth = 0) const {
    const Expr* e = strip(value);
    if (const auto* member_default = dyn_cast_or_null<CXXDefaultInitExpr>(e)) e = strip(member_default->getExpr());
    if (const Expr* held = made_holder_of(e)) e = strip(held);
    const auto* call = dyn_cast_or_null<CallExpr>(e);
    if (call == nullptr) return std::nullopt;
    if (is_model_load(call->getDirectCallee())) return load_in(*call, in);
    return loader_result(*call, in, depth);
  }

  // What a function of the file that returns a model loads: one archive whatever it is given
  // (`return torch::jit::load("crnn.pt");`), or the one its parameter `param` names.
  struct Loader {
    std::optional<ModelLoad> fixed;
    int param = -1;
  };

  // A call of such a function: its archive, with the path argument of this call in place of the
  // parameter (a variable of the caller is what `--archive VAR=PATH` names).
  std::optional<ModelLoad> loader_result(const CallExpr& call, const FunctionDecl* in, int depth) const {
    const FunctionDecl* callee = call.getDirectCallee();
    if (callee == nullptr || depth > 4 || isa<CXXOperatorCallExpr>(call) || !holds_module(call.getType()) ||
        function_name(callee) == nullptr)
      return std::nullopt;
    const Loader loader = loader_of(*callee, depth);
    if (loader.param >= 0 && static_cast<unsigned>(loader.param) < call.getNumArgs())
      return one_of(sources_of(call.getArg(static_cast<unsigned>(loader.param)), in, call.getBeginLoc()));
    return loader.fixed;
  }

  // The loads in the function's body, when they all agree: from the same parameter, or the same
  // archive. Functions that pick one of several archives are not followed.
  Loader loader_of(const FunctionDecl& fd, int depth) const {
    const FunctionDecl* definition = fd.getDefinition();
    if (definition == nullptr || definition->getBody() == nullptr) return {};
    struct Calls : RecursiveASTVisitor<Calls> {
      std::vector<const CallExpr*> found;
      bool VisitCallExpr(CallExpr* c) {
        found.push_back(c);
        return true;
      }
    } calls;
    calls.TraverseStmt(const_cast<Stmt*>(definition->getBody()));
    std::set<std::pair<int, ModelLoad>> sources;
    for (const CallExpr* c : calls.found) {
      if (is_model_load(c->getDirectCallee()) && c->getNumArgs() > 0) {
        sources.insert({parameter_named(*definition, c->getArg(0)), load_of(*c)});
      } else if (c->getDirectCallee() != definition && holds_module(c->getType())) {
        if (std::optional<ModelLoad> inner = loader_result(*c, nullptr, depth + 1)) sources.insert({-1, *inner});
      }
    }
    if (sources.size() != 1) return {};
    const auto& [param, load] = *sources.begin();
    return param >= 0 ? Loader{std::nullopt, param} : Loader{load, -1};
  }

  // `Stored(const std::string& p) : path_(p) { module_ = torch::jit::load(path_); }`: in the
  // constructor, the field is the parameter it was initialised from, so each object's archive is
  // what its construction passes (two objects built from two literals are two archives, which
  // no one `--archive path_=PATH` could give). Any other path as it is.
  static const Expr* constructor_parameter_kept(const FunctionDecl& fd, const Expr* path) {
    const auto* member = dyn_cast<MemberExpr>(path);
    const auto* constructor = dyn_cast<CXXConstructorDecl>(&fd);
    if (member == nullptr || constructor == nullptr || !isa<CXXThisExpr>(member->getBase()->IgnoreImpCasts()))
      return path;
    for (const CXXCtorInitializer* init : constructor->inits())
      if (init->getMember() == member->getMemberDecl() && init->getInit() != nullptr)
        if (const auto* ref = dyn_cast<DeclRefExpr>(unmoved(strip(init->getInit())));
            ref && isa<ParmVarDecl>(ref->getDecl()))
          return ref;
    return path;
  }

  // `Kp() : path_("kp.pt") { net_ = torch::jit::load(path_); }` (or `std::string path_ = "kp.pt";`
  // in the class): in the constructor the field still holds the literal it was initialised with,
  // which names the archive (public round 18 C++: "give its path with `--archive path_=PATH`"
  // with the path in the file). Any other path as it is.
  static const Expr* literal_kept_in_constructor(const FunctionDecl& fd, const Expr* path) {
    const auto* member = dyn_cast<MemberExpr>(string_of(strip(path)));
    const auto* constructor = dyn_cast<CXXConstructorDecl>(&fd);
    if (member == nullptr || constructor == nullptr || !isa<CXXThisExpr>(member->getBase()->IgnoreImpCasts()))
      return path;
    for (const CXXCtorInitializer* init : constructor->inits()) {
      if (init->getMember() != member->getMemberDecl() || init->getInit() == nullptr) continue;
      const Expr* value = init->getInit();
      if (const auto* in_class = dyn_cast<CXXDefaultInitExpr>(value)) value = in_class->getExpr();
      return isa<StringLiteral>(strip(value)) ? value : path;
    }
    return path;
  }

  // The index of the parameter of `fd` a load's path is (`path`, `path.c_str()`), or -1.
  static int parameter_named(const FunctionDecl& fd, const Expr* path) {
    path = string_of(strip(path));
    path = constructor_parameter_kept(fd, path);
    const auto* ref = dyn_cast<DeclRefExpr>(path);
    const auto* param = ref != nullptr ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
    if (param == nullptr) return -1;
    for (unsigned i = 0; i < fd.getNumParams(); ++i)
      if (fd.getParamDecl(i) == param) return static_cast<int>(i);
    return -1;
  }

  // The file's own variables at namespace scope that are initialised where declared
  // (`torch::jit::Module net = torch::jit::load("m.pt");`), also inside namespaces.
  static void initialised_globals(const Decl& decl, std::vector<const VarDecl*>& out) {
    if (const auto* var = dyn_cast<VarDecl>(&decl); var && var->hasGlobalStorage() && var->hasInit())
      out.push_back(var);
    if (isa<NamespaceDecl>(decl) || isa<LinkageSpecDecl>(decl))
      for (const Decl* inner : cast<DeclContext>(decl).decls()) initialised_globals(*inner, out);
  }

  void collect_stored_archives(const std::vector<const FunctionDecl*>& functions,
                               const std::vector<const VarDecl*>& globals) {
    std::map<const ValueDecl*, Sources> seen;
    const FunctionDecl* in = nullptr;  // the function whose assignments are read
    auto note = [&](const ValueDecl* stored, const Expr* value) {
      if (stored == nullptr || value == nullptr) return;
      std::optional<ModelLoad> load = model_source(value, in);
      if (!load) return;
      seen[stored].loads.emplace(*load, value->getBeginLoc());
      for (llvm::StringRef rest = load->parameters; !rest.empty();) {
        auto [parameter, after] = rest.split(',');
        seen[stored].parameters.insert(parameter.str());
        rest = after;
      }
    };
    auto note_assignment = [&](const Expr* target, const Expr* value) {
      target = held_module_of(target);
      if (const auto* member = dyn_cast_or_null<MemberExpr>(strip(target)))
        note(dyn_cast<FieldDecl>(member->getMemberDecl()), value);
      if (const auto* ref = dyn_cast_or_null<DeclRefExpr>(strip(target)))
        if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()); var != nullptr && var->hasGlobalStorage())
          note(var, value);
    };
    struct Assignments : AssignmentVisitor<Assignments> {
      std::function<void(const Expr*, const Expr*)> found;
      // `module.reset(new torch::jit::Module(torch::jit::load(path)))`: the pointer now holds it.
      bool VisitCXXMemberCallExpr(CXXMemberCallExpr* call) {
        const CXXMethodDecl* method = call->getMethodDecl();
        if (method != nullptr && method->getName() == "reset" && call->getNumArgs() == 1 &&
            holds_module(call->getImplicitObjectArgument()->getType()))
          if (const auto* made = dyn_cast<CXXNewExpr>(strip(call->getArg(0))); made && made->hasInitializer())
            found(call->getImplicitObjectArgument(), made->getInitializer());
        return true;
      }
    } assignments;
    assignments.found = note_assignment;
    std::set<const CXXRecordDecl*> classes;
    for (const FunctionDecl* fd : functions) {
      in = fd;
      if (const auto* ctor = dyn_cast<CXXConstructorDecl>(fd))
        for (const CXXCtorInitializer* init : ctor->inits())
          if (init->isMemberInitializer() && !isa<CXXDefaultInitExpr>(init->getInit()))
            note(init->getMember(), init->getInit());
      if (const auto* method = dyn_cast<CXXMethodDecl>(fd)) classes.insert(method->getParent());
      assignments.TraverseStmt(const_cast<Stmt*>(fd->getBody()));
    }
    // Default member initialisers (`torch::jit::Module m_ = torch::jit::load(...);`, or in braces)
    // of the classes whose methods the file defines: every constructor that does not say
    // otherwise loads that archive.
    in = nullptr;
    for (const CXXRecordDecl* record : classes)
      for (const FieldDecl* f : record->fields())
        if (f->hasInClassInitializer()) note(f, f->getInClassInitializer());
    // A global initialised where it is declared (public C++ round 21: its runs said qlint did
    // not see its archive).
    for (const VarDecl* var : globals) note(var, var->getInit());
    // A field or global set from different archives is none of them: a note at its runs lists them.
    for (const auto& [stored, sources] : seen) {
      stored_loads_[stored] = one_of(sources);
      if (const auto* field = dyn_cast<FieldDecl>(stored))
        tell_of_model_field(*field, stored_loads_[stored], sources.loads.begin()->second);
    }
  }

  // Why a model run (or a field's load) has no archive here, for the note in another file that
  // uses it, when the run's own note says more than that qlint does not see it; else "".
  static std::string why_unlinked(const std::string& variable, bool conflict, bool ambiguous) {
    if (!variable.empty())
      return "its archive is named by `" + variable + "` there: give its path with " + ir::archive_flag(variable);
    if (conflict) return "it is loaded from different archives there (see the note at the run)";
    if (ambiguous) return "the `--archive` for it there fits several variables (see the note at the run)";
    return "";
  }

  // A model field this file loads, told to the files whose methods run it: a base class's
  // constructor in its own file loads `module_`, a derived class's method in another runs it
  // (public C++ round 19's pytorch_enet_ros: its outputs counted as unquantized, and
  // `--archive filename=PATH` for the loader's parameter had no effect there).
  void tell_of_model_field(const FieldDecl& field, const ModelLoad& load, SourceLocation at) {
    ReturnedModel told;
    told.function = field.getQualifiedNameAsString();
    const ir::SourceLoc loc = location(SourceRange(at, at));
    told.where = std::filesystem::path(loc.file).filename().string() + ":" + std::to_string(loc.line);
    told.archive = load.archive;
    told.why = why_unlinked(load.variable, !load.conflict.empty(), !load.ambiguous.empty());
    if (told.why.empty() && told.archive.empty()) told.why = "qlint does not see which archive it loads there";
    returns_model_[model_field_key(field)] = told;
  }

  // `*module = torch::jit::load(path)` (detector_desktop's loader, after
  // `module.reset(new torch::jit::script::Module)`): assigning through a pointer that holds a
  // model sets the model the pointer holds, the field's. Any other target as it is.
  static const Expr* held_module_of(const Expr* target) {
    const Expr* e = strip(target);
    const Expr* pointer = nullptr;
    if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(e);
        op && op->getOperator() == OO_Star && op->getNumArgs() == 1)
      pointer = op->getArg(0);
    if (const auto* un = dyn_cast_or_null<UnaryOperator>(e); un && un->getOpcode() == UO_Deref)
      pointer = un->getSubExpr();
    return pointer != nullptr && holds_module(strip(pointer)->getType()) ? strip(pointer) : target;
  }

  bool is_quant_function(const FunctionDecl& fd) const {
    std::string name = fd.getQualifiedNameAsString();
    for (const auto& configured : options_.quant_functions) {
      if (configured.empty() || configured.size() > name.size()) continue;
      size_t start = name.size() - configured.size();
      if (name.compare(start, configured.size(), configured) == 0 &&
          (start == 0 || (start >= 2 && name.compare(start - 2, 2, "::") == 0)))
        return true;
    }
    return false;
  }

  void read_source_lines() {
    FileID main = sm_.getMainFileID();
    if (sm_.getFileEntryForID(main) == nullptr) return;
    model_.file = read_lines_of(main);
  }

  // The lines of a file the unit reads (the main file, a header of the project's own), for
  // messages, fixes and suppressions; returns its name.
  std::string read_lines_of(FileID id) {
    std::string file = file_name(sm_.getLocForStartOfFile(id));
    if (model_.source_lines.count(file)) return file;
    std::istringstream in(sm_.getBufferData(id).str());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      model_.source_lines[file][number] = line;
    }
    return file;
  }

  // Whether code at `loc` is the project's own: the main file, or a header in the main file's
  // git work tree (its directory's, without one) that is no system header. Third-party headers
  // (LibTorch's, installed elsewhere) are not: their code holds nothing of the project's.
  bool own_code(SourceLocation loc) {
    SourceLocation at = sm_.getExpansionLoc(loc);
    if (at.isInvalid()) return false;
    if (sm_.isInMainFile(at)) return true;
    FileID id = sm_.getFileID(at);
    if (auto it = own_files_.find(id); it != own_files_.end()) return it->second;
    bool own = false;
    if (!sm_.isInSystemHeader(at) && sm_.getFileEntryForID(id) != nullptr) {
      std::error_code ec;
      const std::string header = std::filesystem::weakly_canonical(file_name(at), ec).string();
      const std::string root = project_root() + "/";
      own = !ec && header.compare(0, root.size(), root) == 0;
    }
    return own_files_[id] = own;
  }

  // The main file's git work tree, or its directory when it is in none.
  const std::string& project_root() {
    if (!project_root_.empty()) return project_root_;
    std::error_code ec;
    std::filesystem::path dir =
        std::filesystem::weakly_canonical(file_name(sm_.getLocForStartOfFile(sm_.getMainFileID())), ec).parent_path();
    project_root_ = dir.string();
    for (std::filesystem::path up = dir; !up.empty(); up = up.parent_path()) {
      if (std::filesystem::exists(up / ".git", ec)) {
        project_root_ = up.string();
        break;
      }
      if (up == up.root_path()) break;
    }
    return project_root_;
  }

  std::map<FileID, bool> own_files_;
  std::string project_root_;

  // A tensor field set from a model's quantized outputs in one method (`last_ = det_({x}).toTensor();`
  // in `infer`) and read in another (`decode`): there it is a value from outside, which carries
  // nothing, and a note at the read says so (public round 19: a tracker's shape, silent). The
  // reads are marked once every function is lowered, as a setter may come after its readers.
  struct FieldSet {
    std::set<const FunctionDecl*> in;  // the methods that set it so (a read there is followed)
    std::string where;                 // the first of them, for the note
  };
  struct FieldRead {
    ir::Node* read = nullptr;
    const ValueDecl* field = nullptr;
    const FunctionDecl* in = nullptr;
  };
  std::map<const ValueDecl*, FieldSet> model_output_fields_;
  std::vector<FieldRead> field_reads_;

  void mark_unfollowed_field_reads() {
    for (const FieldRead& r : field_reads_) {
      auto set = model_output_fields_.find(r.field);
      if (set == model_output_fields_.end() || set->second.in.count(r.in) != 0) continue;
      r.read->set_attr("unfollowed_field", ir::Attr::of_str(r.field->getNameAsString() + "\n" + set->second.where));
    }
  }

  // A call's argument that is a model's outputs (CrossFileFacts::passes_model). Calls that pass
  // different models (or elements) to one parameter leave it unknown.
  void model_passed(const std::string& key, size_t parameter, const ReturnedModel& run) {
    if (conflicting_passes_.count({key, parameter})) return;
    auto [it, first] = passes_model_[key].try_emplace(parameter, run);
    if (!first && std::tie(it->second.archive, it->second.element) != std::tie(run.archive, run.element)) {
      passes_model_[key].erase(it);
      conflicting_passes_.insert({key, parameter});
    }
  }

  // What the other files are told of this one, and what they may tell it (CrossFileFacts).
  std::map<std::string, ReturnedModel> returns_model_;
  std::set<std::string> calls_elsewhere_;
  std::map<std::string, std::map<size_t, ReturnedModel>> passes_model_;
  std::set<std::pair<std::string, size_t>> conflicting_passes_;
  std::set<std::string> defines_;
};

// The parameters through which a function hands tensors back to its caller: non-const references
// to a tensor (`void get_boxes(const c10::IValue& out, torch::Tensor& boxes)`). The body returns
// what each holds at its end after its own return value, and each call gives it to the
// argument's variable (public C++ round 23: mmdetection's `get_bboxes(output, bboxes, scores)`,
// after which nothing was checked).
std::vector<unsigned> tensor_out_parameters(const FunctionDecl& fd) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < fd.getNumParams(); ++i) {
    const QualType type = fd.getParamDecl(i)->getType();
    if (type->isLValueReferenceType() && !type.getNonReferenceType().isConstQualified() &&
        is_tensor_type(type.getNonReferenceType().getCanonicalType().getUnqualifiedType()))
      out.push_back(i);
  }
  return out;
}

class FunctionLowering {
 public:
  FunctionLowering(UnitLowering& unit, ir::Function& fn) : unit_(unit), fn_(fn) {}

  void run(const FunctionDecl& fd) {
    fd_ = &fd;
    auto passed = unit_.options_.passed_models.find(function_key(fd));
    for (const ParmVarDecl* p : fd.parameters()) {
      ir::Type type = ir_type(p->getType()).value_or(ir::Type::other(p->getType().getAsString()));
      ir::Value* v = fn_.add_param(fn_.body, unique_name(p->getNameAsString()), type);
      vars_[p] = v;
      if (passed == unit_.options_.passed_models.end() || !unit_.options_.archive_quantized) continue;
      if (auto model = passed->second.find(p->getFunctionScopeIndex()); model != passed->second.end())
        vars_[p] = passed_in(*p, v, model->second);
    }
    collect_assigned(fd.getBody());
    stmt(fd.getBody());
    return_out_parameters(fd);
  }

 private:
  // Statements: straight-line code in source order; both arms of an `if` and one pass of a
  // loop body, joining what a variable may hold afterwards.
  void stmt(const Stmt* s) {
    if (s == nullptr) return;
    if (const auto* compound = dyn_cast<CompoundStmt>(s)) {
      for (const Stmt* child : compound->body()) stmt(child);
    } else if (const auto* decl = dyn_cast<DeclStmt>(s)) {
      for (const Decl* d : decl->decls())
        if (const auto* var = dyn_cast<VarDecl>(d)) declare(*var);
    } else if (const auto* ret = dyn_cast<ReturnStmt>(s)) {
      if (ret->getRetValue() == nullptr) return;
      ir::Value* v = expr(ret->getRetValue());
      if (v == nullptr) return;
      if (fn_.body.returns.empty()) {
        fn_.body.returns.push_back(v);
      } else {
        fn_.body.returns[0] = join({fn_.body.returns[0], v}, ret->getRetValue());
      }
    } else if (const auto* branch = dyn_cast<IfStmt>(s)) {
      if (branch->getInit()) stmt(branch->getInit());
      if (branch->getConditionVariable()) declare(*branch->getConditionVariable());
      if (branch->getCond()) expr(branch->getCond());
      auto before = vars_;
      stmt(branch->getThen());
      auto after_then = vars_;
      vars_ = before;
      stmt(branch->getElse());
      merge_branches(after_then, s);
    } else if (const auto* choice = dyn_cast<SwitchStmt>(s)) {
      switch_stmt(*choice);
    } else if (const auto* loop = dyn_cast<ForStmt>(s)) {
      stmt(loop->getInit());
      if (loop->getCond()) expr(loop->getCond());
      loop_body(loop->getBody(), s);
      if (loop->getInc()) expr(loop->getInc());
    } else if (const auto* range = dyn_cast<CXXForRangeStmt>(s)) {
      range_for(*range);
    } else if (const auto* w = dyn_cast<WhileStmt>(s)) {
      if (w->getCond()) expr(w->getCond());
      loop_body(w->getBody(), s);
    } else if (const auto* d = dyn_cast<DoStmt>(s)) {
      loop_body(d->getBody(), s);
    } else if (const auto* t = dyn_cast<CXXTryStmt>(s)) {
      stmt(t->getTryBlock());
    } else if (const auto* omp = dyn_cast<OMPExecutableDirective>(s)) {
      // `#pragma omp parallel for` (with -fopenmp): the loop it runs in threads computes what it
      // computes without the pragma, and projects put it on their post-processing loops.
      if (omp->hasAssociatedStmt()) stmt(omp->getAssociatedStmt());
    } else if (const auto* captured = dyn_cast<CapturedStmt>(s)) {
      stmt(captured->getCapturedStmt());  // an OpenMP region's statement, as written
    } else if (const auto* e = dyn_cast<Expr>(s)) {
      expr(e);
    }
  }

  // Variables the function assigns to after their declaration (`x = ...`, `x *= m`, `x.mul_(m)`):
  // a fix may not name one of them in place of another value.
  void collect_assigned(const Stmt* body) {
    std::vector<const Stmt*> pending = {body};
    for (size_t i = 0; i < pending.size(); ++i) {
      const Stmt* s = pending[i];
      if (const auto* bin = dyn_cast<BinaryOperator>(s); bin && bin->isAssignmentOp()) {
        if (const ValueDecl* d = assigned(bin->getLHS())) assigned_.insert(d);
      } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->isAssignmentOp()) {
        if (const ValueDecl* d = assigned(op->getArg(0))) assigned_.insert(d);
      } else if (const auto* call = dyn_cast<CXXMemberCallExpr>(s)) {
        const CXXMethodDecl* m = call->getMethodDecl();
        std::string name = m ? m->getNameAsString() : "";
        if (name.size() > 1 && name.back() == '_' && call->getImplicitObjectArgument())
          if (const ValueDecl* d = assigned(call->getImplicitObjectArgument())) assigned_.insert(d);
      }
      for (const Stmt* child : s->children())
        if (child != nullptr) pending.push_back(child);
    }
  }

  // `for (const auto& e : out.toTuple()->elements())`: the loop variable is each element in
  // turn, an element at an index not known, which may be any of the tuple's (public round 19:
  // SFD and LibtorchInfer gather a model's outputs so). Clang declares it `= *__begin`, which
  // names nothing of the range, so the range is read here.
  void range_for(const CXXForRangeStmt& loop) {
    const VarDecl* var = loop.getLoopVariable();
    const Expr* range = loop.getRangeInit();
    ir::Value* elements = range != nullptr ? expr(range) : nullptr;
    auto type = var != nullptr ? ir_type(var->getType()) : std::nullopt;
    const std::vector<const FieldDecl*> fields =
        range != nullptr ? element_fields(range->getType()) : std::vector<const FieldDecl*>{};
    if (elements != nullptr && !fields.empty() && elements->type.kind == ir::Type::Kind::Tuple &&
        !isa<DecompositionDecl>(var)) {  // `for (const Det& d : dets)`
      ir::Value* index = single("cxx::range_for_index", {}, ir::Type::simple(ir::Type::Kind::Int), range);
      bind(var, record_element(elements, index, fields, *range));
      record_elements_.insert(var);
    } else if (elements != nullptr && type && elements->type.kind == ir::Type::Kind::Tuple &&
               !isa<DecompositionDecl>(var)) {
      ir::Value* index = single("cxx::range_for_index", {}, ir::Type::simple(ir::Type::Kind::Int), range);
      bind(var, element_of_tuple(elements, index, *type, *range));
    } else if (var != nullptr) {
      declare(*var);
    }
    loop_body(loop.getBody(), &loop);
  }

  void loop_body(const Stmt* body, const Stmt* loop) {
    auto before = vars_;
    stmt(body);
    merge_branches(before, loop);
  }

  using Variables = std::map<const ValueDecl*, ir::Value*>;

  // After two paths, a variable holds either path's value.
  void merge_branches(const Variables& other, const Stmt* where) { vars_ = merge_paths({other, vars_}, where); }

  // What each variable may hold after several paths: the join of the paths' values. A field or
  // global one path did not touch keeps its value from before the function (`if (n % 5 == 0)
  // saved_ = model.forward(x).toTensor();` leaves saved_ the output or its old value, and both
  // carry what the output carries); a local another path lacks was declared on one path only, or
  // without a value.
  Variables merge_paths(const std::vector<Variables>& paths, const Stmt* where) {
    Variables merged;
    for (const Variables& path : paths)
      for (const auto& [decl, value] : path)
        if (value != nullptr && merged.count(decl) == 0) merged[decl] = merged_value(decl, paths, where);
    return merged;
  }

  ir::Value* merged_value(const ValueDecl* decl, const std::vector<Variables>& paths, const Stmt* where) {
    std::vector<ir::Value*> values;
    bool untouched = false;    // some path leaves it as it was before the function
    ir::Value* old = nullptr;  // a path's read of that value (field() reads it so), reused
    for (const Variables& path : paths) {
      auto it = path.find(decl);
      if (it == path.end() || it->second == nullptr) {
        untouched = true;
      } else if (outlives_function(decl) && is_value_from_outside(it->second, decl)) {
        old = it->second;
      } else if (std::find(values.begin(), values.end(), it->second) == values.end()) {
        values.push_back(it->second);
      }
    }
    if (old == nullptr && untouched && outlives_function(decl)) old = value_from_outside(decl, where);
    if (old != nullptr) values.push_back(old);
    return values.size() == 1 ? values[0] : join(values, where);
  }

  static bool is_value_from_outside(const ir::Value* v, const ValueDecl* decl) {
    const ir::Attr* name =
        v->producer != nullptr && v->producer->kind == "prim::GetAttr" ? v->producer->attr("name") : nullptr;
    return name != nullptr && name->kind == ir::Attr::Kind::Str && name->s == decl->getNameAsString();
  }

  // A field or a global: it holds a value before the function runs, and keeps it after.
  // A model the unit knows the load of is read again from that load instead.
  bool outlives_function(const ValueDecl* decl) const {
    if (unit_.stored_loads_.count(decl)) return false;
    if (isa<FieldDecl>(decl)) return true;
    const auto* var = dyn_cast<VarDecl>(decl);
    return var != nullptr && var->hasGlobalStorage() && !var->isStaticLocal();
  }

  // The value a field or global holds when the function starts (prim::GetAttr, as field() reads
  // it), or null for one of a type tensor code does not follow.
  ir::Value* value_from_outside(const ValueDecl* decl, const Stmt* where) {
    auto type = ir_type(decl->getType());
    if (!type) return nullptr;
    ir::Value* v = single("prim::GetAttr", {}, *type, where);
    v->producer->set_attr("name", ir::Attr::of_str(decl->getNameAsString()));
    return v;
  }

  // `switch`: each case a path from the state before it (a fallthrough is read as a path of its
  // own), and without a `default`, also the path that runs no case.
  void switch_stmt(const SwitchStmt& choice) {
    if (choice.getInit()) stmt(choice.getInit());
    if (choice.getConditionVariable()) declare(*choice.getConditionVariable());
    if (choice.getCond()) expr(choice.getCond());
    const auto* body = dyn_cast_or_null<CompoundStmt>(choice.getBody());
    if (body == nullptr) return loop_body(choice.getBody(), &choice);
    const Variables before = vars_;
    std::vector<Variables> paths;
    bool has_default = false, in_case = false;
    for (const Stmt* child : body->body()) {
      if (isa<SwitchCase>(child)) {
        if (in_case) paths.push_back(vars_);
        vars_ = before;
        in_case = true;
        while (const auto* label = dyn_cast_or_null<SwitchCase>(child)) {
          has_default = has_default || isa<DefaultStmt>(label);
          child = label->getSubStmt();
        }
      }
      stmt(child);
    }
    if (in_case) paths.push_back(vars_);
    if (!has_default) paths.push_back(before);
    vars_ = merge_paths(paths, &choice);
  }

  ir::Value* join(const std::vector<ir::Value*>& values, const Stmt* where) {
    ir::Node* n = emit("prim::join", where);
    for (ir::Value* v : values) fn_.add_input(*n, v);
    ir::Value* out = fn_.add_output(*n, fresh(), values[0]->type);
    keep_what_every_path_knows(values, model_elements_, out);
    keep_what_every_path_knows(values, model_keys_, out);
    return out;
  }

  // A variable that holds the same model's outputs on every path (`output = m.forward(...)` run
  // again in a benchmark loop) still holds them element by element after the join (public round
  // 18 C++: the int64 labels of detectron2's sample were taken for quantized after such a loop).
  template <typename Known>
  static void keep_what_every_path_knows(const std::vector<ir::Value*>& values,
                                         std::map<const ir::Value*, Known>& known, const ir::Value* out) {
    auto first = known.find(values[0]);
    if (first == known.end()) return;
    for (const ir::Value* v : values)
      if (auto it = known.find(v); it == known.end() || !(it->second == first->second)) return;
    known[out] = first->second;
  }

  void declare(const VarDecl& var) {
    if (!var.hasInit()) return;
    ir::Value* v = expr(var.getInit());
    // `std::vector<torch::Tensor> output(n)`: a vector of n tensors, not the count n that strip()
    // takes a one-argument constructor's argument for; element assignments then fill it.
    if (v != nullptr && v->type.kind != ir::Type::Kind::Tuple && is_container(var.getType()))
      if (const auto* construct = dyn_cast<CXXConstructExpr>(var.getInit()->IgnoreImplicit())) v = opaque(*construct);
    if (v == nullptr) return;
    bind(&var, v);
    if (const auto* decomposition = dyn_cast<DecompositionDecl>(&var)) bind_structured(*decomposition);
    note_accessed_tensor(var);
  }

  // `auto a = scores.accessor<float, 1>();`: what is written through `a` is written into `scores`.
  void note_accessed_tensor(const VarDecl& var) {
    if (!is_accessor_type(var.getType())) return;
    const auto* call = dyn_cast<CXXMemberCallExpr>(strip(var.getInit()));
    const CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
    if (method == nullptr || !is_accessor_method(method->getNameAsString())) return;
    if (const ValueDecl* tensor = assigned(call->getImplicitObjectArgument())) accessed_tensor_[&var] = tensor;
  }

  // `a[i][j] = v` through such an accessor: from here on the tensor holds v among its elements
  // (public C++ round 24: pose post-processing hands its keypoint scores back only so, and a
  // later `scores == 1` compared the model's rounded values unseen). False for any other target.
  bool write_through_accessor(const Expr* target, ir::Value* written, const Expr& at) {
    const Expr* base = strip(target);
    while (const auto* op = dyn_cast<CXXOperatorCallExpr>(base))
      if (op->getOperator() == OO_Subscript)
        base = strip(op->getArg(0));
      else
        break;
    const ValueDecl* accessor = base != strip(target) ? assigned(base) : nullptr;
    auto tensor = accessor != nullptr ? accessed_tensor_.find(accessor) : accessed_tensor_.end();
    if (tensor == accessed_tensor_.end() || written == nullptr) return false;
    auto held = vars_.find(tensor->second);
    if (held == vars_.end() || held->second == nullptr || !held->second->type.is_tensor()) return false;
    ir::Value* filled = single("cxx::accessor_write", {held->second, written}, held->second->type, &at);
    bind(tensor->second, filled);
    vars_[accessor] = filled;
    return true;
  }

  // `auto [v, j] = torch::max(q, 1);`: each name is its element, as `std::get<N>` reads it (the
  // values carry the quantization, the int64 indices are exact). Clang spells a tuple's element
  // as a hidden variable initialised with `std::get<N>(e)`, a struct's as `e.field`.
  void bind_structured(const DecompositionDecl& decomposition) {
    for (const BindingDecl* binding : decomposition.bindings()) {
      ir::Value* element = nullptr;
      if (const VarDecl* holding = binding->getHoldingVar()) {
        declare(*holding);
        auto it = vars_.find(holding);
        element = it != vars_.end() ? it->second : nullptr;
      } else if (binding->getBinding() != nullptr) {
        element = expr(binding->getBinding());
      }
      if (element != nullptr) bind(binding, element);
    }
  }

  // `output[xi] = x.index({i})`, `output.at(xi) = t`: the vector holds what it was given, as
  // after `output.push_back(...)` (the NMS helpers that size their result first, then fill it
  // element by element). False for any other assignment.
  bool assign_element(const Expr* target, ir::Value* item, const Expr& at) {
    const Expr* e = strip(target);
    const Expr* container = nullptr;
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getOperator() == OO_Subscript)
      container = op->getArg(0);
    if (const auto* call = dyn_cast<CXXMemberCallExpr>(e);
        call && call->getMethodDecl() != nullptr && call->getMethodDecl()->getNameAsString() == "at")
      container = call->getImplicitObjectArgument();
    if (container == nullptr || item == nullptr || !is_container(container->getType())) return false;
    const ValueDecl* decl = assigned(container);
    ir::Value* list = decl != nullptr ? expr(container) : nullptr;
    if (list == nullptr || list->type.kind != ir::Type::Kind::Tuple) return false;
    append_to(decl, list, item, at);
    return true;
  }

  // A column of a tensor variable that a write in place replaces: `p.select(1, 5)`, or
  // `p.index({Slice(), 5})` (as also `p.index_put_({Slice(), 5}, v)` names it), with a constant
  // dimension and a constant index counted from the front.
  struct Column {
    const ValueDecl* variable = nullptr;
    const Expr* tensor = nullptr;
    int64_t dim = 0, index = 0;
  };

  std::optional<int64_t> constant_int(const Expr* e) {
    auto value = number(strip(e));
    if (!value || value->kind != ir::Attr::Kind::Int) return std::nullopt;
    return value->i;
  }

  // `{Slice(), Slice(), 5}`: every item a whole-dimension Slice() but the last, an index.
  std::optional<Column> column_of_items(const Expr* tensor, const Expr* list) {
    const std::vector<const Expr*> items = list_items(list);
    if (items.empty()) return std::nullopt;
    for (size_t i = 0; i + 1 < items.size(); ++i) {
      const auto* slice = dyn_cast<CXXConstructExpr>(strip(items[i]));
      if (record_name(strip(items[i])->getType()) != "at::indexing::Slice" || slice == nullptr) return std::nullopt;
      for (const Expr* bound : slice->arguments())
        if (!isa<CXXDefaultArgExpr>(bound)) return std::nullopt;
    }
    auto index = constant_int(items.back());
    const ValueDecl* variable = assigned(tensor);
    if (!index || *index < 0 || variable == nullptr) return std::nullopt;
    return Column{variable, tensor, static_cast<int64_t>(items.size()) - 1, *index};
  }

  std::optional<Column> column_of(const Expr* view) {
    const auto* call = dyn_cast<CXXMemberCallExpr>(strip(view));
    const CXXMethodDecl* method = call != nullptr ? call->getMethodDecl() : nullptr;
    if (method == nullptr || !is_tensor_type(call->getImplicitObjectArgument()->getType())) return std::nullopt;
    const Expr* tensor = call->getImplicitObjectArgument();
    if (method->getNameAsString() == "index" && call->getNumArgs() == 1)
      return column_of_items(tensor, call->getArg(0));
    if (method->getNameAsString() != "select" || call->getNumArgs() != 2) return std::nullopt;
    auto dim = constant_int(call->getArg(0)), index = constant_int(call->getArg(1));
    const ValueDecl* variable = assigned(tensor);
    if (!dim || !index || *dim < 0 || *index < 0 || variable == nullptr) return std::nullopt;
    return Column{variable, tensor, *dim, *index};
  }

  // `dets.select(1, 5) = ids` (also `.copy_(ids)`, `index_put_`): from here on the variable is
  // its columns before, the written one, and those after, joined as `torch::cat` would join
  // them. A later pick of that column then reads `ids` alone (class ids are whole numbers, not
  // the model's rounded outputs), as a pick of a cat's part does (analysis/cat_items.h).
  bool write_column(const Column& column, ir::Value* written, const Expr& at) {
    ir::Value* base = written != nullptr && written->type.is_tensor() ? expr(column.tensor) : nullptr;
    if (base == nullptr || !base->type.is_tensor()) return false;
    ir::Value* dim = int_constant(column.dim);
    ir::Value* before = single("aten::slice", {base, dim, int_constant(0), int_constant(column.index), int_constant(1)},
                               ir::Type::tensor(), &at);
    ir::Value* put = single("aten::unsqueeze", {written, dim}, ir::Type::tensor(), &at);
    ir::Value* after = single("aten::slice", {base, dim, int_constant(column.index + 1), none(), int_constant(1)},
                              ir::Type::tensor(), &at);
    ir::Value* parts = single("prim::ListConstruct", {before, put, after}, ir::Type::simple(ir::Type::Kind::List), &at);
    ir::Value* joined = single("aten::cat", {parts, dim}, base->type, &at);
    joined->producer->set_attr("column_write", ir::Attr::of_bool(true));  // no join as written
    vars_[column.variable] = joined;
    return true;
  }

  // `std::tie(s, i) = torch::topk(q, 5);`: each variable tied gets its element of the tuple, as
  // `s = std::get<0>(...)` would (FairMOT's decoder reads its peaks so). False for any other
  // assignment.
  bool assign_tied(const Expr* target, ir::Value* tuple, const Expr& at) {
    const auto* tie = dyn_cast<CallExpr>(strip(target));
    const FunctionDecl* callee = tie != nullptr ? tie->getDirectCallee() : nullptr;
    if (callee == nullptr || callee->getQualifiedNameAsString() != "std::tie") return false;
    if (tuple == nullptr || tuple->type.kind != ir::Type::Kind::Tuple) return true;
    for (unsigned i = 0; i < tie->getNumArgs(); ++i) {
      const ValueDecl* decl = assigned(tie->getArg(i));
      auto type = ir_type(tie->getArg(i)->getType());
      if (decl != nullptr && type)  // not std::ignore
        bind(decl, element_of_tuple(tuple, int_constant(i), *type, at));
    }
    return true;
  }

  // A field set here from a model's outputs (UnitLowering::FieldSet): read in another method, it
  // gets the note that qlint does not follow it there.
  void note_model_outputs_field(const ValueDecl* decl, const ir::Value* v) {
    if (!isa<FieldDecl>(decl)) return;
    UnitLowering::FieldSet& set = unit_.model_output_fields_[decl];
    if (set.in.empty()) set.where = where_set(v);
    set.in.insert(fd_);
  }

  // `probs_.push_back(out[i].item<float>())`: a container field filled with elements of a model's
  // outputs (silero-vad's buffer of probabilities; public C++ round 26: a comparison in another
  // method got neither a finding nor the note a tensor field gets).
  void append_to(const ValueDecl* decl, ir::Value* list, ir::Value* item, const Expr& at) {
    const std::vector<const FieldDecl*> fields = element_fields(decl->getType());
    if (!fields.empty()) return append_record(decl, fields, list, item, at);
    vars_[decl] = single("aten::append", {list, item}, list->type, &at);
    if (read_from_model_run(item)) note_model_outputs_field(decl, item);
  }

  // `dets.push_back(d)` into a `std::vector<Det>` of the user's aggregate: each field is appended
  // to a column of its own, and the vector is the list of its columns (a `prim::ListConstruct`
  // marked `columns`), so that a read of `dets[i].score` holds what was stored in `score` only, not
  // the boxes' or the class ids' (public C++ round 26: the standard result type of detector
  // ports lost the model's quantization without a note).
  void append_record(const ValueDecl* decl, const std::vector<const FieldDecl*>& fields, ir::Value* list,
                     ir::Value* item, const Expr& at) {
    std::vector<ir::Value*> columns = columns_of(list, fields.size(), at);
    const std::vector<ir::Value*> items = record_items(item, fields, at);
    for (size_t i = 0; i < fields.size(); ++i) {
      columns[i] = single("aten::append", {columns[i], items[i]}, columns[i]->type, &at);
      if (read_from_model_run(items[i])) note_model_outputs_field(decl, items[i]);
    }
    vars_[decl] = record_columns(columns, at);
  }

  ir::Value* record_columns(const std::vector<ir::Value*>& columns, const Expr& at) {
    ir::Type type = ir::Type::simple(ir::Type::Kind::Tuple);
    ir::Value* out = single("prim::ListConstruct", columns, type, &at);
    out->producer->set_attr("columns", ir::Attr::of_bool(true));
    return out;
  }

  // The columns of a vector of aggregates: those its last store made, else its element at each
  // field's position (a parameter's, a call's result, an empty vector's).
  std::vector<ir::Value*> columns_of(ir::Value* list, size_t count, const Expr& at) {
    const ir::Node* p = list->producer;
    if (p != nullptr && p->kind == "prim::ListConstruct" && p->attr("columns") != nullptr && p->inputs.size() == count)
      return p->inputs;
    std::vector<ir::Value*> columns;
    for (size_t i = 0; i < count; ++i)
      columns.push_back(single("prim::TupleIndex", {list, int_constant(static_cast<int64_t>(i))},
                               ir::Type::simple(ir::Type::Kind::Tuple), &at));
    return columns;
  }

  // What an aggregate holds field by field: the items of the list that made it, else its fields
  // read by position.
  std::vector<ir::Value*> record_items(ir::Value* record, const std::vector<const FieldDecl*>& fields, const Expr& at) {
    const ir::Node* p = record->producer;
    if (p != nullptr && p->kind == "prim::ListConstruct" && p->inputs.size() == fields.size()) return p->inputs;
    std::vector<ir::Value*> items;
    for (size_t i = 0; i < fields.size(); ++i)
      items.push_back(field_read(record, int_constant(static_cast<int64_t>(i)), *fields[i], at));
    return items;
  }

  // Element `index` of `list` read as `field` holds it; None for a field of a type the IR has not.
  ir::Value* field_read(ir::Value* list, ir::Value* index, const FieldDecl& field, const Expr& at) {
    auto type = ir_type(field.getType());
    return type ? single("prim::TupleIndex", {list, index}, *type, &at) : none();
  }

  // `dets[i]`, `dets.at(i)`, a range-for's `d` over a vector of aggregates: the element at
  // `index` of each column, as the list an aggregate is (record_field reads it field by field).
  ir::Value* record_element(ir::Value* list, ir::Value* index, const std::vector<const FieldDecl*>& fields,
                            const Expr& at) {
    const std::vector<ir::Value*> columns = columns_of(list, fields.size(), at);
    std::vector<ir::Value*> items;
    ir::Type type = ir::Type::simple(ir::Type::Kind::List);
    for (size_t i = 0; i < fields.size(); ++i) {
      items.push_back(field_read(columns[i], index, *fields[i], at));
      if (items.back()->producer->kind == "prim::TupleIndex")
        items.back()->producer->set_attr("field_of_element", ir::Attr::of_bool(true));
      type.elements.push_back(items.back()->type);
    }
    return single("prim::ListConstruct", items, type, &at);
  }

  // `dets.at(i)`, `dets.front()`, `dets.back()` of a vector of aggregates: that element; null for
  // any other call.
  ir::Value* record_of_vector(const CXXMemberCallExpr& call, const std::string& name, const Expr* object) {
    const std::vector<const FieldDecl*> fields = element_fields(object->getType());
    const bool at = name == "at" && call.getNumArgs() == 1;
    const bool end = (name == "front" || name == "back") && call.getNumArgs() == 0;
    if (fields.empty() || (!at && !end)) return nullptr;
    ir::Value* list = expr(object);
    if (list == nullptr || list->type.kind != ir::Type::Kind::Tuple) return nullptr;
    ir::Value* index = at ? argument(call.getArg(0)) : int_constant(name == "front" ? 0 : -1);
    return record_element(list, index, fields, call);
  }

  // The fields of a container's elements when they are an aggregate of the user's
  // (`std::vector<Det>`); empty for any other type.
  static std::vector<const FieldDecl*> element_fields(QualType container) {
    container = container.getNonReferenceType().getCanonicalType();
    if (!is_container(container) || record_name(container) == "std::map" ||
        record_name(container) == "std::unordered_map")
      return {};
    const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(container->getAsCXXRecordDecl());
    if (spec == nullptr || spec->getTemplateArgs().size() == 0) return {};
    const TemplateArgument& element = spec->getTemplateArgs()[0];
    return element.getKind() == TemplateArgument::Type ? aggregate_fields(element.getAsType())
                                                       : std::vector<const FieldDecl*>{};
  }

  // A variable now holds `v`: the value takes the variable's name, as in TorchScript.
  void bind(const ValueDecl* decl, ir::Value* v) {
    vars_[decl] = v;
    if (v->type.is_tensor() && read_from_model_run(v)) note_model_outputs_field(decl, v);
    std::string name = decl->getNameAsString();
    if (!name.empty() && (v->name.empty() || std::isdigit(static_cast<unsigned char>(v->name[0]))) &&
        v->producer != nullptr && v->producer->kind != "prim::Constant")
      v->name = unique_name(name);
  }

  std::string unique_name(const std::string& base) {
    if (base.empty()) return fresh();
    int& n = name_counts_[base];
    std::string name = n == 0 ? base : base + "." + std::to_string(n);
    ++n;
    return name;
  }

  std::string fresh() { return std::to_string(++counter_); }

  // A node's kind is a word of the IR's text form, in which the model crosses from the Clang
  // process (`cxx::operator bool`, a stream's or a std::vector<bool> element's conversion in
  // `while (getline(f, s))` and `if (keep[i])`, becomes `cxx::operator_bool`).
  static std::string ir_kind(std::string kind) {
    for (char& c : kind)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':' && c != '.') c = '_';
    return kind;
  }

  ir::Node* emit(const std::string& kind, const Stmt* where) {
    ir::Node* n = fn_.append_node(fn_.body, ir_kind(kind));
    if (where != nullptr) n->loc = unit_.location(unit_.range(where));
    return n;
  }

  ir::Value* single(const std::string& kind, const std::vector<ir::Value*>& inputs, ir::Type type, const Stmt* where) {
    ir::Node* n = emit(kind, where);
    for (ir::Value* v : inputs) fn_.add_input(*n, v);
    return fn_.add_output(*n, fresh(), std::move(type));
  }

  // The types of a std::tuple's elements (`std::tuple<at::Tensor, at::Tensor>`), when each is
  // one the IR knows; empty for any other type.
  static std::vector<ir::Type> tuple_elements(QualType qt) {
    const auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
        qt.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
    if (spec == nullptr || spec->getQualifiedNameAsString() != "std::tuple") return {};
    const TemplateArgumentList& args = spec->getTemplateArgs();
    if (args.size() != 1 || args[0].getKind() != TemplateArgument::Pack) return {};
    std::vector<ir::Type> elements;
    for (const TemplateArgument& arg : args[0].pack_elements()) {
      auto type = arg.getKind() == TemplateArgument::Type ? ir_type(arg.getAsType()) : std::nullopt;
      if (!type) return {};
      elements.push_back(*type);
    }
    return elements;
  }

  // An ATen call: one node; for one that returns a std::tuple (topk, max(dim), sort), with an
  // output per element as in TorchScript, so that each has its own facts (`std::get<1>` of
  // topk reads the int64 indices, not the quantized values), joined in the tuple the C++ code
  // holds. Returns the call's value and sets `op` to its node.
  ir::Value* aten_op(const std::string& kind, const std::vector<ir::Value*>& inputs, ir::Type type,
                     const CallExpr& call, ir::Node*& op) {
    const std::vector<ir::Type> elements = tuple_elements(call.getType());
    if (elements.empty()) {
      ir::Value* out = single(kind, inputs, std::move(type), &call);
      op = out->producer;
      return out;
    }
    op = emit(kind, &call);
    for (ir::Value* v : inputs) fn_.add_input(*op, v);
    std::vector<ir::Value*> outs;
    for (const ir::Type& element : elements) outs.push_back(fn_.add_output(*op, fresh(), element));
    return single("prim::TupleConstruct", outs, std::move(type), &call);
  }

  // `std::make_tuple(q, q.argmax(1))`: a tuple of its arguments, as TorchScript's
  // prim::TupleConstruct, so that each element keeps its own facts, also once a function returns
  // the tuple (`std::get<1>` reads the int64 argmax, not the quantized `q`).
  ir::Value* tuple_of_arguments(const CallExpr& call, const std::optional<ir::Type>& type) {
    if (!type || type->kind != ir::Type::Kind::Tuple) return nullptr;
    std::vector<ir::Value*> elements;
    for (const Expr* arg : call.arguments()) elements.push_back(argument(arg));
    return single("prim::TupleConstruct", elements, *type, &call);
  }

  // std::get<N>(t) of a tuple: its element N, as TorchScript's prim::TupleIndex.
  ir::Value* tuple_get(const CallExpr& call, const FunctionDecl& callee, std::optional<ir::Type> type) {
    const TemplateArgumentList* args = callee.getTemplateSpecializationArgs();
    ir::Value* tuple = call.getNumArgs() == 1 ? expr(call.getArg(0)) : nullptr;
    if (args == nullptr || args->size() == 0 || (*args)[0].getKind() != TemplateArgument::Integral || !type ||
        tuple == nullptr || tuple->type.kind != ir::Type::Kind::Tuple)
      return nullptr;
    const int64_t index = (*args)[0].getAsIntegral().getExtValue();
    return element_of_tuple(tuple, int_constant(index), *type, call);
  }

  // The integer a constant holds (a tuple's index), nullopt for any other value.
  static std::optional<int64_t> int_constant_of(const ir::Value* v) {
    const ir::Node* n = v != nullptr ? v->producer : nullptr;
    const ir::Attr* value = n != nullptr && n->kind == "prim::Constant" ? n->attr("value") : nullptr;
    if (value == nullptr || value->kind != ir::Attr::Kind::Int) return std::nullopt;
    return value->i;
  }

  // Element `index` of a tuple, as TorchScript's prim::TupleIndex. An element of a model's output
  // tuple that carries no quantization (a bool mask, class ids: ArchiveVerdict::elements_quantized),
  // or that the model does not return, is a value of its own, not the model's quantized output.
  ir::Value* element_of_tuple(ir::Value* tuple, ir::Value* index, ir::Type type, const Expr& at) {
    if (auto elements = model_elements_.find(tuple); elements != model_elements_.end()) {
      const std::optional<int64_t> i = int_constant_of(index);
      const size_t returned = elements->second.size();
      if (i && (*i < 0 || static_cast<size_t>(*i) >= returned || !elements->second[static_cast<size_t>(*i)])) {
        ir::Value* out = single("cxx::unquantized_model_output", {}, std::move(type), &at);
        if (*i >= 0 && static_cast<size_t>(*i) >= returned)
          out->producer->set_attr("archive_misfit", ir::Attr::of_str("the code reads element " + std::to_string(*i) +
                                                                     " of this model's outputs, and the forward of "
                                                                     "the archive given returns " +
                                                                     std::to_string(returned)));
        return out;
      }
    }
    ir::Value* out = single("prim::TupleIndex", {tuple, index}, std::move(type), &at);
    if (auto one = one_tensor_outputs_.find(tuple); one != one_tensor_outputs_.end())
      out->producer->set_attr("archive_misfit",
                              ir::Attr::of_str("the code reads an element of a tuple of this model's outputs, and the "
                                               "forward of `" +
                                               one->second + "` returns one tensor"));
    return out;
  }

  ir::Value* constant(const ir::Attr& value, ir::Type type) {
    ir::Node* n = fn_.append_node(fn_.body, "prim::Constant");
    n->set_attr("value", value);
    return fn_.add_output(*n, fresh(), std::move(type));
  }
  ir::Value* int_constant(int64_t v) { return constant(ir::Attr::of_int(v), ir::Type::simple(ir::Type::Kind::Int)); }
  ir::Value* none() { return constant(ir::Attr::none(), ir::Type::simple(ir::Type::Kind::None)); }

  // A literal, a constexpr (torch::kFloat is ScalarType 6) or a constant variable.
  ir::Value* folded(const Expr* e) {
    using K = ir::Type::Kind;
    if (isa<CXXNullPtrLiteralExpr>(e) || record_name(e->getType()) == "c10::nullopt_t") return none();
    if (const auto* s = dyn_cast<StringLiteral>(e))
      return constant(ir::Attr::of_str(s->getString().str()), ir::Type::simple(K::Str));
    std::optional<ir::Attr> value = number(e);
    if (!value) return nullptr;
    if (value->kind == ir::Attr::Kind::Bool) return constant(*value, ir::Type::simple(K::Bool));
    if (value->kind == ir::Attr::Kind::Float) return constant(*value, ir::Type::simple(K::Float));
    return constant(*value, ir::Type::simple(K::Int));
  }

  // The value of a constant number, bool or enumerator (a ScalarType), without lowering it.
  std::optional<ir::Attr> number(const Expr* e) {
    QualType type = e->getType();
    if (e->isValueDependent() || e->isTypeDependent()) return std::nullopt;
    if (!type->isIntegralOrEnumerationType() && !type->isRealFloatingType() && !type->isBooleanType())
      return std::nullopt;
    if (!may_be_constant(e)) return std::nullopt;
    Expr::EvalResult result;
    if (!e->EvaluateAsRValue(result, unit_.ctx_) || result.HasSideEffects) return std::nullopt;
    if (result.Val.isInt())
      return type->isBooleanType() ? ir::Attr::of_bool(result.Val.getInt().getBoolValue())
                                   : ir::Attr::of_int(result.Val.getInt().getSExtValue());
    if (result.Val.isFloat()) return ir::Attr::of_float(result.Val.getFloat().convertToDouble());
    return std::nullopt;
  }

  // Whether `e` can be a constant at all. The evaluator, tried on each subexpression of
  // `x + x + ... + x` as the lowering reaches it, walks down to the first variable every time:
  // quadratic (20,000 terms took 6 s, 200,000 ten minutes). Arithmetic on something that is
  // not constant is not constant either, so one memoised pass over the tree says where to try.
  bool may_be_constant(const Expr* e) {
    if (auto it = may_be_constant_.find(e); it != may_be_constant_.end()) return it->second;
    bool maybe = true;
    if (const auto* b = dyn_cast<BinaryOperator>(e); b && !b->isLogicalOp() && !b->isCommaOp())
      maybe = may_be_constant(b->getLHS()) && may_be_constant(b->getRHS());
    else if (const auto* u = dyn_cast<UnaryOperator>(e))
      maybe = may_be_constant(u->getSubExpr());
    else if (const auto* p = dyn_cast<ParenExpr>(e))
      maybe = may_be_constant(p->getSubExpr());
    else if (const auto* c = dyn_cast<ImplicitCastExpr>(e))
      maybe = may_be_constant(c->getSubExpr());
    else if (const auto* ref = dyn_cast<DeclRefExpr>(e))
      if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()))
        maybe = var->isConstexpr() || var->getType().isConstQualified();
    return may_be_constant_[e] = maybe;
  }

  // An argument in its position: lowered, or an opaque placeholder for what tensor code does
  // not need (a TensorOptions, a device).
  ir::Value* argument(const Expr* e) {
    if (isa<CXXDefaultArgExpr>(e)) return nullptr;
    // A device (`x.to(torch::kCPU)`): its enum's number is no dtype code (kCPU is 0, uint8's).
    if (const std::string record = record_name(strip(e)->getType());
        record == "c10::DeviceType" || record == "c10::Device")
      return constant(ir::Attr::none(), ir::Type::simple(ir::Type::Kind::Device));
    if (ir::Value* v = expr(e)) return v;
    return constant(ir::Attr::none(), ir::Type::other(strip(e)->getType().getAsString()));
  }

 public:
  ir::Value* expr(const Expr* raw) {
    if (raw == nullptr) return nullptr;
    // `int c = q.item<float>();`: the conversion the compiler inserts truncates as
    // static_cast<int> does.
    if (converts_floating_to_integer(raw)) {
      ir::Value* v = expr(strip(raw));
      if (v == nullptr || v->type.kind != ir::Type::Kind::Float) return v;
      return single("aten::Int", {v}, ir::Type::simple(ir::Type::Kind::Int), raw);
    }
    const Expr* e = strip(raw);
    if (ir::Value* c = folded(e)) return c;
    if (const auto* ref = dyn_cast<DeclRefExpr>(e)) return variable(ref->getDecl(), e);
    if (const auto* member = dyn_cast<MemberExpr>(e)) return field(*member);
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) return operator_call(*op);
    if (const auto* call = dyn_cast<CXXMemberCallExpr>(e)) return member_call(*call);
    if (const auto* call = dyn_cast<CallExpr>(e)) return free_call(*call);
    if (const auto* bin = dyn_cast<BinaryOperator>(e)) return builtin_binary(*bin);
    if (const auto* un = dyn_cast<UnaryOperator>(e)) return builtin_unary(*un);
    if (const auto* cast = dyn_cast<ExplicitCastExpr>(e)) return explicit_cast(*cast);
    if (const auto* list = dyn_cast<InitListExpr>(e)) return list_construct(*list);
    if (const Expr* held = isa<CXXNewExpr>(e) ? made_holder_of(e) : nullptr) return expr(held);
    if (isa<LambdaExpr>(e)) return nullptr;
    if (ir::Value* pair = pair_construct(*e)) return pair;
    return opaque(*e);
  }

 private:
  ir::Value* variable(const ValueDecl* decl, const Expr* e) {
    auto it = vars_.find(decl);
    if (it != vars_.end()) return it->second;
    // A global module some function loads: that archive.
    if (auto load = unit_.stored_loads_.find(decl); load != unit_.stored_loads_.end())
      return vars_[decl] = model_value(load->second, *e);
    // A global or static tensor: a value from outside, read where it is used.
    auto type = ir_type(e->getType());
    if (!type || !isa<VarDecl>(decl)) return nullptr;
    ir::Value* v = single("prim::GetAttr", {}, *type, e);
    v->producer->set_attr("name", ir::Attr::of_str(decl->getNameAsString()));
    vars_[decl] = v;
    return v;
  }

  // `p.depth` of an aggregate the function holds (`Preds p = predict(x);`, a parameter, a local
  // it fills), or of one a call returns (`predict(x).depth`): element `depth` of the object's
  // list, so that what the fields hold follows the object through returns and calls (public C++
  // round 21: a struct of a model's outputs returned by a method lost them without a note). Null
  // for any other member.
  ir::Value* record_field(const MemberExpr& member) {
    const auto* field = dyn_cast<FieldDecl>(member.getMemberDecl());
    const Expr* base = member.isImplicitAccess() || member.isArrow() ? nullptr : strip(member.getBase());
    if (field == nullptr || base == nullptr) return nullptr;
    const std::vector<const FieldDecl*> fields = aggregate_fields(base->getType());
    const auto position = std::find(fields.begin(), fields.end(), field);
    const auto* ref = dyn_cast<DeclRefExpr>(base);
    const auto* var = ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    auto type = ir_type(member.getType());
    if (position == fields.end() || !type || (!isa<CallExpr>(base) && var == nullptr)) return nullptr;
    // A field this function assigns through a reference or a global (`out.depth = ...` in
    // `infer(Result& out)`) keeps the value assigned (bind, and the note at other methods' reads).
    // A range-for's element of a vector of aggregates is its own, read as the element.
    if (var != nullptr && !local_object(*var) && !record_elements_.count(var) && vars_.count(field) != 0)
      return nullptr;
    ir::Value* object = expr(base);
    if (object == nullptr) return nullptr;
    const size_t index = static_cast<size_t>(position - fields.begin());
    if (const ir::Node* list = object->producer; list != nullptr && list->kind == "prim::ListConstruct" &&
                                                 index < list->inputs.size() &&
                                                 list->inputs[index]->type.kind != ir::Type::Kind::None) {
      // A field of a vector's element is read here, where the code names it (`dets[i].score`).
      if (const ir::Node* read = list->inputs[index]->producer; read != nullptr && read->attr("field_of_element"))
        return single("prim::TupleIndex", read->inputs, *type, &member);
      return list->inputs[index];
    }
    return single("prim::TupleIndex", {object, int_constant(static_cast<int64_t>(index))}, *type, &member);
  }

  // `infer(x, result)` with `Result& out`: the callee may fill the object's fields, which this
  // function no longer knows (a read of them is then the field's, with the note of a field set
  // elsewhere).
  void forget_objects_filled_by(const CallExpr& call, llvm::ArrayRef<const Expr*> args) {
    const FunctionDecl* callee = call.getDirectCallee();
    for (size_t i = 0; callee != nullptr && i < args.size() && i < callee->getNumParams(); ++i) {
      const QualType param = callee->getParamDecl(static_cast<unsigned>(i))->getType();
      const auto* ref = dyn_cast<DeclRefExpr>(strip(args[i]));
      const auto* var = ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (var == nullptr || !param->isReferenceType() || param.getNonReferenceType().isConstQualified()) continue;
      const std::vector<const FieldDecl*> fields = aggregate_fields(var->getType());
      if (fields.empty()) continue;
      vars_.erase(var);
      for (const FieldDecl* field : fields) vars_.erase(field);
    }
  }

  // After the return value (None for a void function): what each tensor out-parameter holds at
  // the end of the body.
  void return_out_parameters(const FunctionDecl& fd) {
    const std::vector<unsigned> outs = tensor_out_parameters(fd);
    if (outs.empty()) return;
    auto none = [&] { return constant(ir::Attr::none(), ir::Type::simple(ir::Type::Kind::None)); };
    if (fn_.body.returns.empty()) fn_.body.returns.push_back(none());
    for (unsigned i : outs) {
      auto held = vars_.find(fd.getParamDecl(i));
      fn_.body.returns.push_back(held != vars_.end() && held->second != nullptr ? held->second : none());
    }
  }

  // The caller's variables passed as tensor out-parameters take what the call hands back (the
  // call's outputs after its return value).
  void take_out_parameters(const CallExpr& call, llvm::ArrayRef<const Expr*> args, ir::Node& n) {
    const FunctionDecl* callee = call.getDirectCallee();
    if (callee == nullptr) return;
    for (unsigned i : tensor_out_parameters(*callee)) {
      ir::Value* handed = fn_.add_output(n, fresh(), ir::Type::tensor());
      const auto* ref = i < args.size() ? dyn_cast<DeclRefExpr>(strip(args[i])) : nullptr;
      if (const auto* var = ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr) vars_[var] = handed;
    }
  }

  // A variable of the function's own, not a reference: what is assigned to its fields is its alone.
  static bool local_object(const VarDecl& var) { return var.isLocalVarDecl() && !var.getType()->isReferenceType(); }

  // `p.depth = d` on an aggregate the function holds: the object is a new list with that field
  // replaced, so that `return p` returns what its fields hold then. False for any other target.
  bool assign_record_field(const Expr* target, ir::Value* v, const Expr& at) {
    const auto* member = dyn_cast<MemberExpr>(strip(target));
    const auto* field = member != nullptr ? dyn_cast<FieldDecl>(member->getMemberDecl()) : nullptr;
    const auto* ref =
        field != nullptr && !member->isArrow() ? dyn_cast<DeclRefExpr>(strip(member->getBase())) : nullptr;
    const auto* object = ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    // A local object only: one the caller passes by reference, or a global, is filled for others
    // to read, which the field's own value (bind) and the note at their reads account for.
    if (object == nullptr || v == nullptr || !local_object(*object)) return false;
    const std::vector<const FieldDecl*> fields = aggregate_fields(object->getType());
    if (fields.empty()) return false;
    auto held = vars_.find(object);
    const ir::Node* old = held != vars_.end() && held->second != nullptr ? held->second->producer : nullptr;
    const bool listed = old != nullptr && old->kind == "prim::ListConstruct" && old->inputs.size() == fields.size();
    std::vector<ir::Value*> items;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == field) {
        items.push_back(v);
      } else if (listed) {
        items.push_back(old->inputs[i]);
      } else if (held != vars_.end() && held->second != nullptr) {
        auto type = ir_type(fields[i]->getType());
        items.push_back(
            type ? single("prim::TupleIndex", {held->second, int_constant(static_cast<int64_t>(i))}, *type, &at)
                 : none());
      } else {
        items.push_back(none());
      }
    }
    ir::Type type = ir::Type::simple(ir::Type::Kind::List);
    for (ir::Value* item : items) type.elements.push_back(item->type);
    vars_[object] = single("prim::ListConstruct", items, type, &at);
    return true;
  }

  // `std::pair<at::Tensor, at::Tensor>{a, b}`, `return {a, b};` into a pair: a tuple of the two,
  // as `std::make_pair(a, b)` and `std::make_tuple(a, b)` are (public C++ round 21: a pair of a
  // model's outputs was followed in no form). Null for any other expression.
  ir::Value* pair_construct(const Expr& e) {
    const auto* construct = dyn_cast<CXXConstructExpr>(&e);
    if (construct == nullptr || construct->getNumArgs() != 2 || record_name(construct->getType()) != "std::pair")
      return nullptr;
    auto type = ir_type(construct->getType());
    ir::Value* first = argument(construct->getArg(0));
    ir::Value* second = argument(construct->getArg(1));
    if (!type || first == nullptr || second == nullptr) return nullptr;
    return single("prim::TupleConstruct", {first, second}, *type, &e);
  }

  // `p.first`, `p.second` of a std::pair: its element 0 or 1. Null for any other member.
  ir::Value* pair_member(const MemberExpr& member) {
    const std::string name = member.getMemberDecl()->getNameAsString();
    const Expr* base = member.isArrow() ? nullptr : strip(member.getBase());
    if (base == nullptr || (name != "first" && name != "second") || record_name(base->getType()) != "std::pair")
      return nullptr;
    auto type = ir_type(member.getType());
    ir::Value* pair = expr(base);
    if (!type || pair == nullptr || pair->type.kind != ir::Type::Kind::Tuple) return nullptr;
    return element_of_tuple(pair, int_constant(name == "first" ? 0 : 1), *type, member);
  }

  // `this->mask_` or `self.weight`: one value per field, updated by assignments.
  ir::Value* field(const MemberExpr& member) {
    if (ir::Value* element = record_field(member)) return element;
    if (ir::Value* element = pair_member(member)) return element;
    const ValueDecl* decl = member.getMemberDecl();
    // `heat_to_mat(out).rows`, `heat_to_mat(out).clone()` (a third-party class's method, reached
    // here as the callee of an opaque call): the call is lowered, so a function of the file it
    // calls is followed into with what it is given.
    if (const Expr* base = member.isImplicitAccess() ? nullptr : strip(member.getBase());
        isa_and_nonnull<CallExpr>(base))
      expr(base);
    // The model the constructor loaded, also into a `std::unique_ptr<torch::jit::Module>`.
    if (vars_.count(decl) == 0)
      if (auto load = unit_.stored_loads_.find(decl); load != unit_.stored_loads_.end())
        return vars_[decl] = model_value(load->second, member);
    if (vars_.count(decl) == 0)
      if (ir::Value* loaded = model_field_loaded_elsewhere(*decl, member)) return vars_[decl] = loaded;
    auto type = ir_type(member.getType());
    if (!type) return vars_.count(decl) != 0 ? vars_[decl] : nullptr;
    auto it = vars_.find(decl);
    if (it != vars_.end()) return it->second;
    ir::Value* v = single("prim::GetAttr", {}, *type, &member);
    v->producer->set_attr("name", ir::Attr::of_str(decl->getNameAsString()));
    vars_[decl] = v;
    if (isa<FieldDecl>(decl) && (type->is_tensor() || type->kind == ir::Type::Kind::Tuple))
      unit_.field_reads_.push_back({v->producer, decl, fd_});
    return v;
  }

  // A model field another file loads (Options::returned_models, under model_field_key): that
  // archive; without one there, a model whose note says why. Null for any other field.
  ir::Value* model_field_loaded_elsewhere(const ValueDecl& decl, const MemberExpr& member) {
    const auto* field = dyn_cast<FieldDecl>(&decl);
    if (field == nullptr || !holds_module(field->getType()) || !unit_.options_.archive_quantized) return nullptr;
    const std::string key = model_field_key(*field);
    unit_.calls_elsewhere_.insert(key);
    auto found = unit_.options_.returned_models.find(key);
    if (found == unit_.options_.returned_models.end()) return nullptr;
    const ReturnedModel& loaded = found->second;
    UnitLowering::ModelLoad load;
    load.archive = loaded.archive;
    ir::Value* model = model_value(load, member);
    if (loaded.archive.empty())
      model->producer->set_attr("field_loaded_elsewhere",
                                ir::Attr::of_str(loaded.function + "\n" + loaded.where + "\n" + loaded.why));
    return model;
  }

  // The declaration an assignment's left side names, if it is a variable or a field.
  static const ValueDecl* assigned(const Expr* lhs) {
    lhs = strip(lhs);
    if (const auto* ref = dyn_cast<DeclRefExpr>(lhs)) return ref->getDecl();
    if (const auto* member = dyn_cast<MemberExpr>(lhs)) return member->getMemberDecl();
    return nullptr;
  }

  ir::Value* operator_call(const CXXOperatorCallExpr& op) {
    OverloadedOperatorKind kind = op.getOperator();
    unsigned n = op.getNumArgs();
    if (kind == OO_Equal && n == 2) {
      ir::Value* v = expr(op.getArg(1));
      if (assign_tied(op.getArg(0), v, op) || assign_element(op.getArg(0), v, op) ||
          assign_record_field(op.getArg(0), v, op))
        return v;
      if (auto column = column_of(op.getArg(0)); column && write_column(*column, v, op)) return v;
      if (const ValueDecl* decl = assigned(op.getArg(0)); decl && v) bind(decl, v);
      return v;
    }
    if (kind == OO_Arrow && n == 1) return expr(op.getArg(0));
    // `(*model_).forward(x)` of a smart pointer: the module it holds.
    // (shared_ptr's operator* is its base class's: the pointer is seen through the cast to it.)
    if (kind == OO_Star && n == 1 && holds_module(strip(op.getArg(0))->getType())) return expr(op.getArg(0));
    if (kind == OO_Subscript && n == 2) return subscript(op);
    // `model(inputs)`, `(*model)(inputs)`: torch::jit::Module's operator() runs forward.
    if (kind == OO_Call && n >= 1 && holds_module(strip(op.getArg(0))->getType()))
      return model_forward(op, op.getArg(0), llvm::ArrayRef<const Expr*>(op.getArgs() + 1, n - 1),
                           ir_type(op.getType()));
    if (kind == OO_Call && n >= 1)  // a lambda of the file: fq(x)
      if (const std::string* name = unit_.function_name(op.getDirectCallee())) {
        expr(op.getArg(0));
        return call_function(op, {op.getArgs() + 1, n - 1}, *name, ir_type(op.getType()));
      }
    const char* aten = operator_kind(kind, n);
    auto type = ir_type(op.getType());
    if (aten == nullptr || !type) return opaque(op);
    std::vector<ir::Value*> inputs;
    bool tensor = false;
    for (unsigned i = 0; i < n; ++i) {
      tensor = tensor || is_tensor_type(op.getArg(i)->getType());
      inputs.push_back(argument(op.getArg(i)));
    }
    if (!tensor) return opaque(op);
    ir::Value* out = single(aten, inputs, *type, &op);
    // `x *= m` rebinds x to the op's result, as TorchScript's in-place ops do.
    if (std::string(aten).back() == '_' || kind == OO_AmpEqual || kind == OO_PipeEqual)
      if (const ValueDecl* decl = assigned(op.getArg(0))) vars_[decl] = out;
    return out;
  }

  // `x[i]` selects along the first dimension; `x[mask]` indexes with a tensor; `v[i]` picks
  // an element of a container (a model's output tuple).
  ir::Value* subscript(const CXXOperatorCallExpr& op) {
    ir::Value* base = expr(op.getArg(0));
    auto type = ir_type(op.getType());
    if (const std::vector<const FieldDecl*> fields = element_fields(op.getArg(0)->getType());
        base != nullptr && !fields.empty() && base->type.kind == ir::Type::Kind::Tuple)
      return record_element(base, argument(op.getArg(1)), fields, op);  // `dets[i]`
    if (base == nullptr || !type) return opaque(op);
    ir::Value* index = argument(op.getArg(1));
    if (!base->type.is_tensor()) return element_of_tuple(base, index, *type, op);
    if (index->type.is_tensor()) {
      ir::Value* list = single("prim::ListConstruct", {index}, ir::Type::simple(ir::Type::Kind::List), &op);
      return single("aten::index", {base, list}, *type, &op);
    }
    // An accessor's last subscript reads an element: `a[i][j]` as `t[i][j].item()`.
    if (!type->is_tensor()) {
      ir::Value* row = single("aten::select", {base, int_constant(0), index}, ir::Type::tensor(), &op);
      return single("aten::item", {row}, *type, &op);
    }
    return single("aten::select", {base, int_constant(0), index}, *type, &op);
  }

  ir::Value* member_call(const CXXMemberCallExpr& call) {
    const CXXMethodDecl* method = call.getMethodDecl();
    const Expr* object = call.getImplicitObjectArgument();
    if (method == nullptr || object == nullptr) return opaque(call);
    const std::string name = method->getNameAsString();
    auto type = ir_type(call.getType());
    // `x.toType(torch::kInt)`, the older spelling of `x.to(torch::kInt)`.
    if (is_tensor_type(object->getType())) return tensor_method(call, name == "toType" ? "to" : name, type);
    if (const Expr* copied = copied_module(&call)) return expr(copied);
    // `model.forward(x)`, also `model_->forward(x)` through a pointer.
    if (holds_module(object->getType()) && name == "forward")
      return model_forward(call, call.getImplicitObjectArgument(), call.arguments(), type);
    // run_method is torch::jit::Object's: the object is cast to that base class.
    if (holds_module(strip(object)->getType()) && name == "run_method" && call.getNumArgs() >= 1)
      if (const auto* method = dyn_cast<StringLiteral>(strip(call.getArg(0)));
          method != nullptr && method->getString() == "forward")  // module.run_method("forward", x)
        return model_forward(call, call.getImplicitObjectArgument(),
                             llvm::ArrayRef<const Expr*>(call.getArgs() + 1, call.getNumArgs() - 1), type);
    if (unit_.is_quant_function(*method)) return quant_call(call, *method, expr(object));
    // x.item().toInt(): the Scalar's element truncated to an integer.
    if ((name == "toInt" || name == "toLong") && record_name(strip(object)->getType()) == "c10::Scalar")
      if (ir::Value* scalar = expr(object))
        return single("aten::Int", {scalar}, ir::Type::simple(ir::Type::Kind::Int), &call);
    if (const std::string* callee = unit_.function_name(method)) {  // a method of the file
      expr(object);
      return call_function(call, {call.getArgs(), call.getNumArgs()}, *callee, type);
    }
    if (ir::Value* run = call_elsewhere(call, *method, object, type)) return run;
    // `dets.push_back(boxes)`: the vector holds what it was given, as TorchScript's append.
    if ((name == "push_back" || name == "emplace_back") && call.getNumArgs() == 1)
      if (const ValueDecl* decl = assigned(object))
        if (ir::Value* list = expr(object); list != nullptr && list->type.kind == ir::Type::Kind::Tuple)
          if (ir::Value* item = expr(call.getArg(0))) {
            append_to(decl, list, item, call);
            return nullptr;
          }
    if (ir::Value* element = record_of_vector(call, name, object)) return element;
    if (!type) {
      opaque(call);
      return nullptr;
    }
    // IValue::toTensor(), Tuple::elements(), Scalar::toFloat(): the same data in another form.
    std::vector<ir::Value*> inputs;
    if (ir::Value* self = expr(object)) inputs.push_back(self);
    for (const Expr* arg : call.arguments())
      if (ir::Value* v = expr(arg)) inputs.push_back(v);
    if (name == "at" && record_name(strip(object)->getType()) == "c10::Dict" && !inputs.empty())
      if (ir::Value* value = dict_value(call, inputs.front(), *type)) return value;
    if (ir::Value* same = same_container(name, inputs)) return same;
    if (ir::Value* element = element_by_constant_key(call, name, inputs, *type)) return element;
    ir::Value* out = single("cxx::" + name, inputs, *type, &call);
    // model.forward(x).toTuple()->elements(): still the model's outputs, element by element.
    if (!inputs.empty()) {
      if (auto elements = model_elements_.find(inputs.front()); elements != model_elements_.end())
        model_elements_[out] = elements->second;
      if (auto keys = model_keys_.find(inputs.front()); keys != model_keys_.end()) model_keys_[out] = keys->second;
      if (auto one = one_tensor_outputs_.find(inputs.front()); one != one_tensor_outputs_.end())
        one_tensor_outputs_[out] = one->second;
    }
    return out;
  }

  // `out.toTuple()->elements()`, `out.toList()`, `out.toGenericDict()`: the container itself,
  // so that what the analysis knows of each element (a model's class ids, which carry no
  // quantization) holds through the conversion, also in a helper that takes the IValue (public
  // round 20 C++: detectron2's `get_outputs`). Null for any other call.
  static ir::Value* same_container(const std::string& name, const std::vector<ir::Value*>& inputs) {
    static const std::set<std::string> conversions = {"toTuple", "elements", "toList", "toGenericDict"};
    if (inputs.size() != 1 || !conversions.count(name) || inputs[0]->type.kind != ir::Type::Kind::Tuple) return nullptr;
    return inputs[0];
  }

  // `d.at("scores")`, `l.get(0)`, `v.at(1)` of a container: its element under that constant key,
  // as TorchScript's `d["scores"]`, which the analysis reads element by element. Null when the key
  // is no constant.
  ir::Value* element_by_constant_key(const CXXMemberCallExpr& call, const std::string& name,
                                     const std::vector<ir::Value*>& inputs, const ir::Type& type) {
    if ((name != "at" && name != "get") || inputs.size() != 2 || inputs[0]->type.kind != ir::Type::Kind::Tuple)
      return nullptr;
    const ir::Node* key = inputs[1]->producer;
    const ir::Attr* value = key != nullptr && key->kind == "prim::Constant" ? key->attr("value") : nullptr;
    if (value == nullptr || (value->kind != ir::Attr::Kind::Str && value->kind != ir::Attr::Kind::Int)) return nullptr;
    return single("aten::__getitem__", inputs, type, &call);
  }

  // `d.at("labels")` of a model's outputs read with `toGenericDict()`: the value of that key,
  // which carries quantization when the archive's forward returns it quantized (int64 class ids
  // do not). Where the archive does not say what each key holds (a dict inside a list), the
  // value is not followed, and a note says so (public round 19: yolort's outputs were skipped
  // without a word). Null for a dict that is no model's: read as any container.
  ir::Value* dict_value(const CXXMemberCallExpr& call, ir::Value* dict, const ir::Type& type) {
    const auto* key = call.getNumArgs() == 1 ? dyn_cast<StringLiteral>(strip(call.getArg(0))) : nullptr;
    if (auto keys = model_keys_.find(dict); keys != model_keys_.end()) {
      auto it = key != nullptr ? keys->second.find(key->getString().str()) : keys->second.end();
      if (it != keys->second.end() && it->second) return nullptr;
      if (it != keys->second.end() || key != nullptr) return single("cxx::unquantized_model_output", {}, type, &call);
    }
    if (!from_model_run(dict)) return nullptr;
    ir::Value* out = single("cxx::unquantized_model_output", {}, type, &call);
    out->producer->set_attr("unfollowed_dict", ir::Attr::of_str(written_or(call.getImplicitObjectArgument(), "")));
    return out;
  }

  // Whether `v` is a model's quantized outputs or what is taken from them (`.toTuple()`,
  // `.elements().at(1)`, `.toList().get(0)`, `.toGenericDict()`).
  // The same through reads of elements (`out[i].item<float>()`, `out.select(0, i)`), views and
  // copies to the host (`.to(torch::kCPU)`, `.cpu()`, `.squeeze(0)`; public C++ round 27: a field
  // set so got no note where another method read it).
  static bool read_from_model_run(const ir::Value* v) {
    static const std::set<std::string> reads = {"aten::item", "aten::index", "aten::to",     "aten::Float",
                                                "aten::Int",  "aten::cpu",   "aten::detach", "aten::clone"};
    for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 16; ++depth) {
      if (from_model_run(v)) return true;
      if ((!reads.count(v->producer->kind) && !ir::is_view_op(*v->producer)) || v->producer->inputs.empty())
        return false;
      v = v->producer->inputs[0];
    }
    return false;
  }

  static bool from_model_run(const ir::Value* v) {
    for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 16; ++depth) {
      if (v->producer->attr("model_outputs") != nullptr) return true;
      const std::string& kind = v->producer->kind;
      if (kind.rfind("cxx::", 0) != 0 && kind != "prim::TupleIndex" && kind != "aten::__getitem__") return false;
      if (v->producer->inputs.empty()) return false;
      v = v->producer->inputs[0];
    }
    return false;
  }

  // `p.select(1, 5).copy_(ids)`, `p.index_put_({Slice(), 5}, ids)`: a column written in place
  // (write_column); the written values, or nullptr for any other call.
  ir::Value* column_written(const CXXMemberCallExpr& call, const std::string& name) {
    std::optional<Column> column;
    const Expr* value = nullptr;
    if (name == "copy_" && call.getNumArgs() >= 1) {
      column = column_of(call.getImplicitObjectArgument());
      value = call.getArg(0);
    } else if (name == "index_put_" && call.getNumArgs() >= 2) {
      column = column_of_items(call.getImplicitObjectArgument(), call.getArg(0));
      value = call.getArg(1);
    }
    if (!column) return nullptr;
    ir::Value* written = expr(value);
    return write_column(*column, written, call) ? written : nullptr;
  }

  ir::Value* tensor_method(const CXXMemberCallExpr& call, const std::string& name, std::optional<ir::Type> type) {
    ir::Value* self = expr(call.getImplicitObjectArgument());
    if (self == nullptr) return nullptr;
    if (name == "index" && call.getNumArgs() == 1) return tensor_index(call, self);
    if (ir::Value* written = column_written(call, name)) return written;
    if (is_accessor_method(name)) return self;  // the same elements, read by subscripts
    if (!type) {
      for (const Expr* arg : call.arguments()) expr(arg);
      return nullptr;
    }
    if (name == "fake_quantize_per_tensor_affine" || name == "quantize_per_tensor")
      return quant_call(call, *call.getMethodDecl(), self, "at::" + name);
    std::vector<ir::Value*> inputs = {self};
    std::optional<int64_t> dtype_operand;
    for (const Expr* arg : call.arguments()) {
      if (ir::Value* v = argument(arg)) {
        if (is_dtype_argument(arg->getType()))
          dtype_operand = dtype_operand.value_or(static_cast<int64_t>(inputs.size()));
        inputs.push_back(v);
      }
    }
    // x.item<float>() is a float scalar; x.item() a Scalar. x.item<int>() converts the element as
    // static_cast<int>(x.item<float>()) does: it truncates.
    if (name == "item" && type->kind == ir::Type::Kind::Int) {
      ir::Node* item = nullptr;
      ir::Value* element = aten_op("aten::item", inputs, ir::Type::simple(ir::Type::Kind::Float), call, item);
      return single("aten::Int", {element}, *type, &call);
    }
    ir::Node* op = nullptr;
    ir::Value* out = aten_op("aten::" + name, inputs, *type, call, op);
    if (dtype_operand && name != "to") op->set_attr("dtype_operand", ir::Attr::of_int(*dtype_operand));
    record_schema(*op, call.getMethodDecl(), call, inputs.size() - 1, true);
    if (const ValueDecl* decl = assigned(call.getImplicitObjectArgument());
        decl && name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_')
      vars_[decl] = out;  // x.mul_(m)
    return out;
  }

  // x.index({Slice(), Slice(), Slice(), -1}) as TorchScript's chain for x[:, :, :, -1]: slices
  // and selects dimension by dimension, None as unsqueeze, indices after "..." counted from the
  // end; tensor indices become aten::index.
  ir::Value* tensor_index(const CXXMemberCallExpr& call, ir::Value* base) {
    auto type = ir_type(call.getType()).value_or(ir::Type::tensor());
    std::vector<const Expr*> items = list_items(call.getArg(0));
    enum class Item { Slice, Select, None, Ellipsis, Tensor };
    std::vector<Item> kinds;
    bool plain = true;
    for (const Expr* item : items) {
      const Expr* e = strip(item);
      std::string record = record_name(e->getType());
      if (record == "at::indexing::Slice") {
        kinds.push_back(Item::Slice);
      } else if (record == "c10::nullopt_t") {
        kinds.push_back(Item::None);
      } else if (record == "at::indexing::EllipsisIndexType" || isa<StringLiteral>(e)) {
        kinds.push_back(Item::Ellipsis);
      } else if (e->getType()->isIntegerType() && !e->getType()->isBooleanType()) {
        kinds.push_back(Item::Select);
      } else {
        kinds.push_back(Item::Tensor);
        plain = false;
      }
    }
    if (!plain) {
      std::vector<ir::Value*> indices;
      for (size_t i = 0; i < items.size(); ++i)
        indices.push_back(kinds[i] == Item::Tensor ? argument(strip(items[i])) : none());
      ir::Value* list = single("prim::ListConstruct", indices, ir::Type::simple(ir::Type::Kind::List), &call);
      return single("aten::index", {base, list}, type, &call);
    }
    ir::Value* current = base;
    int64_t dim = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const Expr* e = strip(items[i]);
      if (kinds[i] == Item::Ellipsis) {
        int64_t after = 0;
        for (size_t j = i + 1; j < items.size(); ++j)
          if (kinds[j] != Item::None) ++after;
        dim = -after;
        continue;
      }
      ir::Type t = i + 1 == items.size() ? type : ir::Type::tensor();
      if (kinds[i] == Item::None) {
        current = single("aten::unsqueeze", {current, int_constant(dim)}, t, &call);
        ++dim;
      } else if (kinds[i] == Item::Select) {
        current = single("aten::select", {current, int_constant(dim), argument(e)}, t, &call);
        if (dim < 0) ++dim;
      } else {
        std::vector<ir::Value*> bounds;
        const auto* slice = dyn_cast<CXXConstructExpr>(e);
        for (unsigned k = 0; k < 3; ++k) {
          const Expr* bound = slice && k < slice->getNumArgs() ? slice->getArg(k) : nullptr;
          ir::Value* v = bound && !isa<CXXDefaultArgExpr>(bound) ? expr(bound) : nullptr;
          bounds.push_back(v ? v : (k == 2 ? int_constant(1) : none()));
        }
        current = single("aten::slice", {current, int_constant(dim), bounds[0], bounds[1], bounds[2]}, t, &call);
        ++dim;
      }
    }
    if (current == base) current = single("aten::alias", {base}, type, &call);
    return current;
  }

  // The elements of a braced list argument ({a, b} as an ArrayRef or an initializer_list).
  static std::vector<const Expr*> list_items(const Expr* arg) {
    const Expr* e = strip(arg);
    if (const auto* construct = dyn_cast<CXXConstructExpr>(e); construct && construct->getNumArgs() >= 1)
      e = strip(construct->getArg(0));
    std::vector<const Expr*> items;
    if (const auto* list = dyn_cast<InitListExpr>(e)) {
      for (const Expr* item : list->inits()) items.push_back(item);
    } else {
      items.push_back(arg);
    }
    return items;
  }

  // The fields of an aggregate of the user's (`struct Outputs { torch::Tensor boxes, scores; }`),
  // in order; empty for any other type.
  static std::vector<const FieldDecl*> aggregate_fields(QualType type) {
    const CXXRecordDecl* record = type.getNonReferenceType()->getAsCXXRecordDecl();
    std::vector<const FieldDecl*> fields;
    if (record == nullptr || !record->hasDefinition() || !record->isAggregate() || record->getNumBases() != 0 ||
        record->isLambda() || record->isUnion() || is_container(type.getNonReferenceType()))
      return fields;
    fields.assign(record->field_begin(), record->field_end());
    // An unnamed bit-field takes no initialiser: positions would not match the braces.
    if (std::any_of(fields.begin(), fields.end(), [](const FieldDecl* f) { return f->isUnnamedBitfield(); }))
      fields.clear();
    return fields;
  }

  ir::Value* list_construct(const InitListExpr& list) {
    // `Outputs{boxes, classes, scores}`, an aggregate of the user's: a list of its fields by
    // position (a field left out, or of a type the IR has not, is None), which a read of a field
    // takes apart (record_field). Public C++ round 20: detectron2's `get_outputs` put the model's
    // outputs into such a struct, and every use of them was lost without a note.
    const std::vector<const FieldDecl*> fields = aggregate_fields(list.getType());
    std::vector<ir::Value*> items;
    for (unsigned i = 0; i < list.getNumInits(); ++i)
      if (ir::Value* v = expr(list.getInit(i))) {
        items.push_back(v);
        if (i < fields.size()) bind(fields[i], v);
      } else if (i < fields.size()) {
        items.push_back(none());
      }
    while (items.size() < fields.size()) items.push_back(none());
    ir::Type type = ir::Type::simple(ir::Type::Kind::List);
    for (ir::Value* v : items) type.elements.push_back(v->type);
    return single("prim::ListConstruct", items, type, &list);
  }

  ir::Value* free_call(const CallExpr& call) {
    const FunctionDecl* callee = call.getDirectCallee();
    auto type = ir_type(call.getType());
    if (callee == nullptr) return opaque(call);
    const std::string qualified = callee->getQualifiedNameAsString();
    const std::string name = callee->getNameAsString();
    if (unit_.is_quant_function(*callee) ||
        ((qualified.rfind("at::", 0) == 0 || qualified.rfind("torch::", 0) == 0) &&
         (name == "quantize_per_tensor" || name == "fake_quantize_per_tensor_affine")))
      return quant_call(call, *callee, call.getNumArgs() > 0 ? expr(call.getArg(0)) : nullptr);
    if (UnitLowering::is_model_load(callee)) return load_model(call);
    if (qualified == "std::get")
      if (ir::Value* element = tuple_get(call, *callee, type)) return element;
    if (qualified == "std::make_tuple" || qualified == "std::forward_as_tuple" || qualified == "std::make_pair")
      if (ir::Value* tuple = tuple_of_arguments(call, type)) return tuple;
    if (const Expr* held = made_holder_of(&call)) return expr(held);  // the module the pointer holds
    if (const std::string* name = unit_.function_name(callee))
      return call_function(call, {call.getArgs(), call.getNumArgs()}, *name, type);
    if (ir::Value* run = call_elsewhere(call, *callee, nullptr, type)) return run;
    bool aten = qualified.rfind("at::", 0) == 0 || qualified.rfind("torch::", 0) == 0;
    if (!type) {
      for (const Expr* arg : call.arguments()) expr(arg);
      return nullptr;
    }
    std::vector<ir::Value*> inputs;
    std::optional<int64_t> dtype_operand;
    for (const Expr* arg : call.arguments()) {
      ir::Value* v = aten ? argument(arg) : expr(arg);
      if (v == nullptr) continue;
      if (record_name(arg->getType()) == "c10::ScalarType") dtype_operand = static_cast<int64_t>(inputs.size());
      if (record_name(arg->getType()) == "c10::TensorOptions") {
        if (ir::Value* d = options_dtype(arg)) {
          dtype_operand = static_cast<int64_t>(inputs.size()) + 1;
          inputs.push_back(v);
          v = d;
        }
      }
      inputs.push_back(v);
    }
    ir::Node* op = nullptr;
    ir::Value* out = aten_op(aten ? "aten::" + name : "cxx::" + name, inputs, *type, call, op);
    if (dtype_operand) op->set_attr("dtype_operand", ir::Attr::of_int(*dtype_operand));
    if (aten) record_schema(*op, callee, call, inputs.size(), false);
    return out;
  }

  // The ATen schema of a LibTorch call (ir/aten_schemas.h), found by the names of the parameters
  // its explicit arguments bind to: the C++ API names them as the schema does. Only when each
  // explicit argument became one operand (a TensorOptions argument spread into several does not).
  void record_schema(ir::Node& node, const FunctionDecl* callee, const CallExpr& call, size_t operands, bool method) {
    if (callee == nullptr) return;
    std::vector<std::string> names;
    for (unsigned i = 0; i < call.getNumArgs() && i < callee->getNumParams(); ++i)
      if (!isa<CXXDefaultArgExpr>(call.getArg(i))) names.push_back(callee->getParamDecl(i)->getNameAsString());
    if (names.size() != operands) return;
    std::string schema = ir::matching_schema(node.kind, names, method);
    if (!schema.empty()) node.set_attr("schema", ir::Attr::of_str(schema));
  }

  // The dtype a TensorOptions argument sets (torch::dtype(torch::kLong),
  // torch::TensorOptions().dtype(torch::kInt)), as a constant.
  ir::Value* options_dtype(const Expr* e) {
    std::vector<const Stmt*> pending = {e};
    for (size_t i = 0; i < pending.size() && i < 256; ++i) {
      const auto* sub = dyn_cast_or_null<Expr>(pending[i]);
      if (sub != nullptr && record_name(sub->getType()) == "c10::ScalarType")
        if (ir::Value* c = folded(strip(sub))) return c;
      for (const Stmt* child : pending[i]->children())
        if (child != nullptr) pending.push_back(child);
    }
    return nullptr;
  }

  // A call of a function, method or lambda of the file, with `args` (without the object of a
  // method or lambda call).
  ir::Value* call_function(const CallExpr& call, llvm::ArrayRef<const Expr*> args, const std::string& callee,
                           std::optional<ir::Type> type) {
    std::vector<ir::Value*> inputs = {constant(ir::Attr::of_str(callee), ir::Type::other("Function"))};
    for (const Expr* arg : args)
      if (ir::Value* v = argument(arg)) inputs.push_back(v);
    ir::Node* n = emit("prim::CallFunction", &call);
    for (ir::Value* v : inputs) fn_.add_input(*n, v);
    n->set_attr("callee", ir::Attr::of_str(callee));
    forget_objects_filled_by(call, args);
    ir::Value* out = fn_.add_output(*n, fresh(), type.value_or(ir::Type::other(call.getType().getAsString())));
    take_out_parameters(call, args, *n);
    if (!holds_module(call.getType())) return out;
    // A function of the file that returns a model it loads: that archive.
    if (std::optional<UnitLowering::ModelLoad> load = unit_.model_source(&call, fd_)) return model_value(*load, call);
    // One that picks among archives, or loads none qlint sees: its runs say so in a note.
    n->set_attr("unfollowed_loader", ir::Attr::of_str(callee));
    return out;
  }

  // A quantizing call becomes a quant point of its own: a stub-like instance called on the
  // tensor, named in messages as the user wrote the call.
  ir::Value* quant_call(const Expr& call, const FunctionDecl& callee, ir::Value* input, std::string display = "") {
    // The scale, zero point and range arguments are lowered for their own comparisons.
    if (const auto* c = dyn_cast<CallExpr>(&call))
      for (unsigned i = isa<CXXMemberCallExpr>(c) ? 0 : 1; i < c->getNumArgs(); ++i) expr(c->getArg(i));
    if (input == nullptr) return opaque(call);
    // Named as the user wrote the callee (`torch::fake_quantize_per_tensor_affine`).
    if (const auto* c = dyn_cast<CallExpr>(&call); display.empty() && c && !isa<CXXMemberCallExpr>(c))
      display = unit_.text(c->getCallee()->getSourceRange());
    if (display.empty()) display = callee.getQualifiedNameAsString();
    ir::Value* out = stub_call(call, display, input, ir::Type::tensor());
    if (const auto* c = dyn_cast<CallExpr>(&call); c && !unit_.is_quant_function(callee))
      record_stated_parameters(*c, callee.getNameAsString(), *out->producer);
    // What a C++ fix needs: how to call the quantizer on another tensor (a one-argument call,
    // as written), and the name of the variable it quantizes while that name keeps the value.
    const auto* c = dyn_cast<CallExpr>(&call);
    if (c != nullptr && !isa<CXXMemberCallExpr>(c) && c->getNumArgs() == 1) {
      std::string callee_text = unit_.text(c->getCallee()->getSourceRange());
      if (!callee_text.empty()) out->producer->set_attr("quantize_call", ir::Attr::of_str(callee_text));
    } else {
      // A call that takes more than the tensor (`torch::fake_quantize_per_tensor_affine(x, 0.3,
      // 0, -128, 127)`) computes in the program: reading its input instead changes results.
      out->producer->set_attr("runs_in_the_program", ir::Attr::of_str(display));
    }
    if (c != nullptr && c->getNumArgs() >= 1 && !isa<CXXMemberCallExpr>(c)) {
      if (const auto* ref = dyn_cast<DeclRefExpr>(strip(c->getArg(0)));
          ref && isa<VarDecl>(ref->getDecl()) && !assigned_.count(ref->getDecl()))
        out->producer->set_attr("input_name", ir::Attr::of_str(ref->getDecl()->getNameAsString()));
      // An input with no name (`npu::quantize(torch::cat({feat, mask}, 1))`): a fix's note
      // quotes it, so that the user can name it and let --fix read from the name.
      else if (std::string text = unit_.text(c->getArg(0)->getSourceRange()); !text.empty())
        out->producer->set_attr("input_text", ir::Attr::of_str(text));
    }
    return out;
  }

  // The scale, zero point and range a LibTorch quantize call states as constants
  // (`at::quantize_per_tensor(x, 0.05, 0, torch::kQInt8)`), as the call's attributes: with them
  // qlint knows what the scale does to a constant, as for a converted model's quantize op.
  void record_stated_parameters(const CallExpr& call, const std::string& name, ir::Node& node) {
    const unsigned first = isa<CXXMemberCallExpr>(call) ? 0 : 1;  // the scale's argument
    auto argument_value = [&](unsigned i) {
      return first + i < call.getNumArgs() ? number(strip(call.getArg(first + i))) : std::nullopt;
    };
    std::optional<ir::Attr> scale = argument_value(0), zero_point = argument_value(1);
    if (scale && scale->kind == ir::Attr::Kind::Int) scale = ir::Attr::of_float(static_cast<double>(scale->i));
    if (!scale || scale->kind != ir::Attr::Kind::Float || !zero_point || zero_point->kind != ir::Attr::Kind::Int)
      return;
    std::optional<ir::Attr> quant_min, quant_max;
    if (name == "fake_quantize_per_tensor_affine") {
      quant_min = argument_value(2);
      quant_max = argument_value(3);
    } else if (std::optional<ir::Attr> dtype = argument_value(2); dtype && dtype->kind == ir::Attr::Kind::Int) {
      auto range = ir::quantized_range(ir::dtype_from_scalar_type_code(dtype->i));
      if (range)
        std::tie(quant_min, quant_max) = std::pair(ir::Attr::of_int(range->first), ir::Attr::of_int(range->second));
    }
    if (!quant_min || !quant_max || quant_min->kind != ir::Attr::Kind::Int || quant_max->kind != ir::Attr::Kind::Int)
      return;
    node.set_attr("scale", *scale);
    node.set_attr("zero_point", *zero_point);
    node.set_attr("quant_min", *quant_min);
    node.set_attr("quant_max", *quant_max);
  }

  ir::Value* stub_call(const Expr& call, const std::string& display, ir::Value* input, ir::Type type) {
    return stub_call_at(unit_.location(unit_.range(&call)), display, input, std::move(type));
  }

  ir::Value* stub_call_at(const ir::SourceLoc& loc, const std::string& display, ir::Value* input, ir::Type type) {
    std::string base = display.substr(display.rfind(':') == std::string::npos ? 0 : display.rfind(':') + 1);
    std::string path = "cxx_" + base + "_" + std::to_string(++unit_.quant_points_);
    for (char& c : path)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    unit_.model_.modules.push_back({path, "torch.ao.quantization.stubs.QuantStub", display, loc.line});
    ir::Node* get = emit("prim::GetAttr", nullptr);
    get->loc = loc;
    get->set_attr("name", ir::Attr::of_str(path));
    ir::Value* module = fn_.add_output(*get, fresh(), ir::Type::module(path));
    ir::Value* out = single("prim::CallMethod", {module, input}, std::move(type), nullptr);
    out->producer->loc = loc;
    out->producer->set_attr("name", ir::Attr::of_str("forward"));
    return out;
  }

  // torch::jit::load("model.pt"): the archive, when its path is known, says whether the
  // model's outputs carry quantization.
  ir::Value* load_model(const CallExpr& call) { return model_value(unit_.load_in(call, fd_), call); }

  ir::Value* model_value(const UnitLowering::ModelLoad& load, const Expr& at) {
    ir::Value* out = single("cxx::load", {}, ir::Type::other("ScriptModule"), &at);
    if (!load.archive.empty()) out->producer->set_attr("archive", ir::Attr::of_str(load.archive));
    if (!load.variable.empty()) out->producer->set_attr("archive_variable", ir::Attr::of_str(load.variable));
    if (!load.qualified.empty()) out->producer->set_attr("archive_qualified", ir::Attr::of_str(load.qualified));
    if (!load.conflict.empty())
      out->producer->set_attr("archive_choices", ir::Attr::of_str(load.conflict + "\n" + load.parameters));
    if (!load.ambiguous.empty()) out->producer->set_attr("archive_ambiguity", ir::Attr::of_str(load.ambiguous));
    return out;
  }

  // The model element a run's object is, as written: taken from a std::vector or std::map
  // (`models[i]`, `models.at(i)`, `it->second`, a range-for's `m` or `[name, m]`), also through
  // a pointer it holds; "" when it is no element.
  std::string container_of(const Expr* object) const {
    const Expr* e = strip(object);
    const std::string written = e != nullptr ? unit_.text(e->getSourceRange()) : "";
    for (int depth = 0; e != nullptr && depth < 8; ++depth) {
      if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
        const bool held = (op->getOperator() == OO_Arrow || op->getOperator() == OO_Star) && op->getNumArgs() == 1;
        if (held) {
          e = strip(op->getArg(0));
          continue;
        }
        const bool element = op->getOperator() == OO_Subscript && is_container(op->getArg(0)->getType());
        return element ? unit_.text(op->getSourceRange()) : "";
      }
      if (const auto* call = dyn_cast<CXXMemberCallExpr>(e)) {
        const CXXMethodDecl* method = call->getMethodDecl();
        const std::string name = method != nullptr ? method->getNameAsString() : "";
        const bool element = (name == "at" || name == "front" || name == "back") &&
                             is_container(call->getImplicitObjectArgument()->getType());
        return element ? unit_.text(call->getSourceRange()) : "";
      }
      if (const auto* member = dyn_cast<MemberExpr>(e)) {  // a map's `it->second`, `entry.second`
        QualType base = member->getBase()->getType();
        if (member->isArrow()) base = base->getPointeeType();
        return member->getMemberDecl()->getName() == "second" && record_name(base) == "std::pair" ? written : "";
      }
      if (const auto* ref = dyn_cast<DeclRefExpr>(e)) return range_for_element(ref->getDecl()) ? written : "";
      return "";
    }
    return "";
  }

  static bool is_container(QualType type) {
    static const std::set<std::string> containers = {
        "std::vector", "std::map", "std::unordered_map", "std::array", "std::deque", "std::__cxx11::list", "std::list"};
    return containers.count(record_name(type)) > 0;
  }

  // A range-for's variable (`for (auto& m : models)`, `for (auto& [name, m] : registry)`): its
  // initialiser is the dereferenced hidden iterator `__begin`.
  static bool range_for_element(const ValueDecl* decl) {
    if (const auto* binding = dyn_cast_or_null<BindingDecl>(decl)) decl = binding->getDecomposedDecl();
    const auto* var = dyn_cast_or_null<VarDecl>(decl);
    const Expr* init = var != nullptr && var->hasInit() ? strip(var->getInit()) : nullptr;
    const Expr* iterator = nullptr;
    if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(init); op && op->getOperator() == OO_Star)
      iterator = op->getArg(0);
    if (const auto* un = dyn_cast_or_null<UnaryOperator>(init); un && un->getOpcode() == UO_Deref)
      iterator = un->getSubExpr();
    const auto* ref = iterator != nullptr ? dyn_cast<DeclRefExpr>(strip(iterator)) : nullptr;
    return ref != nullptr && ref->getDecl()->getName().startswith("__begin");
  }

  // A model's run, `call`: `object.forward(args)`, or `object(args)` (torch::jit::Module's
  // operator(), which runs forward).
  template <typename Args>
  ir::Value* model_forward(const Expr& call, const Expr* object, const Args& args, std::optional<ir::Type> type) {
    ir::Value* module = expr(object);
    if (const DeclRefExpr* param = module_parameter(object))
      module = model_value(unit_.module_passed(*fd_, *cast<ParmVarDecl>(param->getDecl()), *param), call);
    std::vector<ir::Value*> inputs;
    for (const Expr* arg : args)
      if (ir::Value* v = expr(arg)) inputs.push_back(v);
    ir::Type out_type = type.value_or(ir::Type::simple(ir::Type::Kind::Tuple));
    const ir::Attr* archive = module && module->producer ? module->producer->attr("archive") : nullptr;
    cxx::ArchiveVerdict verdict;
    if (archive != nullptr && unit_.options_.archive_quantized) verdict = unit_.options_.archive_quantized(archive->s);
    if (verdict.quantized.value_or(false)) {
      ir::Value* joined = inputs.empty()
                              ? single("cxx::forward", {}, out_type, &call)
                              : single("prim::ListConstruct", inputs, ir::Type::simple(ir::Type::Kind::List), &call);
      ir::Value* run = stub_call(call, "the TorchScript model " + archive->s, joined, out_type);
      run->producer->set_attr("model_outputs", ir::Attr::of_bool(true));
      ir::Value* out = described_outputs(run, verdict, &call);
      if (!verdict.elements_quantized.empty()) model_elements_[out] = verdict.elements_quantized;
      if (!verdict.keys_quantized.empty()) model_keys_[out] = verdict.keys_quantized;
      if (verdict.returns_tensor) one_tensor_outputs_[out] = archive->s;
      runs_[out] = run_seen(call, archive->s, *run->producer);
      return out;
    }
    if (module) inputs.insert(inputs.begin(), module);
    ir::Value* out = single("cxx::forward", inputs, out_type, &call);
    if (verdict.returns_tensor) one_tensor_outputs_[out] = archive->s;
    // The command line says so in a note: the outputs count as unquantized.
    if (!verdict.unread.empty())
      out->producer->set_attr("unread_archive", ir::Attr::of_str(archive->s + "\n" + verdict.unread));
    const ir::Attr* variable = module && module->producer ? module->producer->attr("archive_variable") : nullptr;
    if (variable != nullptr && unit_.options_.archive_quantized) out->producer->set_attr("unnamed_archive", *variable);
    const ir::Attr* qualified = module && module->producer ? module->producer->attr("archive_qualified") : nullptr;
    if (variable != nullptr && qualified != nullptr && unit_.options_.archive_quantized)
      out->producer->set_attr("unnamed_archive_qualified", *qualified);
    const ir::Attr* conflict = module && module->producer ? module->producer->attr("archive_choices") : nullptr;
    if (conflict != nullptr && unit_.options_.archive_quantized) out->producer->set_attr("archive_conflict", *conflict);
    const ir::Attr* ambiguous = module && module->producer ? module->producer->attr("archive_ambiguity") : nullptr;
    if (ambiguous != nullptr && unit_.options_.archive_quantized)
      out->producer->set_attr("archive_ambiguous", *ambiguous);
    const ir::Attr* unfollowed = module && module->producer ? module->producer->attr("unfollowed_loader") : nullptr;
    if (unfollowed != nullptr && unit_.options_.archive_quantized)
      out->producer->set_attr("unfollowed_model", *unfollowed);
    const ir::Attr* elsewhere = module && module->producer ? module->producer->attr("field_loaded_elsewhere") : nullptr;
    if (elsewhere != nullptr && unit_.options_.archive_quantized)
      out->producer->set_attr("elsewhere_field", *elsewhere);
    // A model taken from a std::vector or std::map: not followed to its archive, which a note says
    // (else its outputs would count as unquantized without a word).
    const bool loaded = module != nullptr && module->producer != nullptr && module->producer->kind == "cxx::load";
    if (std::string kept = container_of(object); !loaded && !kept.empty() && unit_.options_.archive_quantized)
      out->producer->set_attr("container_model", ir::Attr::of_str(kept));
    else if (archive == nullptr && !says_why_unlinked(*out->producer) && unit_.options_.archive_quantized)
      out->producer->set_attr("unlinked_model", ir::Attr::of_str(written_or(arrow_base(object), "this model")));
    runs_[out] = run_seen(call, archive != nullptr ? archive->s : "", *out->producer);
    return out;
  }

  // A parameter that calls in other files pass a model's outputs to (Options::passed_models): that
  // model's run, a quant point at the parameter, so that the function's code on it is checked as
  // the caller's code on the outputs is.
  ir::Value* passed_in(const ParmVarDecl& p, ir::Value* param, const ReturnedModel& passed) {
    const cxx::ArchiveVerdict verdict = unit_.options_.archive_quantized(passed.archive);
    if (!verdict.quantized.value_or(false) || !element_quantized(verdict, passed.element)) return param;
    ir::Value* run =
        stub_call_at(unit_.location(p.getSourceRange()), "the TorchScript model " + passed.archive, param, param->type);
    run->producer->set_attr("model_outputs", ir::Attr::of_bool(true));
    ir::Value* out = passed.element == ReturnedModel::kWhole ? described_outputs(run, verdict, nullptr) : run;
    runs_[out] = passed;  // returned, it is the same run to the callers of this function
    return out;
  }

  // A model's quantized outputs as the analysis is to see them, element by element, wherever they
  // are passed (a helper taking the IValue, detectron2's `get_outputs`): a tuple or dict of the
  // run's elements, in which an element that carries no quantization (class ids, a bool mask:
  // ArchiveVerdict) is a value of its own. The run itself stays the quant point; `run` when the
  // archive says nothing of its elements. One level: a dict in a list is read whole.
  ir::Value* described_outputs(ir::Value* run, const cxx::ArchiveVerdict& verdict, const Stmt* where) {
    std::vector<ir::Value*> parts;
    auto add = [&](ir::Value* key, bool quantized) {
      parts.push_back(quantized ? single("aten::__getitem__", {run, key}, run->type, where)
                                : single("cxx::unquantized_model_output", {}, run->type, where));
    };
    for (size_t i = 0; i < verdict.elements_quantized.size(); ++i)
      add(int_constant(static_cast<int64_t>(i)), verdict.elements_quantized[i]);
    for (const auto& [key, quantized] : verdict.keys_quantized) {
      parts.push_back(constant(ir::Attr::of_str(key), ir::Type::simple(ir::Type::Kind::Str)));
      add(parts.back(), quantized);
    }
    if (parts.empty()) return run;
    const bool dict = !verdict.keys_quantized.empty();
    ir::Value* out = single(dict ? "prim::DictConstruct" : "prim::TupleConstruct", parts, run->type, where);
    out->producer->set_attr("model_outputs", ir::Attr::of_bool(true));  // for from_model_run
    return out;
  }

  // A model's run as a caller in another file is told of it: where, its archive, or why it
  // has none here (the note at the run says it in full).
  ReturnedModel run_seen(const Expr& call, const std::string& archive, const ir::Node& run) const {
    ReturnedModel seen;
    const ir::SourceLoc loc = unit_.location(call.getSourceRange());
    seen.where = std::filesystem::path(loc.file).filename().string() + ":" + std::to_string(loc.line);
    seen.archive = archive;
    const ir::Attr* variable = run.attr("unnamed_archive");
    seen.why =
        UnitLowering::why_unlinked(variable != nullptr ? variable->s : "", run.attr("archive_conflict") != nullptr,
                                   run.attr("archive_ambiguous") != nullptr);
    if (seen.why.empty() && archive.empty())
      seen.why = "qlint does not see which archive it runs there (see the note at the run)";
    return seen;
  }

 public:
  // The model run whose outputs the function returns (`return model.forward({x}).toTensor();`,
  // also through a variable or `.cpu()`), for the calls in other files; nullopt when it returns
  // no model's outputs, or a mix.
  std::optional<ReturnedModel> returned_run() const {
    if (fn_.body.returns.empty()) return std::nullopt;  // then tensor out-parameters, if any
    return run_of(fn_.body.returns[0], 0);
  }

 private:
  // The model run a value is, through copies and conversions; of a join (a return in each arm
  // of an `if`, EasyOCR's `return res;` in a `try` and an empty fallback after its `catch`),
  // the one run its arms hold, when they hold one.
  std::optional<ReturnedModel> run_of(const ir::Value* v, int depth) const {
    // The outputs as a std::vector (public C++ round 22: RAFT's `forward` returned
    // `toTensorVector()`, and its caller's `prediction.back() == 1` went unseen, without a note).
    static const std::set<std::string> same_values = {"cxx::toTensor",       "cxx::toTuple",     "cxx::elements",
                                                      "cxx::toTensorVector", "cxx::toList",      "aten::cpu",
                                                      "aten::detach",        "aten::contiguous", "aten::clone"};
    if (v == nullptr || depth > 8) return std::nullopt;
    if (auto run = runs_.find(v); run != runs_.end()) return run->second;
    if (v->producer == nullptr || v->producer->inputs.empty()) return std::nullopt;
    if (same_values.count(v->producer->kind)) return run_of(v->producer->inputs[0], depth + 1);
    // `result.front()`, `result.back()`: the first or the last element.
    if ((v->producer->kind == "cxx::front" || v->producer->kind == "cxx::back") && v->producer->inputs.size() == 1) {
      std::optional<ReturnedModel> run = run_of(v->producer->inputs[0], depth + 1);
      if (!run || run->element != ReturnedModel::kWhole) return std::nullopt;
      run->element = v->producer->kind == "cxx::front" ? 0 : ReturnedModel::kLast;
      return run;
    }
    // An element of the outputs (`.toTuple()->elements()[2]`, public round 19 C++: dropped across
    // files without a note), which the caller's file reads as that element of the archive's.
    if ((v->producer->kind == "prim::TupleIndex" || v->producer->kind == "aten::__getitem__") &&
        v->producer->inputs.size() == 2) {
      std::optional<ReturnedModel> run = run_of(v->producer->inputs[0], depth + 1);
      const std::optional<int64_t> index = int_constant_of(v->producer->inputs[1]);
      if (!run || run->element != ReturnedModel::kWhole || !index || *index < 0) return std::nullopt;
      run->element = *index;
      return run;
    }
    // A view of the outputs or an element read out (`forward({x}).toTensor()[0]`, `.squeeze(0)`,
    // `[0][4].item<float>()`; public C++ round 26: silent across files): the same values, rounded
    // as the outputs are.
    if (v->producer->kind == "aten::item" || ir::is_view_op(*v->producer))
      return run_of(v->producer->inputs[0], depth + 1);
    if (v->producer->kind != "prim::join") return std::nullopt;
    std::optional<ReturnedModel> found;
    for (const ir::Value* arm : v->producer->inputs) {
      std::optional<ReturnedModel> run = run_of(arm, depth + 1);
      if (!run) continue;
      if (found && std::tie(found->archive, found->where) != std::tie(run->archive, run->where)) return std::nullopt;
      found = run;
    }
    return found;
  }

  // Whether the element of a model's outputs (ReturnedModel::element) carries the quantization of
  // the archive whose outputs do (ArchiveVerdict::elements_quantized; class ids do not).
  static bool element_quantized(const cxx::ArchiveVerdict& verdict, int64_t element) {
    const size_t elements = verdict.elements_quantized.size();
    if (element == ReturnedModel::kWhole || elements == 0) return true;
    if (element == ReturnedModel::kLast) return verdict.elements_quantized.back();
    return element >= 0 && static_cast<size_t>(element) < elements &&
           verdict.elements_quantized[static_cast<size_t>(element)];
  }

  // The model run a value passed to another file's function holds (CrossFileFacts::passes_model):
  // the run's outputs, or a view of them, a copy or a move to the CPU
  // (`forward(x).toTensor().squeeze()`); not values computed from them.
  std::optional<ReturnedModel> passed_run(const ir::Value* v) const {
    for (int depth = 0; v != nullptr && depth < 8; ++depth) {
      if (std::optional<ReturnedModel> run = run_of(v, 0)) return run;
      const ir::Node* op = v->producer;
      // `.cpu()` copies to the host: the same values, like a view (ir::is_view_op).
      if (op == nullptr || op->inputs.empty() || !(ir::is_view_op(*op) || op->kind == "aten::cpu") ||
          op->inputs[0]->type.kind != ir::Type::Kind::Tensor)
        return std::nullopt;
      v = op->inputs[0];
    }
    return std::nullopt;
  }

  // Arguments of a call of another file's function that are a model's outputs, held in a
  // variable (`to_image(flow)`): that file is told, and checks the function's code on them
  // (public C++ round 22: RAFT's flow drawn by a function of Visualization.cpp went unseen).
  void note_models_passed(const CallExpr& call, const std::string& key) {
    for (unsigned i = 0; i < call.getNumArgs(); ++i) {
      const auto* ref = dyn_cast<DeclRefExpr>(strip(call.getArg(i)));
      auto var = ref != nullptr ? vars_.find(ref->getDecl()) : vars_.end();
      if (var == vars_.end()) continue;
      if (std::optional<ReturnedModel> run = passed_run(var->second); run && !run->archive.empty())
        unit_.model_passed(key, i, *run);
    }
  }

  // A call of a function the file declares and another file defines, which returns a model's
  // outputs there (Options::returned_models): the run of that model here, linked to its archive;
  // without one, a note at the call says why (else the code after it would be checked as plain
  // float code without a word).
  ir::Value* call_elsewhere(const CallExpr& call, const FunctionDecl& callee, const Expr* object,
                            std::optional<ir::Type> type) {
    if (callee.isDefined() || isa<CXXOperatorCallExpr>(call) || !unit_.options_.archive_quantized) return nullptr;
    const std::string qualified = callee.getQualifiedNameAsString();
    for (const char* library : {"at::", "c10::", "torch::", "std::"})  // LibTorch's and the standard library's
      if (qualified.rfind(library, 0) == 0) return nullptr;
    const std::string key = function_key(callee);
    unit_.calls_elsewhere_.insert(key);
    note_models_passed(call, key);
    auto found = unit_.options_.returned_models.find(key);
    if (found == unit_.options_.returned_models.end()) return nullptr;
    const ReturnedModel& returned = found->second;
    std::vector<ir::Value*> inputs;
    if (object != nullptr)
      if (ir::Value* self = expr(object)) inputs.push_back(self);
    for (const Expr* arg : call.arguments())
      if (ir::Value* v = expr(arg)) inputs.push_back(v);
    cxx::ArchiveVerdict verdict;
    if (!returned.archive.empty()) verdict = unit_.options_.archive_quantized(returned.archive);
    const ir::Type out_type = type.value_or(ir::Type::simple(ir::Type::Kind::Tuple));  // an IValue as a run's
    ir::Value* out = nullptr;
    const bool whole = returned.element == ReturnedModel::kWhole;
    // One element of the outputs: quantized when the archive's is (class ids are not).
    if (verdict.quantized.value_or(false) && !element_quantized(verdict, returned.element)) {
      out = single("cxx::unquantized_model_output", {}, out_type, &call);
      runs_[out] = returned;
      return out;
    }
    if (verdict.quantized.value_or(false)) {
      ir::Value* joined = single("prim::ListConstruct", inputs, ir::Type::simple(ir::Type::Kind::List), &call);
      ir::Value* run = stub_call(call, "the TorchScript model " + returned.archive, joined, out_type);
      run->producer->set_attr("model_outputs", ir::Attr::of_bool(true));
      out = whole ? described_outputs(run, verdict, &call) : run;
      if (!verdict.elements_quantized.empty() && whole) model_elements_[out] = verdict.elements_quantized;
      if (!verdict.keys_quantized.empty() && whole) model_keys_[out] = verdict.keys_quantized;
    } else {
      out = single("cxx::" + callee.getNameAsString(), inputs, out_type, &call);
      if (!verdict.unread.empty())
        out->producer->set_attr("unread_archive", ir::Attr::of_str(returned.archive + "\n" + verdict.unread));
      else if (returned.archive.empty())
        out->producer->set_attr("elsewhere_model",
                                ir::Attr::of_str(returned.function + "\n" + returned.where + "\n" + returned.why));
    }
    runs_[out] = returned;  // a function of this file that returns it passes it on
    return out;
  }

 public:
  // Whether a run's node already carries a note on why its archive is not taken.
  static bool says_why_unlinked(const ir::Node& run) {
    for (const char* why :
         {"unnamed_archive", "archive_conflict", "unfollowed_model", "archive_ambiguous", "elsewhere_field"})
      if (run.attr(why) != nullptr) return true;
    return false;
  }

  // Where a run's object names a parameter of the function lowered (`model` of `model.forward(x)`,
  // a `torch::jit::Module&` or a pointer to one, also of a local copy of it: `auto vad =
  // model.deepcopy();`); else null.
  const DeclRefExpr* module_parameter(const Expr* object, int depth = 0) const {
    const auto* ref = object != nullptr ? dyn_cast<DeclRefExpr>(strip(arrow_base(object))) : nullptr;
    const auto* local = ref != nullptr ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (local != nullptr && !isa<ParmVarDecl>(local) && local->hasInit() && depth < 8 && !assigned_.count(local))
      if (const Expr* init = strip(local->getInit()); holds_module(init->getType()))
        if (const Expr* copied = copied_module(init)) return module_parameter(copied, depth + 1);
    const auto* param = ref != nullptr ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
    if (param == nullptr || fd_ == nullptr || !holds_module(param->getType())) return nullptr;
    return UnitLowering::parameter_index(*fd_, *param) >= 0 ? ref : nullptr;
  }

  // "`Pipeline::infer` (line 11)": where a field was set from a model's outputs, for the note at
  // its reads in other methods.
  std::string where_set(const ir::Value* v) const {
    std::string where = "`" + (fd_ != nullptr ? fd_->getQualifiedNameAsString() : std::string("?")) + "`";
    return v->producer != nullptr && v->producer->loc.known()
               ? where + " (line " + std::to_string(v->producer->loc.line) + ")"
               : where;
  }

  // `m` of `m->forward(x)`: the note names the pointer, not `m->`.
  static const Expr* arrow_base(const Expr* object) {
    const auto* arrow = dyn_cast_or_null<CXXOperatorCallExpr>(strip(object));
    return arrow != nullptr && arrow->getOperator() == OO_Arrow && arrow->getNumArgs() == 1 ? arrow->getArg(0) : object;
  }

  std::string written_or(const Expr* e, const std::string& otherwise) const {
    const std::string written = e != nullptr ? unit_.text(strip(e)->getSourceRange()) : "";
    return written.empty() ? otherwise : written;
  }

  ir::Value* builtin_binary(const BinaryOperator& bin) {
    if (bin.getOpcode() == BO_Assign) return store(bin, expr(bin.getRHS()));
    if (bin.getOpcode() == BO_Comma) {
      expr(bin.getLHS());
      return expr(bin.getRHS());
    }
    if (bin.isCompoundAssignmentOp()) return compound_assignment(bin);
    ir::Value* lhs = expr(bin.getLHS());
    ir::Value* rhs = expr(bin.getRHS());
    const char* kind = builtin_kind(bin.getOpcode());
    auto type = ir_type(bin.getType());
    if (kind == nullptr || lhs == nullptr || rhs == nullptr || !type) return nullptr;
    return single(kind, {lhs, rhs}, *type, &bin);
  }

  // `acc += out[0][1].item<float>()` is `acc = acc + ...`: the variable then carries what the
  // right side carries (public C++ round 24: NanoDet's box edges, summed from a model's output
  // in a loop and stored into `int` fields, truncated unseen).
  ir::Value* compound_assignment(const BinaryOperator& bin) {
    ir::Value* lhs = expr(bin.getLHS());
    ir::Value* rhs = expr(bin.getRHS());
    const char* kind = builtin_kind(BinaryOperator::getOpForCompoundAssignment(bin.getOpcode()));
    auto type = ir_type(bin.getLHS()->getType());
    if (kind == nullptr || lhs == nullptr || rhs == nullptr || !type) return lhs;
    return store(bin, single(kind, {lhs, rhs}, *type, &bin));
  }

  // `lhs = v` (also `lhs += ...`): a field of a record written, or the variable bound to `v`.
  ir::Value* store(const BinaryOperator& bin, ir::Value* v) {
    if (write_through_accessor(bin.getLHS(), v, bin) || assign_record_field(bin.getLHS(), v, bin)) return v;
    if (const ValueDecl* decl = assigned(bin.getLHS()); decl && v) bind(decl, v);
    return v;
  }

  ir::Value* builtin_unary(const UnaryOperator& un) {
    ir::Value* v = expr(un.getSubExpr());
    if (v == nullptr) return nullptr;
    if (un.getOpcode() == UO_Minus) return single("aten::neg", {v}, v->type, &un);
    if (un.getOpcode() == UO_LNot) return single("aten::__not__", {v}, ir::Type::simple(ir::Type::Kind::Bool), &un);
    return v;
  }

  // static_cast<float>(s) keeps a value; a cast to an integer or bool makes it exact.
  ir::Value* explicit_cast(const ExplicitCastExpr& cast) {
    ir::Value* v = expr(cast.getSubExpr());
    auto type = ir_type(cast.getType());
    if (v == nullptr || !type || type->kind == v->type.kind) return v;
    return single(type->kind == ir::Type::Kind::Int    ? "aten::Int"
                  : type->kind == ir::Type::Kind::Bool ? "aten::Bool"
                                                       : "aten::Float",
                  {v}, *type, &cast);
  }

  // Anything else: its sub-expressions are lowered (their comparisons count), and a tensor it
  // makes carries what flowed into it.
  ir::Value* opaque(const Expr& e) {
    std::vector<ir::Value*> inputs;
    for (const Stmt* child : e.children())
      if (const auto* sub = dyn_cast_or_null<Expr>(child))
        if (ir::Value* v = expr(sub)) inputs.push_back(v);
    auto type = ir_type(e.getType());
    if (!type) return nullptr;
    return single(std::string("cxx::") + e.getStmtClassName(), inputs, *type, &e);
  }

  UnitLowering& unit_;
  ir::Function& fn_;
  const FunctionDecl* fd_ = nullptr;  // the function lowered
  // The outputs of each model run (and of each call of another file's function that returns
  // one), as a caller in another file is told of them (returned_run).
  std::map<const ir::Value*, ReturnedModel> runs_;
  std::map<const ValueDecl*, ir::Value*> vars_;
  std::set<const VarDecl*> record_elements_;                      // range-for variables bound to a vector's aggregate
  std::map<const ValueDecl*, const ValueDecl*> accessed_tensor_;  // an accessor -> its tensor's variable
  // A model's output tuple, and what is taken from it whole (`.toTuple()->elements()`): whether
  // each element carries quantization (ArchiveVerdict::elements_quantized).
  std::map<const ir::Value*, std::vector<bool>> model_elements_;
  // A model's output dict, and what is taken from it whole: whether each key's value carries
  // quantization (ArchiveVerdict::keys_quantized).
  std::map<const ir::Value*, std::map<std::string, bool>> model_keys_;
  // A model's outputs, and what is taken from them whole, when its archive's forward returns one
  // tensor (ArchiveVerdict::returns_tensor): the archive's path.
  std::map<const ir::Value*, std::string> one_tensor_outputs_;
  std::unordered_map<const Expr*, bool> may_be_constant_;
  std::map<std::string, int> name_counts_;
  std::set<const ValueDecl*> assigned_;
  int counter_ = 0;
};

// The functions with a body in the main file, in source order, and each instantiation of the
// file's function templates (what the template computes depends on its arguments: each
// instantiation is lowered, and their findings at one place are one finding).
class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
 public:
  explicit FunctionCollector(UnitLowering& unit) : unit_(unit) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (wanted(*fd)) add(fd);
    return true;
  }

  // A lambda's call operator is a function of its own (a generic lambda's is a template: not
  // lowered, as templates are not).
  bool VisitLambdaExpr(LambdaExpr* lambda) {
    if (const CXXMethodDecl* op = lambda->getCallOperator(); op != nullptr && wanted(*op)) add(op);
    return true;
  }

  // A member template defined out of its class (`template <typename T> T Net::forward(...)` in
  // the .cpp, its class in a header): Clang's visitor reaches the instantiations only from the
  // template's first declaration, the one in the class, which is not walked when the header is
  // not the project's own (or not walked here when it is). Each instantiation is reached from the
  // definition too; `add` keeps each function once.
  bool VisitFunctionTemplateDecl(FunctionTemplateDecl* tmpl) {
    if (tmpl == tmpl->getCanonicalDecl() || !tmpl->isThisDeclarationADefinition()) return true;
    for (FunctionDecl* spec : tmpl->specializations())
      for (FunctionDecl* redecl : spec->redecls())
        if (redecl->getTemplateSpecializationKind() != TSK_ExplicitSpecialization) TraverseDecl(redecl);
    return true;
  }

  std::vector<const FunctionDecl*> functions;

 private:
  void add(const FunctionDecl* fd) {
    if (added_.insert(fd).second) functions.push_back(fd);
  }
  std::set<const FunctionDecl*> added_;

  // The project's own code; a configured quant function is a quant point, and what its body
  // does is the toolchain's business.
  bool wanted(const FunctionDecl& fd) const {
    return fd.doesThisDeclarationHaveABody() && !fd.isDependentContext() && !fd.isDeleted() &&
           unit_.own_code(fd.getLocation()) && !unit_.is_quant_function(fd) && !has_errors(fd);
  }

  // A function Clang could not parse whole (in a file that does not compile): an invalid
  // declaration, or a body holding an expression Clang recovered from. Its lowering would guess.
  static bool has_errors(const FunctionDecl& fd) {
    if (fd.isInvalidDecl()) return true;
    struct Finder : RecursiveASTVisitor<Finder> {
      bool found = false;
      bool VisitExpr(Expr* e) {
        found = found || e->containsErrors();
        return !found;
      }
      bool VisitDecl(Decl* d) {
        found = found || d->isInvalidDecl();
        return !found;
      }
    } finder;
    finder.TraverseStmt(fd.getBody());
    return finder.found;
  }

  UnitLowering& unit_;
};

ir::Model UnitLowering::run() {
  model_.language = ir::Language::Cxx;
  read_source_lines();
  // Only the project's own declarations are walked (the main file's, its own headers'): the
  // third-party headers' (LibTorch's thousands, with their template instantiations) hold
  // nothing of the project's, and walking them cost a compile with the plugin several per cent.
  FunctionCollector collector(*this);
  std::vector<Decl*> own;
  for (Decl* decl : ctx_.getTranslationUnitDecl()->decls())
    if (own_code(decl->getLocation())) own.push_back(decl);
  for (Decl* decl : own) collector.TraverseDecl(decl);
  call_sites_.collect(own);
  archive_names_.collect(own);
  for (const FunctionDecl* fd : collector.functions)  // a header's, for messages and suppressions
    read_lines_of(sm_.getFileID(sm_.getExpansionLoc(fd->getLocation())));
  std::set<std::string> taken;
  for (const FunctionDecl* fd : collector.functions) {
    std::string base = ir_function_name(*fd);
    std::string name = base;
    for (int n = 2; taken.count(name); ++n) name = base + "#" + std::to_string(n);
    taken.insert(name);
    function_names_[fd->getFirstDecl()] = name;
  }
  std::vector<const VarDecl*> globals;
  for (const Decl* decl : own) initialised_globals(*decl, globals);
  collect_stored_archives(collector.functions, globals);
  for (const FunctionDecl* fd : collector.functions) {
    ir::Function& fn = model_.add_function("", function_names_.at(fd->getFirstDecl()));
    fn.entry = true;
    FunctionLowering lowering(*this, fn);
    lowering.run(*fd);
    std::optional<ReturnedModel> run = lowering.returned_run();
    const auto* method = dyn_cast<CXXMethodDecl>(fd);
    // Only a function another file can call: a `static` one or one in an unnamed namespace may
    // share its name with another file's.
    if (!fd->isExternallyVisible() || (method != nullptr && method->getParent()->isLambda())) continue;
    defines_.insert(function_key(*fd));
    if (run) {
      run->function = function_display(*fd);
      returns_model_[function_key(*fd)] = *run;
    }
  }
  mark_unfollowed_field_reads();
  return std::move(model_);
}

}  // namespace

ir::Model lower_translation_unit(ASTContext& context, const Options& options, std::vector<std::string>* archives_named,
                                 CrossFileFacts* facts) {
  UnitLowering unit(context, options);
  ir::Model model = unit.run();
  if (archives_named != nullptr) *archives_named = unit.archive_names_.used();
  if (facts != nullptr)
    *facts = {unit.returns_model_, unit.calls_elsewhere_, unit.archive_names_.parameters(), unit.passes_model_,
              unit.defines_};
  std::vector<std::string> problems = ir::verify(model);
  if (!problems.empty()) {
    // The input past qlint's bounds, said as the user's code made it; else a bug of qlint's.
    if (std::string too_deep = ir::beyond_limits(model); !too_deep.empty()) throw ir::ImportError(too_deep);
    throw ir::ImportError("lowers to an invalid IR (a bug of qlint's): " + problems[0]);
  }
  return model;
}

}  // namespace qlint::cxx
