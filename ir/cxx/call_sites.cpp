#include "ir/cxx/call_sites.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

namespace qlint::cxx {

namespace {

using namespace clang;

// An instantiated template of the standard library's headers (make_shared's allocate_shared,
// libstdc++'s __gnu_cxx::new_allocator<T>::construct).
bool library_template(const FunctionDecl& fn) {
  return fn.isTemplateInstantiation() && fn.getASTContext().getSourceManager().isInSystemHeader(fn.getLocation());
}

// The constructor of `made` that a standard library function template's instantiation calls,
// directly or through the helpers it forwards to; not a copy or move. Null when none is found
// within a few calls.
const CXXConstructorDecl* constructor_reached(const FunctionDecl& fn, const CXXRecordDecl& made, int depth) {
  const FunctionDecl* definition = fn.getDefinition();
  if (depth > 8 || definition == nullptr || definition->getBody() == nullptr) return nullptr;
  struct Finder : RecursiveASTVisitor<Finder> {
    const CXXRecordDecl* made = nullptr;
    int depth = 0;
    const CXXConstructorDecl* found = nullptr;
    bool VisitCXXConstructExpr(CXXConstructExpr* c) {
      const CXXConstructorDecl* ctor = c->getConstructor();
      if (ctor->getParent()->getCanonicalDecl() == made->getCanonicalDecl() && !ctor->isCopyOrMoveConstructor())
        found = ctor;
      else if (library_template(*ctor))
        found = constructor_reached(*ctor, *made, depth + 1);
      return found == nullptr;
    }
    bool VisitCallExpr(CallExpr* call) {
      const FunctionDecl* callee = call->getDirectCallee();
      if (callee != nullptr && library_template(*callee)) found = constructor_reached(*callee, *made, depth + 1);
      return found == nullptr;
    }
  } finder;
  finder.made = &made;
  finder.depth = depth;
  // A constructor forwards in its initializers too (__shared_ptr's `_M_refcount(..., args...)`).
  if (const auto* ctor = dyn_cast<CXXConstructorDecl>(definition))
    for (const CXXCtorInitializer* init : ctor->inits())
      if (finder.found == nullptr) finder.TraverseStmt(init->getInit());
  if (finder.found == nullptr) finder.TraverseStmt(definition->getBody());
  return finder.found;
}

// The constructor `std::make_unique<T>(args...)` (or make_shared) forwards its arguments to;
// else null.
const CXXConstructorDecl* made_constructor(const FunctionDecl& callee) {
  const std::string name = callee.getQualifiedNameAsString();
  if (name != "std::make_unique" && name != "std::make_shared") return nullptr;
  const TemplateArgumentList* targs = callee.getTemplateSpecializationArgs();
  if (targs == nullptr || targs->size() == 0 || targs->get(0).getKind() != TemplateArgument::Type) return nullptr;
  const CXXRecordDecl* made = targs->get(0).getAsType()->getAsCXXRecordDecl();
  return made != nullptr ? constructor_reached(callee, *made, 0) : nullptr;
}

}  // namespace

// Walks the declarations, knowing which function (or lambda) each call is in.
class CallSiteVisitor : public RecursiveASTVisitor<CallSiteVisitor> {
 public:
  explicit CallSiteVisitor(CallSites& sites) : sites_(sites) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl* d) {
    auto* fd = dyn_cast_or_null<FunctionDecl>(d);
    if (fd == nullptr) return RecursiveASTVisitor::TraverseDecl(d);
    const FunctionDecl* outer = caller_;
    caller_ = fd;
    bool go_on = RecursiveASTVisitor::TraverseDecl(d);
    caller_ = outer;
    return go_on;
  }

  // A lambda's body is a function of its own (its call operator), as the lowering reads it.
  bool TraverseLambdaExpr(LambdaExpr* lambda) {
    const FunctionDecl* outer = caller_;
    caller_ = lambda->getCallOperator();
    bool go_on = RecursiveASTVisitor::TraverseLambdaExpr(lambda);
    caller_ = outer;
    return go_on;
  }

  bool VisitCallExpr(CallExpr* call) {
    const FunctionDecl* callee = call->getDirectCallee();
    if (callee == nullptr || isa<CXXOperatorCallExpr>(call)) return true;  // an operator's first is `this`
    std::vector<const Expr*> args(call->arg_begin(), call->arg_end());
    if (const CXXConstructorDecl* made = made_constructor(*callee)) callee = made;
    add(callee, std::move(args), call->getBeginLoc());
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr* construct) {
    add(construct->getConstructor(), {construct->arg_begin(), construct->arg_end()}, construct->getBeginLoc());
    return true;
  }

 private:
  void add(const FunctionDecl* callee, std::vector<const Expr*> args, SourceLocation at) {
    if (callee == nullptr) return;
    // `struct Det : Net { using Net::Net; }; Det det("det.pt");` runs Net's constructor with the
    // same arguments: the call is one of Net's, as an explicit forwarding constructor makes it
    // (public round 19: LibtorchInfer's subclasses).
    if (const auto* ctor = dyn_cast<CXXConstructorDecl>(callee); ctor && ctor->isInheritingConstructor())
      if (const CXXConstructorDecl* base = ctor->getInheritedConstructor().getConstructor()) callee = base;
    sites_.sites_[callee->getCanonicalDecl()].push_back({std::move(args), caller_, at});
  }

  CallSites& sites_;
  const FunctionDecl* caller_ = nullptr;
};

void CallSites::collect(const std::vector<Decl*>& decls) {
  CallSiteVisitor visitor(*this);
  for (Decl* d : decls) visitor.TraverseDecl(d);
}

const std::vector<CallSite>& CallSites::of(const FunctionDecl* callee) const {
  static const std::vector<CallSite> none;
  if (callee == nullptr) return none;
  auto it = sites_.find(callee->getCanonicalDecl());
  return it == sites_.end() ? none : it->second;
}

}  // namespace qlint::cxx
