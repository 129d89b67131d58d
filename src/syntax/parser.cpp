// The recursive-descent parser of the paper syntax, the Lustre core and the function
// layer (grammar.md §1-§5), with its recovery. One file (~860 lines) on purpose: the
// precedence levels call each other, and splitting them would scatter one grammar.
#include "syntax/parser.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "syntax/contracts.hpp"
#include "syntax/lexer.hpp"
#include "syntax/any_values.hpp"
#include "syntax/quantifiers.hpp"
#include "syntax/datatypes.hpp"
#include "syntax/printer.hpp"
#include "syntax/refinements.hpp"
#include "syntax/statement_blocks.hpp"

namespace rml {
namespace {

struct ParseAbort {};  // thrown after a diagnostic, caught at a recovery point
struct LimitAbort {};  // nesting limit: give up on the file

class Parser {
 public:
  Parser(const SourceFile &f, Diagnostics &d) : d_(d), errors_before_(d.error_count()), toks_(lex(f, d)) {
    lex_failed_ = d.error_count() > errors_before_;
  }

  Program program() {
    Program p;
    if (lex_failed_) return p;  // parsing a broken token stream only adds noise
    while (!at(Tok::Eof) && !d_.saturated()) {
      try {
        if (at_modifier()) modifier_ = take().text;  // Kind 2's `transparent node`, `opaque function`
        switch (cur().kind) {
          case Tok::KwNode:
          case Tok::KwFunction: add_node(p, node_decl()); break;
          case Tok::KwFun:
            if (heptagon_fun()) add_node(p, node_decl());
            else p.decls.emplace_back(fun_decl());
            break;
          case Tok::KwConst: const_decls(p); break;
          case Tok::KwType:
            type_decls(p);
            break;
          default:
            if (size_t k = import_prefix_length()) {
              Span b = cur().span;
              std::string words;
              for (size_t i = 0; i < k; ++i) words += (i ? " " : "") + take().text;
              add_node(p, node_decl(std::move(words), b));
              break;
            }
            if (at_contract_decl()) {
              contract_decl();
              break;
            }
            if (at_datatype_decl()) {
              datatype_decl();
              break;
            }
            d_.error("parse.expected", cur().span,
                     std::string("expected a declaration ('node', 'function', 'fun' or 'const'), found ") +
                         describe(cur()));
            throw ParseAbort{};
        }
      } catch (ParseAbort &) {
        skip_to_decl();
      } catch (LimitAbort &) {
        break;
      }
    }
    p.statement_blocks = std::move(statement_blocks_);
    for (auto &[name, c] : contract_decls_) check_contract_decl(p, c, d_);
    if (refinements_seen_) expand_refinements(p, contract_bodies_, contract_decls_, d_);
    for (auto &[k, body] : contract_bodies_) p.contracts.push_back(body.span);
    for (auto &[name, c] : contract_decls_) p.contracts.push_back(c.name_span);
    if (!contract_bodies_.empty()) {
      std::set<std::string> names;  // generated locals avoid every name of the file
      for (size_t k = 0; k < toks_.size(); ++k) {
        // A mode's name (after `mode` or `::`) names no variable: a mode's local may take it.
        bool mode_name = k > 0 && ((toks_[k - 1].kind == Tok::Ident && toks_[k - 1].text == "mode") || (k > 1 && toks_[k - 1].kind == Tok::Colon && toks_[k - 2].kind == Tok::Colon));
        if (toks_[k].kind == Tok::Ident && !mode_name) names.insert(toks_[k].text);
      }
      expand_contracts(p, contract_bodies_, contract_decls_, names, d_);
    }
    for (auto &q : quantifiers_) p.datatypes.push_back(q.span);  // (printed, each would be its expansion)
    if (!quantifiers_.empty() && !d_.has_errors()) expand_quantifiers(p, quantifiers_, d_);
    if (!anys_.empty() && !d_.has_errors()) expand_any_values(p, anys_, d_);
    for (auto &a : anys_) p.datatypes.push_back(a.span);  // printed, each would be its imported node
    // Last: the contracts, refinements and statement blocks expanded above may use them.
    if ((!datatypes_.empty() || !matches_.empty() || !testers_.empty() || !bare_type_applied_.empty() || !whens_.empty()) &&
        !d_.has_errors())
      expand_datatypes(p, datatypes_, matches_, bare_type_applied_, d_);
    for (auto &dt : datatypes_) p.datatypes.push_back(dt.span);
    for (auto &m : matches_) p.datatypes.push_back(m.span);
    for (auto &t : testers_) p.datatypes.push_back(t);
    for (auto &w : whens_) p.datatypes.push_back(w);
    for (auto &a : activates_) p.datatypes.push_back(a);  // printed, each would be its expansion
    for (auto &a : ascriptions_) p.datatypes.push_back(a);  // printed, each would be its local
    if (!ascribed_named_.empty()) ascribed_ranges(p);
    return p;
  }

  ExprPtr single_expression() {
    try {
      auto e = expr();
      if (!at(Tok::Eof)) error_expected("end of input");
      return e;
    } catch (ParseAbort &) {
    } catch (LimitAbort &) {
    }
    return nullptr;
  }

 private:
  Diagnostics &d_;
  size_t errors_before_;
  std::vector<Token> toks_;
  bool lex_failed_ = false;
  size_t pos_ = 0;
  int depth_ = 0;
  bool lustre_when_ = false;  // in a Lustre node's body: Lustre's precedence of `when` (sampled())
  int merge_operand_ = 0;  // > 0 while parsing the operands of `merge c a b`
  // Kind 2's contracts (syntax/contracts.hpp): the node being parsed's, each node's by its
  // declaration's index, and the contract declarations by name.
  std::optional<ContractBody> pending_contract_;
  std::map<size_t, ContractBody> contract_bodies_;
  std::map<std::string, ContractDecl> contract_decls_;
  bool in_contract_ = false;  // mode references `::m` are read
  bool refinements_seen_ = false;  // a refinement type was read (syntax/refinements.cpp)
  std::vector<std::string> type_params_;  // the type parameters of the node being read
  // Kind 2's if statements and frame blocks (syntax/statement_blocks.hpp): where they are,
  // and every name of the file, which the locals they make avoid.
  std::vector<Span> statement_blocks_;
  std::optional<std::set<std::string>> file_names_;
  bool in_frame_body_ = false;  // `last v` is read
  // Kind 2's algebraic datatypes, matches and testers (syntax/datatypes.hpp), expanded
  // once the whole file is read.
  std::vector<DatatypeSyntax> datatypes_;
  std::vector<MatchSyntax> matches_;
  std::vector<Span> testers_;
  std::vector<Span> bare_type_applied_;  // `N@<T>` without arguments: a constructor, or an error
  std::vector<AnyValue> anys_;            // Kind 2's `any { x: T | P }` (syntax/any_values.hpp)
  std::vector<Quantifier> quantifiers_;   // Kind 2's `forall`, `exists` (syntax/quantifiers.hpp)
  std::vector<Span> whens_;               // Kind 2's `when c then e1 else e2` (syntax/datatypes.hpp)
  std::vector<Span> activates_;           // Kind 2's `(activate N every c)(x)`, written as its expansion
  std::set<std::string> enum_ctors_;      // the enumerations' constructors declared so far (activate)
  // Kind 2's type ascriptions `(e : t)` of the node being read (ascription()): each a local
  // of type t defined by e, added to the node after its body; their spans (fmt refuses).
  bool ascribing_ = false;  // in a node's equation, where an ascription is read
  std::vector<Equation> *current_equations_ = nullptr;  // the equations of the node being read
  std::vector<std::pair<VarDecl, Equation>> ascribed_;
  // An ascription to a named type, whose range (if it names a subrange) is checked once
  // the file's types are known (ascribed_ranges()): (node, local, type, span).
  struct NamedAscription {
    std::string node, local, type;
    Span span;
  };
  std::vector<NamedAscription> ascribed_named_;
  std::vector<Assumption> ascribed_checks_;  // the ranges of inline subranges, for the node
  std::vector<Span> ascriptions_;
  int ascribed_count_ = 0;
  std::string modifier_;  // `transparent` / `opaque` read before the next node's keyword

  // ---- token helpers ----
  const Token &cur() const { return toks_[pos_]; }
  const Token &peek(size_t k) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at(Tok k) const { return cur().kind == k; }
  Token take() {
    Token t = cur();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    take();
    return true;
  }
  static std::string describe(const Token &t) {
    if (t.kind == Tok::Ident) return "identifier '" + t.text + "'";
    if (t.kind == Tok::Int || t.kind == Tok::Real) return "number '" + t.text + "'";
    if (t.kind == Tok::String) return "string \"" + t.text + "\"";
    if (t.kind == Tok::KwMachine) return "the machine integer type '" + t.text + "' (a reserved word)";
    return tok_name(t.kind);
  }
  [[noreturn]] void error_expected(const std::string &what) {
    d_.error("parse.expected", cur().span, "expected " + what + ", found " + describe(cur()));
    throw ParseAbort{};
  }
  Token expect(Tok k, const char *context = nullptr) {
    if (!at(k)) error_expected(std::string(tok_name(k)) + (context ? std::string(" ") + context : ""));
    return take();
  }
  std::string expect_ident(const char *what) {
    if (!at(Tok::Ident)) error_expected(what);
    return take().text;
  }
  // A variable name where Lustre allows any identifier: also `in`, which rml reserves
  // only for `let x = e in e` (Lustre programs name inputs `in`).
  bool at_name() const { return at(Tok::Ident) || at(Tok::KwIn); }
  std::string expect_name(const char *what) {
    if (!at_name()) error_expected(what);
    Token t = take();
    return t.kind == Tok::KwIn ? std::string("in") : t.text;
  }
  // `fun f(...) returns (...)` is Heptagon's stateless node; rml's `fun f(...) : t = e;`
  // has no `returns`. Looks past the parameter list's parentheses.
  bool heptagon_fun() const {
    if (peek(1).kind == Tok::Ident && peek(2).kind == Tok::Lt && peek(3).kind == Tok::Lt) return true;  // fun f<<n: int>>
    if (peek(1).kind != Tok::Ident || peek(2).kind != Tok::LParen) return false;
    int depth = 0;
    for (size_t k = 2; peek(k).kind != Tok::Eof; ++k) {
      Tok t = peek(k).kind;
      if (t == Tok::LParen) ++depth;
      else if (t == Tok::RParen && --depth == 0) return peek(k + 1).kind == Tok::KwReturns;
    }
    return false;
  }
  Span prev_span() const { return pos_ > 0 ? toks_[pos_ - 1].span : cur().span; }
  Span from(Span begin) const { return Span::cover(begin, prev_span()); }
  // `<<` and `>>` are two tokens each (so `a<b` and `a>b` stay comparisons), written together.
  bool at_double(Tok k) const { return at(k) && peek(1).kind == k && peek(1).span.begin == cur().span.end; }

  static bool is_decl_start(Tok k) {
    return k == Tok::KwNode || k == Tok::KwFunction || k == Tok::KwFun || k == Tok::KwConst || k == Tok::KwType;
  }
  bool at_decl_start() const {
    return is_decl_start(cur().kind) || import_prefix_length() > 0 || at_contract_decl() || at_datatype_decl() ||
           at_modifier();
  }
  // Kind 2's `transparent` or `opaque` before a node's keyword (names elsewhere).
  bool at_modifier() const {
    return cur().kind == Tok::Ident && (cur().text == "transparent" || cur().text == "opaque") &&
           (peek(1).kind == Tok::KwNode || peek(1).kind == Tok::KwFunction || import_prefix_length_at(1) > 0);
  }
  // `datatype D = ...` (Kind 2): `datatype` is a name elsewhere.
  bool at_datatype_decl() const {
    return cur().kind == Tok::Ident && cur().text == "datatype" && peek(1).kind == Tok::Ident &&
           (peek(2).kind == Tok::Eq || peek(2).kind == Tok::Lt || peek(2).kind == Tok::Comma);
  }
  // `contract C (...)`: `contract` is a name elsewhere.
  bool at_contract_decl() const {
    return cur().kind == Tok::Ident && cur().text == "contract" && peek(1).kind == Tok::Ident &&
           (peek(2).kind == Tok::LParen || peek(2).kind == Tok::Lt);
  }
  // The words before an imported node's keyword, as a count of tokens (0: none): Kind 2's
  // `imported`, Lustre V6's `extern` and `unsafe extern`, Heptagon's `val`. They are names
  // elsewhere; only before `node`/`function`/`fun` do they open a declaration.
  size_t import_prefix_length() const { return import_prefix_length_at(0); }
  size_t import_prefix_length_at(size_t at) const {
    auto word = [&](size_t k, const char *w) { return peek(at + k).kind == Tok::Ident && peek(at + k).text == w; };
    auto node_kw = [&](size_t k) {
      Tok t = peek(at + k).kind;
      return t == Tok::KwNode || t == Tok::KwFunction || t == Tok::KwFun;
    };
    if ((word(0, "imported") || word(0, "extern") || word(0, "val")) && node_kw(1)) return 1;
    if (word(0, "unsafe") && word(1, "extern") && node_kw(2)) return 2;
    return 0;
  }
  void skip_to_decl() {
    if (!at(Tok::Eof)) take();
    while (!at(Tok::Eof) && !at_decl_start()) take();
  }
  void skip_past_semi_or_decl() {
    take();
    while (!at(Tok::Eof) && !at(Tok::Semi) && !at_decl_start()) take();
    accept(Tok::Semi);
  }

  struct DepthGuard {
    Parser &p;
    explicit DepthGuard(Parser &pp) : p(pp) {
      if (++p.depth_ > 256) {
        p.d_.error("parse.limit", p.cur().span, "expression nested deeper than 256 levels");
        throw LimitAbort{};
      }
    }
    ~DepthGuard() { --p.depth_; }
  };

  ExprPtr finish(ExprPtr e) {
    uint32_t h = 0;
    for (auto &a : e->args) h = std::max(h, a->height);
    e->height = h + 1;
    if (e->height > kMaxExprHeight) {
      d_.error("parse.limit", e->span, "expression is too large (AST height over 512)");
      throw LimitAbort{};
    }
    return e;
  }
  ExprPtr node(ExprKind k, Span s, std::vector<ExprPtr> args, Op op = Op::None) {
    auto e = std::make_unique<Expr>(k, s);
    e->op = op;
    e->args = std::move(args);
    return finish(std::move(e));
  }
  ExprPtr binary(Op op, ExprPtr l, ExprPtr r, Span op_span) {
    Span s = Span::cover(l->span, r->span);
    std::vector<ExprPtr> a;
    a.push_back(std::move(l));
    a.push_back(std::move(r));
    auto e = node(ExprKind::Binary, s, std::move(a), op);
    e->op_span = op_span;
    return e;
  }

  // ---- declarations ----
  // `import_words`: the words before the keyword of an imported node ("extern", ...), whose
  // span starts at `import_begin`.
  NodeDecl node_decl(std::string import_words = {}, Span import_begin = {}) {
    NodeDecl n;
    n.modifier = std::move(modifier_);
    modifier_.clear();
    struct TypeParamsScope {  // the node's type parameters name type variables until its end
      std::vector<std::string> &names;
      ~TypeParamsScope() { names.clear(); }
    } type_params_scope{type_params_};
    n.keyword_span = cur().span;
    bool import_declared = !import_words.empty();
    if (import_declared) {
      n.keyword_span = Span::cover(import_begin, cur().span);
      n.imported = true;
      n.import_keyword = std::move(import_words);
    }
    n.lustre_style = false;
    Tok kw = take().kind;
    n.is_function = kw == Tok::KwFunction || kw == Tok::KwFun;
    n.fun_keyword = kw == Tok::KwFun;
    if (!import_declared && kw != Tok::KwFun && at_word(0, "imported") && peek(1).kind == Tok::Ident) {
      // Kind 2 also writes the word after the keyword: `node imported f(...)`.
      n.keyword_span = Span::cover(n.keyword_span, take().span);
      import_declared = true;
      n.imported = true;
      n.import_keyword = "imported";
    }
    n.name_span = cur().span;
    // `current` is Lustre's operator, which rml does not read, and a node name Vélus uses.
    n.name = at(Tok::KwCurrent) ? (take(), std::string("current")) : expect_ident("a node name");
    if (at(Tok::Lt) && !at_double(Tok::Lt)) {  // Kind 2's type parameters `node N<T, U>(...)`
      take();
      do {
        Span sp = cur().span;
        std::string name = expect_ident("a type parameter's name");
        if (std::find(n.type_params.begin(), n.type_params.end(), name) != n.type_params.end())
          d_.error("name.duplicate", sp, "type parameter '" + name + "' is declared twice");
        n.type_params.push_back(name);
        n.type_param_spans.push_back(sp);
      } while (accept(Tok::Comma));
      expect(Tok::Gt, "to close the type parameters");
      type_params_ = n.type_params;
    }
    if (at_double(Tok::Lt)) {  // static parameters `<<const n: int; m: int>>`
      take();
      take();
      n.statics = params(Tok::Gt);
      if (!at_double(Tok::Gt)) error_expected("'>>' to close the static parameters");
      take();
      take();
    }
    expect(Tok::LParen, "after the node name");
    n.inputs = params(Tok::RParen);
    expect(Tok::RParen, "to close the inputs");
    if (at(Tok::Semi) && peek(1).kind == Tok::KwReturns) take();  // `node f(x: int);\nreturns (...)` (Vélus's examples)
    if (accept(Tok::KwReturns) || accept(Tok::Eq)) n.lustre_style = true;  // `=`: Heptagon's older header
    else if (!accept(Tok::Arrow)) error_expected("'->' or 'returns'");
    expect(Tok::LParen, "before the outputs");
    n.outputs = params(Tok::RParen);
    expect(Tok::RParen, "to close the outputs");
    accept(Tok::Semi);
    pending_contract_.reset();
    if (at_contract_open()) pending_contract_ = contract_block();
    // A Lustre header (`returns`) with no `var`, `let` or statement before the next
    // declaration declares an imported node (JKind and Lustre V6 write a body-less
    // `function` so). rml's `->` header with no equation stays a node with an empty body.
    // (With static parameters it is a generic node: Lustre imports none.)
    bool header_only = (import_declared || (n.lustre_style && n.statics.empty())) && (at(Tok::Eof) || at_decl_start()) &&
                       !(at(Tok::KwConst) && local_consts_ahead());
    // An imported node may have a body of assumptions, properties and the locals they read:
    // its contract (syntax/contracts.hpp), as rml prints it.
    bool specified = import_declared && (at(Tok::KwVar) || at(Tok::KwLet));
    if (import_declared && !header_only && !specified) {
      d_.error("syntax.unsupported", n.keyword_span,
               "an imported node ('" + n.import_keyword + "') is declared without a body; end the declaration after its outputs");
      throw ParseAbort{};
    }
    if (header_only) {
      n.imported = true;
      if (!n.statics.empty()) {
        d_.error("syntax.unsupported", n.name_span, "an imported node has no static parameters");
        throw ParseAbort{};
      }
      return n;
    }
    // Lustre's precedence of `when` in a Lustre node's body (sampled()).
    struct LustreWhen {
      bool &flag;
      bool kept;
      ~LustreWhen() { flag = kept; }
    } lustre_when{lustre_when_, lustre_when_};
    lustre_when_ = n.lustre_style;
    std::vector<ConstDecl> local_consts;  // Kind 2's `const c: t = e;` among a node's sections
    while (at(Tok::KwVar) || (at(Tok::KwConst) && local_consts_ahead())) {  // several `var` sections
      if (accept(Tok::KwConst)) {
        do {
          ConstDecl c;
          c.name_span = cur().span;
          c.name = expect_ident("a constant name");
          if (accept(Tok::Colon)) c.type = type();
          if (!accept(Tok::Eq)) {
            d_.error("syntax.unsupported", c.name_span,
                     "a node's constant without a value ('" + c.name + "') is not read by rml: declare it outside the node");
            throw ParseAbort{};
          }
          c.value = expr();
          expect(Tok::Semi, "after the constant");
          local_consts.push_back(std::move(c));
        } while (at_name() && (peek(1).kind == Tok::Colon || peek(1).kind == Tok::Eq));
        continue;
      }
      take();
      do {
        var_decl_group(n.locals);
      } while (at_name() && looks_like_decl());
    }
    struct Body {  // the node's own equations, where a type ascription adds a local
      std::vector<Equation> *&cur, *was;
      ~Body() { cur = was; }
    } body{current_equations_, current_equations_};
    current_equations_ = &n.equations;
    if (accept(Tok::KwLet)) {
      n.has_let = true;
      while (!at(Tok::KwTel) && !at(Tok::Eof) && !at_decl_start() && !d_.saturated())
        statement_recovering(n);
      expect(Tok::KwTel, "to end the node body");
      if (!accept(Tok::Semi)) accept(Tok::Dot);  // `tel;` and Lustre V4's `tel.`
    } else {
      while (!at(Tok::Eof) && !at_decl_start() && !d_.saturated()) {
        if (at(Tok::KwTel)) {
          d_.error("parse.expected", cur().span, "'tel' without a matching 'let'");
          take();
          accept(Tok::Semi);
          continue;
        }
        statement_recovering(n);
      }
    }
    if (!local_consts.empty()) node_constants(n, std::move(local_consts));
    for (auto &[v, eq] : ascribed_) {
      if (v.type && v.type->kind == TypeSyntax::Named) ascribed_named_.push_back({n.name, v.name, v.type->name, v.span});
      n.locals.push_back(std::move(v)), n.equations.push_back(std::move(eq));
    }
    for (auto &a : ascribed_checks_) n.assumptions.push_back(std::move(a));
    ascribed_.clear(), ascribed_checks_.clear();
    if (specified)
      for (auto &eq : n.equations)
        for (auto &l : eq.lhs)
          for (auto &o : n.outputs)
            if (l.name == o.name)
              d_.error("syntax.unsupported", l.span,
                       "an imported node's outputs come from outside: its body holds assumptions, properties and the locals "
                       "they read, not an equation of its output '" + o.name + "'");
    return n;
  }

  // Whether the `const` at the cursor opens a node's constants (Kind 2): a `var` or `let`
  // comes before the next declaration. After a header alone it is a global constant.
  bool local_consts_ahead() const {
    for (size_t k = pos_ + 1; k < toks_.size(); ++k) {
      Tok t = toks_[k].kind;
      // (a body's `let` ends a section, after its `;`; a `let x = e in e` is an expression)
      if ((t == Tok::KwLet && toks_[k - 1].kind == Tok::Semi) || t == Tok::KwVar) return true;
      if (t == Tok::KwNode || t == Tok::KwFunction || t == Tok::KwFun || t == Tok::KwType || t == Tok::KwTel || t == Tok::Eof)
        return false;
    }
    return false;
  }
  // A node's constants: each is its value wherever the node reads it (its equations,
  // assumptions and properties, its locals' array sizes), as a global constant would be;
  // one with a declared type is also a local of that type defined by its value, so that
  // the type's range or refinement is checked as a local's (a property of the node).
  void node_constants(NodeDecl &n, std::vector<ConstDecl> consts) {
    std::map<std::string, ExprPtr> value;
    auto subst = [&](ExprPtr &e) { substitute_vars(e, value, false); };
    std::function<void(TypeSyntax &)> subst_type = [&](TypeSyntax &t) {
      for (auto &d : t.dims)
        if (d.expr) subst(d.expr);
      for (auto *b : {&t.range_lo, &t.range_hi})
        if (*b) subst(*b);
      for (auto &e : t.elem) subst_type(e);
    };
    for (auto &c : consts) {
      subst(c.value);  // an earlier constant of the node
      for (auto *vs : {&n.inputs, &n.outputs, &n.locals})
        for (auto &v : *vs)
          if (v.name == c.name) d_.error("name.duplicate", c.name_span, "'" + c.name + "' is already declared in this node");
      if (c.type) {
        subst_type(*c.type);
        VarDecl v;
        v.name = c.name;
        v.span = c.name_span;
        v.type = c.type->clone();
        n.locals.push_back(std::move(v));
        Equation eq;
        eq.lhs.push_back(LhsItem{c.name, c.name_span});
        eq.rhs = c.value->clone();
        eq.span = c.name_span;
        n.equations.push_back(std::move(eq));
      }
      value[c.name] = std::move(c.value);
    }
    for (auto &eq : n.equations) subst(eq.rhs);
    for (auto &a : n.assumptions) subst(a.cond);
    for (auto &r : n.resets) subst(r.cond);
    for (auto &v : n.locals)
      if (v.type) subst_type(*v.type);
  }

  void add_node(Program &p, NodeDecl n) {
    p.decls.emplace_back(std::move(n));
    if (pending_contract_) contract_bodies_[p.decls.size() - 1] = std::move(*pending_contract_);
    pending_contract_.reset();
  }

  // ---- Kind 2's contracts (syntax/contracts.hpp) ----
  // `con` (the lexer's reading of `(*@contract` too) opens an inline contract: a name
  // elsewhere, so only when an item or `noc` follows.
  bool at_word(size_t k, const char *w) const { return peek(k).kind == Tok::Ident && peek(k).text == w; }
  bool at_contract_item(size_t k) const {
    if (peek(k).kind == Tok::KwVar || peek(k).kind == Tok::KwConst) return true;
    for (const char *w : {"assume", "guarantee", "mode", "import", "weakly"})
      if (at_word(k, w)) return true;
    return false;
  }
  bool at_contract_open() const {
    // The lexer's `con` for `(*@contract` spans the opener: always a contract.
    bool opener = at_word(0, "con") && cur().span.end - cur().span.begin > 3;
    return at_word(0, "con") && (opener || at_contract_item(1) || at_word(1, "noc"));
  }
  ContractBody contract_block() {
    ContractBody body;
    body.span = take().span;
    contract_items(body, [&] { return at_word(0, "noc"); });
    if (!at_word(0, "noc")) error_expected("'noc' (or '*)') to end the contract");
    take();
    return body;
  }
  template <class End>
  void contract_items(ContractBody &body, End end) {
    struct Flag {
      bool &f;
      ~Flag() { f = false; }
    } flag{in_contract_};
    in_contract_ = true;
    while (!at(Tok::Eof) && !end() && !d_.saturated()) {
      if (!at_contract_item(0)) {
        d_.error("parse.expected", cur().span,
                 "expected a contract item ('var', 'const', 'assume', 'guarantee', 'mode' or 'import'), found " + describe(cur()));
        while (!at(Tok::Eof) && !end() && !at_contract_item(0)) take();
        continue;
      }
      try {
        body.items.push_back(contract_item());
      } catch (ParseAbort &) {
        while (!at(Tok::Eof) && !at(Tok::Semi) && !end()) take();
        accept(Tok::Semi);
      }
    }
  }
  ContractItem contract_item() {
    ContractItem it;
    Span b = cur().span;
    if (at_word(0, "weakly")) {  // matters to Kind 2's cut-set analyses only
      take();
      if (!at_word(0, "assume") && !at_word(0, "guarantee")) error_expected("'assume' or 'guarantee' after 'weakly'");
    }
    auto named = [&](std::string &name, Span &span) {
      if (!at(Tok::String)) return;
      Token t = take();
      if (t.text.empty())
        d_.error("name.empty", t.span, "a contract item's name cannot be empty: write a name between the quotes, or leave the quotes out");
      name = t.text;
      span = t.span;
    };
    if (at_word(0, "assume") || at_word(0, "guarantee")) {
      it.kind = cur().text == "assume" ? ContractItem::Assume : ContractItem::Guarantee;
      take();
      named(it.name, it.name_span);
      it.expr = expr();
      expect(Tok::Semi, it.kind == ContractItem::Assume ? "after the assumption" : "after the guarantee");
    } else if (at(Tok::KwVar) || at(Tok::KwConst)) {
      it.kind = take().kind == Tok::KwVar ? ContractItem::Ghost : ContractItem::Const;
      it.name_span = cur().span;
      it.name = expect_name(it.kind == ContractItem::Ghost ? "a ghost variable's name" : "a constant's name");
      if (accept(Tok::Colon)) it.type = type();
      else if (it.kind == ContractItem::Ghost) error_expected("':' and the ghost variable's type");
      expect(Tok::Eq, it.kind == ContractItem::Ghost ? "before the ghost variable's value" : "before the constant's value");
      it.expr = expr();
      expect(Tok::Semi, "after the definition");
    } else if (at_word(0, "mode")) {
      it.kind = ContractItem::Mode;
      take();
      it.name_span = cur().span;
      it.name = expect_ident("a mode name");
      expect(Tok::LParen, "to open the mode's requires and ensures");
      while (at_word(0, "require") || at_word(0, "ensure")) {
        bool req = take().text == "require";
        ContractItem::Clause c;
        c.span = cur().span;
        named(c.name, c.span);
        c.cond = expr();
        if (c.name.empty()) c.span = c.cond->span;
        expect(Tok::Semi, req ? "after the require" : "after the ensure");
        (req ? it.requires_ : it.ensures).push_back(std::move(c));
      }
      expect(Tok::RParen, "to close the mode (after its requires and ensures)");
      accept(Tok::Semi);
    } else {  // import
      it.kind = ContractItem::Import;
      take();
      it.name_span = cur().span;
      it.name = expect_ident("a contract name");
      if (at(Tok::Lt) || at(Tok::Ident)) {
        d_.error("syntax.unsupported", cur().span, "type arguments of an imported contract are not read by rml");
        throw ParseAbort{};
      }
      it.args = call_args();
      expect(Tok::KwReturns, "after the imported contract's inputs");
      expect(Tok::LParen, "before the imported contract's outputs");
      if (!at(Tok::RParen)) {
        do {
          LhsItem l;
          l.span = cur().span;
          l.name = expect_name("the name of a variable the imported contract's output is");
          it.returns.push_back(std::move(l));
        } while (accept(Tok::Comma));
      }
      expect(Tok::RParen, "to close the imported contract's outputs");
      expect(Tok::Semi, "after the import");
    }
    it.span = from(b);
    return it;
  }
  // `contract C (x: int) returns (y: int); let items tel`
  void contract_decl() {
    take();  // contract
    ContractDecl c;
    c.name_span = cur().span;
    c.name = expect_ident("a contract name");
    if (at(Tok::Lt)) {
      d_.error("syntax.unsupported", cur().span, "type parameters of a contract are not read by rml");
      throw ParseAbort{};
    }
    expect(Tok::LParen, "after the contract's name");
    c.inputs = params(Tok::RParen);
    expect(Tok::RParen, "to close the contract's inputs");
    expect(Tok::KwReturns, "after the contract's inputs");
    expect(Tok::LParen, "before the contract's outputs");
    c.outputs = params(Tok::RParen);
    expect(Tok::RParen, "to close the contract's outputs");
    accept(Tok::Semi);
    c.body.span = c.name_span;
    expect(Tok::KwLet, "to open the contract's items");
    contract_items(c.body, [&] { return at(Tok::KwTel); });
    expect(Tok::KwTel, "to end the contract");
    if (!accept(Tok::Semi)) accept(Tok::Dot);
    if (auto it = contract_decls_.find(c.name); it != contract_decls_.end()) {
      d_.error("name.duplicate", c.name_span, "contract '" + c.name + "' is declared twice");
      d_.note(it->second.name_span, "first declared here");
      return;
    }
    std::string name = c.name;
    contract_decls_.emplace(std::move(name), std::move(c));
  }

  // After `var`, a declaration `a, b : t;` and an equation `a, b = e;` share a prefix.
  bool looks_like_decl() const {
    size_t k = 0;
    auto name = [&](size_t j) { return peek(j).kind == Tok::Ident || peek(j).kind == Tok::KwIn; };
    while (name(k) && peek(k + 1).kind == Tok::Comma) k += 2;
    return name(k) && peek(k + 1).kind == Tok::Colon;
  }

  // Kind 2's `forall (x, y: T; z: U | G) e` (`exists`): syntax/quantifiers.hpp.
  bool quantifier_ahead() const {
    size_t k = 2;
    while (peek(k).kind == Tok::Ident && peek(k + 1).kind == Tok::Comma) k += 2;
    return peek(k).kind == Tok::Ident && peek(k + 1).kind == Tok::Colon;
  }
  ExprPtr quantifier(Span b) {
    Quantifier q;
    q.forall = take().text == "forall";
    take();  // (
    do {
      size_t first = q.vars.size();
      do {
        Span s = cur().span;
        std::string n = expect_name("a quantified variable");
        q.vars.push_back({std::move(n), s, nullptr});
      } while (accept(Tok::Comma));
      expect(Tok::Colon, "before the quantified variables' type");
      auto t = std::make_shared<const TypeSyntax>(type());
      for (size_t k = first; k < q.vars.size(); ++k) q.vars[k].type = t;
    } while (accept(Tok::Semi) && !at(Tok::RParen) && !at(Tok::Bar));  // (Kind 2 allows a last `;`)
    std::vector<ExprPtr> a;
    if (accept(Tok::Bar)) q.guarded = true, a.push_back(expr());
    expect(Tok::RParen, "to close the quantified variables");
    a.push_back(expr());
    q.span = from(b);
    return table_call(kQuantifierCall, std::move(a), quantifiers_, std::move(q));
  }
  // A call of `name` standing for the construct `item` (whose span it takes), kept in
  // `table` for the expansion once the file is read: the call's ival is its index.
  template <class T>
  ExprPtr table_call(const char *name, std::vector<ExprPtr> args, std::vector<T> &table, T item) {
    auto e = node(ExprKind::Call, item.span, std::move(args));
    e->name = name;
    e->ival = static_cast<int64_t>(table.size());
    table.push_back(std::move(item));
    return e;
  }

  // `a, b: t` (a `var` group, record fields): the names, each with its own copy of t.
  std::vector<VarDecl> typed_names(const char *what, const char *before_type) {
    std::vector<VarDecl> group;
    do {
      VarDecl v;
      v.span = cur().span;
      v.name = expect_name(what);
      group.push_back(std::move(v));
    } while (accept(Tok::Comma));
    expect(Tok::Colon, before_type);
    TypeSyntax t = type();
    short_refinement(t);
    for (auto &v : group) v.type = t.clone();
    return group;
  }
  // Kind 2's `x: T | P` on a declaration: P, reading x, refines T there.
  void short_refinement(TypeSyntax &t) {
    if (!at(Tok::Bar)) return;
    take();
    auto r = std::make_shared<Refinement>();
    r->span = cur().span;
    r->pred = expr();
    t.refinements.push_back(std::move(r));
    refinements_seen_ = true;
  }

  void var_decl_group(std::vector<VarDecl> &out) {
    std::vector<VarDecl> group = typed_names("a variable name", "before the variable's type");
    auto ck = clock_ann();
    for (auto &v : group) {
      v.clock = ck;
      out.push_back(std::move(v));
    }
    expect(Tok::Semi, "after the variable declaration");
  }

  // Heptagon writes a declared clock `x: int on C(k)` (and `on c`, `onot c`): `on` is an
  // identifier elsewhere, a clock only here, before a name.
  bool at_heptagon_on() const {
    return at(Tok::Ident) && (cur().text == "on" || cur().text == "onot") &&
           (peek(1).kind == Tok::Ident || peek(1).kind == Tok::KwIn || peek(1).kind == Tok::KwNot);
  }
  std::vector<ClockSyntax> clock_ann() {
    std::vector<ClockSyntax> ck;
    while (at(Tok::KwWhen) || at(Tok::KwWhenot) || at_heptagon_on()) {
      Span b = cur().span;
      Token kw = take();
      bool pos = kw.kind == Tok::KwWhen || (kw.kind == Tok::Ident && kw.text == "on");
      if (pos && accept(Tok::KwNot)) pos = false;
      ClockSyntax c;
      c.positive = pos;
      c.span = cur().span;
      c.var = expect_name("a clock variable");
      if (accept(Tok::LParen)) {  // `when C(k)`: a clock on the value C of the enumeration k
        c.ctor = std::move(c.var);
        c.var = expect_name("the enumeration's variable");
        expect(Tok::RParen, "to close the clock 'C(k)'");
      }
      c.span = from(b);
      ck.push_back(std::move(c));
    }
    return ck;
  }

  // Items separated by ',' or ';'; untyped names take the next type (Lustre groups).
  std::vector<VarDecl> params(Tok closer) {
    std::vector<VarDecl> out;
    size_t pending = 0;  // index of the first name still waiting for a type
    if (at(closer)) return out;
    for (;;) {
      VarDecl v;
      if (accept(Tok::KwConst)) v.is_const = true;
      v.span = cur().span;
      v.name = expect_name("a parameter name");
      if (accept(Tok::Colon)) {
        TypeSyntax t = type();
        short_refinement(t);
        auto ck = clock_ann();
        for (size_t k = pending; k < out.size(); ++k) {
          out[k].type = t.clone();
          out[k].clock = ck;
        }
        v.type = std::move(t);
        v.clock = std::move(ck);
        out.push_back(std::move(v));
        pending = out.size();
      } else {
        out.push_back(std::move(v));
      }
      if (accept(Tok::Comma)) continue;
      if (accept(Tok::Semi)) {
        pending = out.size();  // ';' closes a Lustre group: earlier untyped names stay untyped
        if (at(closer)) break;
        continue;
      }
      break;
    }
    return out;
  }

  TypeSyntax type() {
    TypeSyntax t;
    Span b = cur().span;
    switch (cur().kind) {
      case Tok::KwInt: t.scalar = Scalar::Int; break;
      case Tok::KwBool: t.scalar = Scalar::Bool; break;
      case Tok::KwReal:
      case Tok::KwFloat: t.scalar = Scalar::Real; break;
      case Tok::KwMachine:
        t.scalar = Scalar::Int;
        t.machine = *machine_type();
        t.span = from(b);
        return array_suffix(std::move(t));
      case Tok::Ident:
        if (std::find(type_params_.begin(), type_params_.end(), cur().text) != type_params_.end()) {
          t.kind = TypeSyntax::TyVar;  // a type parameter of the node: its type variable
          t.name = cur().text;         // printed as written
          t.tyvar = "'" + take().text;
          t.span = b;
          return t;
        }
        if (auto m = machine_type()) {  // Kind 2's machine integers sint<N>, uint<N>
          t.scalar = Scalar::Int;
          t.machine = *m;
          t.span = from(b);
          return array_suffix(std::move(t));
        }
        if (cur().text == "float64") {  // Vélus's name of the 64-bit float: rml's real (float32 is not one)
          t.scalar = Scalar::Real;
          break;
        }
        if (cur().text == "shape") {  // `shape` is a type name only here; elsewhere a plain name
          take();
          t.kind = TypeSyntax::Shape;
          t.span = b;
          return t;
        }
        if (cur().text == "subrange" && peek(1).kind == Tok::LBracket) {  // subrange [lo, hi] of int
          take();
          take();
          t.scalar = Scalar::Int;
          t.subrange = true;
          auto bound = [&]() -> ExprPtr {  // `*`: unbounded on that side (Kind 2)
            if (accept(Tok::Star)) return nullptr;
            return expr();
          };
          t.range_lo = bound();
          expect(Tok::Comma, "between the bounds of the subrange");
          t.range_hi = bound();
          expect(Tok::RBracket, "to close the subrange's bounds");
          if (!(at(Tok::Ident) && cur().text == "of")) error_expected("'of int' after the subrange's bounds");
          take();
          expect(Tok::KwInt, "after 'of' (a subrange is of int)");
          t.span = from(b);
          return array_suffix(std::move(t));
        }
        if (cur().text == "subtype" && peek(1).kind == Tok::LBrace) {  // Kind 2: subtype { v: T | P }
          take();
          take();
          auto r = std::make_shared<Refinement>();
          r->span = cur().span;
          r->var = expect_name("the refined value's name");
          expect(Tok::Colon, "before the refined type");
          TypeSyntax base = type();
          expect(Tok::Bar, "between the refined type and its predicate");
          r->pred = expr();
          expect(Tok::RBrace, "to close the refinement type");
          base.refinements.push_back(std::move(r));
          base.span = from(b);
          refinements_seen_ = true;
          return array_suffix(std::move(base));
        }
        t.kind = TypeSyntax::Named;  // a declared type; resolved by the front end (sema/type_decls)
        t.name = take().text;
        if (at(Tok::Lt) && !at_double(Tok::Lt)) {  // Kind 2's instance of a datatype `Option<int>`
          if (t.name == "map" || t.name == "set") {
            d_.error("syntax.unsupported", b, "Kind 2's " + t.name + "s ('" + t.name + "<...>') are not read by rml");
            throw ParseAbort{};
          }
          take();
          do t.elem.push_back(type());  // syntax/datatypes.cpp resolves them
          while (accept(Tok::Comma));
          expect(Tok::Gt, "to close the type arguments");
        }
        t.span = from(b);
        return array_suffix(std::move(t));
      case Tok::LBracket:  // Kind 2's group type [int, bool]
        take();
        t.kind = TypeSyntax::Group;
        do t.elem.push_back(type());
        while (accept(Tok::Comma));
        expect(Tok::RBracket, "to close the group type");
        t.span = from(b);
        return array_suffix(std::move(t));
      case Tok::TyVar:
        t.kind = TypeSyntax::TyVar;
        t.tyvar = take().text;
        t.span = b;
        return t;
      default: error_expected("a type ('int', 'bool', 'real', a type name or a type variable)");
    }
    take();
    if (accept(Tok::LBracket)) {
      if (!at(Tok::RBracket)) {
        do {
          DimSyntax dim;
          dim.span = cur().span;
          if (accept(Tok::Star)) {
            dim.splice_var = true;
            dim.var = expect_ident("a shape variable name after '*'");
          } else {
            dim.expr = expr();
          }
          dim.span = from(dim.span);
          t.dims.push_back(std::move(dim));
        } while (accept(Tok::Comma));
      }
      expect(Tok::RBracket, "to close the dimensions");
    }
    t.span = from(b);
    return array_suffix(std::move(t));
  }
  // Lustre arrays `T^n`, `T^n^m` (an array of m arrays of n): the size is a prefix
  // expression, so `int^N^M` does not read `N^M` as an expression (grammar.md §3).
  TypeSyntax array_suffix(TypeSyntax t) {
    while (at(Tok::Caret)) {
      take();
      TypeSyntax a;
      a.kind = TypeSyntax::Array;
      DimSyntax n;
      n.span = cur().span;
      n.expr = prefix();
      n.span = from(n.span);
      a.dims.push_back(std::move(n));
      a.span = from(t.span);
      a.elem.push_back(std::move(t));
      t = std::move(a);
    }
    return t;
  }

  // `type T = ...;` and Lustre V6's sections `type A = ...; B = ...;` (each name followed
  // by `=` continues the section).
  void type_decls(Program &p) {
    take();  // type
    do {
      p.decls.emplace_back(type_decl());
    } while (at(Tok::Ident) && peek(1).kind == Tok::Eq);
  }
  TypeDecl type_decl() {
    TypeDecl t;
    t.name_span = cur().span;
    t.name = expect_ident("a type name");
    if (at(Tok::Semi)) {
      // An abstract type: an int of its own name. Sound for what Kind 2 lets a program do
      // with its values (compare them, pass them on): a formula over an uninterpreted sort
      // with equality alone that some finite model falsifies, the ints falsify too.
      t.is_abstract = true;
      TypeSyntax i;
      i.kind = TypeSyntax::Tensor;
      i.scalar = Scalar::Int;
      t.alias = std::move(i);
      take();  // ;
      return t;
    }
    expect(Tok::Eq, "after the type name (or ';' for an abstract type)");
    auto ctor = [&] {
      t.ctor_spans.push_back(cur().span);
      t.ctors.push_back(expect_ident("a constructor name"));
      enum_ctors_.insert(t.ctors.back());
    };
    if (at(Tok::Ident) && peek(1).kind == Tok::Bar) {  // Heptagon / Vélus: A | B | C
      t.is_enum = t.bar_syntax = true;
      ctor();
      while (accept(Tok::Bar)) ctor();
    } else if (at(Tok::Ident) && cur().text == "enum" && peek(1).kind == Tok::LBrace) {  // Lustre V6, Kind 2
      take();
      t.is_enum = true;
      expect(Tok::LBrace, "after 'enum'");
      ctor();
      while (accept(Tok::Comma)) ctor();
      expect(Tok::RBrace, "to close the enumeration");
    } else if (at(Tok::LBrace) || (at(Tok::Ident) && cur().text == "struct" && peek(1).kind == Tok::LBrace)) {
      if (!at(Tok::LBrace)) take();  // struct
      take();                        // {
      t.is_record = true;
      while (!at(Tok::RBrace)) {
        for (auto &v : typed_names("a field name", "before the field's type")) t.fields.push_back(std::move(v));
        if (!accept(Tok::Semi) && !accept(Tok::Comma)) break;
      }
      expect(Tok::RBrace, "to close the record type");
    } else {
      t.alias = type();
    }
    if (!accept(Tok::Semi) && !at_decl_start() && !at(Tok::Eof) && !(at(Tok::Ident) && peek(1).kind == Tok::Eq))
      error_expected("';' after the type declaration");
    return t;
  }

  // Kind 2's `datatype D = C1 (f: t, g: u) | C2;` (also `datatype D, E = ...;` and a
  // leading `|`): syntax/datatypes.hpp.
  void datatype_decl() {
    Span b = take().span;  // datatype
    std::vector<std::pair<std::string, Span>> names;
    do {
      Span s = cur().span;
      names.emplace_back(expect_ident("a datatype name"), s);
    } while (accept(Tok::Comma));
    DatatypeSyntax dt;
    if (accept(Tok::Lt)) {
      do {
        dt.param_spans.push_back(cur().span);
        dt.params.push_back(expect_ident("a type parameter"));
      } while (accept(Tok::Comma) || accept(Tok::Semi));
      expect(Tok::Gt, "to close the type parameters");
    }
    expect(Tok::Eq, "after the datatype's name");
    accept(Tok::Bar);
    do {
      DatatypeCtor c;
      c.span = cur().span;
      c.name = expect_ident("a constructor name");
      if (accept(Tok::LParen)) {
        do {
          VarDecl f;
          f.span = cur().span;
          f.name = expect_ident("a field name");
          expect(Tok::Colon, "after the field name");
          f.type = type();
          c.fields.push_back(std::move(f));
        } while (accept(Tok::Comma));
        expect(Tok::RParen, "to close the constructor's fields");
      }
      dt.ctors.push_back(std::move(c));
    } while (accept(Tok::Bar));
    expect(Tok::Semi, "after the datatype declaration");
    dt.span = from(b);
    for (auto &[n, s] : names) {  // `datatype A, B = ...`: one declaration each
      DatatypeSyntax copy = dt.clone();
      copy.name = n;
      copy.name_span = s;
      datatypes_.push_back(std::move(copy));
    }
  }
  PatternSyntax match_pattern() {
    PatternSyntax p;
    Span b = cur().span;
    p.name = expect_ident("a pattern (a constructor, a name or '_')");
    if (accept(Tok::LParen)) {
      p.parens = true;
      do p.subs.push_back(match_pattern());
      while (accept(Tok::Comma));
      expect(Tok::RParen, "to close the pattern");
    }
    p.span = from(b);
    return p;
  }
  // `match e with | p1 : b1 | ... end` from `match`: a call of kMatchCall (syntax/datatypes.hpp).
  ExprPtr match_expr(Span b) {
    take();  // match
    std::vector<ExprPtr> a;
    a.push_back(expr());
    if (!at_word(0, "with")) error_expected("'with' after the matched value");
    take();
    MatchSyntax m;
    while (accept(Tok::Bar)) {
      m.arms.push_back(match_pattern());
      expect(Tok::Colon, "after the pattern");
      a.push_back(expr());
    }
    if (m.arms.empty()) error_expected("'|' and the match's first arm");
    if (!at_word(0, "end")) error_expected("'|' and another arm, or 'end' to close the match");
    take();
    m.span = from(b);
    return table_call(kMatchCall, std::move(a), matches_, std::move(m));
  }

  FunDecl fun_decl() {
    FunDecl f;
    take();
    f.name_span = cur().span;
    f.name = expect_ident("a function name");
    expect(Tok::LParen, "after the function name");
    f.params = params(Tok::RParen);
    expect(Tok::RParen, "to close the parameters");
    expect(Tok::Colon, "before the result type");
    f.result = type();
    expect(Tok::Eq, "before the function body");
    f.body = expr();
    expect(Tok::Semi, "after the function body");
    return f;
  }

  // `const c = e;`, `const c: t = e;`, and Lustre's free constants `const c: t;` and
  // `const a, b: t;` (a value fixed for the whole run, not given: sema/expand_imported).
  void const_decls(Program &p) {
    take();
    std::vector<ConstDecl> group;
    do {
      ConstDecl c;
      c.name_span = cur().span;
      c.name = expect_ident("a constant name");
      group.push_back(std::move(c));
    } while (accept(Tok::Comma));
    std::optional<TypeSyntax> t;
    if (accept(Tok::Colon)) t = type();
    else if (group.size() > 1) error_expected("':' and a type after the names of free constants");
    if (group.size() == 1 && (t ? at(Tok::Eq) : true)) {
      expect(Tok::Eq, "in the constant declaration");
      group[0].value = expr();
    } else if (!t) {
      error_expected("':' and a type in the declaration of a free constant");
    }
    for (auto &c : group) {
      if (t) c.type = t->clone();
      p.decls.emplace_back(std::move(c));
    }
    if (!accept(Tok::Semi) && !at_decl_start() && !at(Tok::Eof))
      error_expected("';' after the constant declaration");
  }

  // `assume always ...;` starts with contextual words, so `assume` stays a usable name.
  bool at_assumption() const {
    if (cur().kind != Tok::Ident || cur().text != "assume") return false;
    size_t k = peek(1).kind == Tok::String ? 2 : 1;  // `assume "A1" always e;`: a named one
    return peek(k).kind == Tok::Ident && peek(k).text == "always";
  }
  Assumption assumption() {
    Span b = take().span;  // assume
    Token name;
    if (at(Tok::String)) name = take();
    Assumption a = assumption_rest(b, true);
    a.name = name.text;
    a.name_span = name.span;
    return a;
  }
  // From `always` on; the `;` is optional at the end of a lone assumption (--assume).
  Assumption assumption_rest(Span b, bool need_semi) {
    Assumption a;
    take();  // always
    if (cur().kind == Tok::Ident && cur().text == "eventually") {
      take();
      a.eventually = true;
    }
    a.cond = expr();
    if (cur().kind == Tok::Ident && cur().text == "within") {
      if (!a.eventually) {
        d_.error("parse.expected", cur().span, "'within' bounds 'always eventually'; 'always' needs no bound");
        throw ParseAbort{};
      }
      take();
      if (!at(Tok::Int)) error_expected("a number of cycles after 'within'");
      a.within = take().ival;
    }
    if (need_semi || !at(Tok::Eof)) expect(Tok::Semi, "after the assumption");
    a.span = from(b);
    return a;
  }

 public:
  // `[assume] always [eventually] e [within N] [;]` and nothing else (rml-check --assume).
  std::optional<Assumption> lone_assumption() {
    if (lex_failed_) return std::nullopt;
    try {
      Span b = cur().span;
      if (cur().kind == Tok::Ident && cur().text == "assume") take();
      if (!(cur().kind == Tok::Ident && cur().text == "always"))
        error_expected("'always' (an assumption is 'always e' or 'always eventually e within N')");
      Assumption a = assumption_rest(b, false);
      if (!at(Tok::Eof)) error_expected("the end of the assumption");
      return a;
    } catch (ParseAbort &) {
    } catch (LimitAbort &) {
    }
    return std::nullopt;
  }

 private:
  // `check e;` / `guarantee e;` (a user property): contextual words, so `check = ...`
  // stays an equation.
  bool at_property() const {
    if (cur().kind != Tok::Ident || (cur().text != "check" && cur().text != "guarantee")) return false;
    Tok next = peek(1).kind;
    return next != Tok::Eq && next != Tok::Comma && next != Tok::Colon && next != Tok::Semi;
  }
  // `check ["name"] e;`: a name is a non-empty string (Kind 2's `check "P1" e;`, and its
  // pragmas, whose name the lexer gives as the string after `check`).
  Assumption property() {
    Token kw = take();
    Assumption a;
    a.property = true;
    a.keyword = kw.text;
    if (at(Tok::String)) {
      Token name = take();
      if (name.text.empty())
        d_.error("name.empty", name.span,
                 "a property's name cannot be empty: write a name between the quotes, or leave the quotes out");
      a.name = name.text;
      a.name_span = name.span;
    }
    a.cond = expr();
    a.span = Span{kw.span.file, kw.span.begin, a.cond->span.end};
    expect(Tok::Semi, "after the property");
    return a;
  }
  // `assert e;` (Lustre): contextual, so `assert = ...` stays an equation.
  bool at_assert() const {
    if (cur().kind != Tok::Ident || cur().text != "assert") return false;
    Tok next = peek(1).kind;
    return next != Tok::Eq && next != Tok::Comma && next != Tok::Colon && next != Tok::Semi;
  }
  Assumption assertion() {
    Token kw = take();
    Assumption a;
    a.keyword = "assert";
    a.cond = expr();
    a.span = Span{kw.span.file, kw.span.begin, a.cond->span.end};
    expect(Tok::Semi, "after the assertion");
    return a;
  }
  void statement_recovering(NodeDecl &n) {
    if (at_property() || at_assert()) {
      try {
        n.assumptions.push_back(at_assert() ? assertion() : property());
        const Assumption &a = n.assumptions.back();
        if (!a.name.empty())  // reports and counterexample files call a property by its name
          for (size_t k = 0; k + 1 < n.assumptions.size(); ++k)
            if (n.assumptions[k].property && n.assumptions[k].name == a.name) {
              d_.error("name.duplicate", a.name_span,
                       "two properties of '" + n.name + "' are named \"" + a.name + "\": a property's name must be unique in its node");
              d_.note(n.assumptions[k].name_span, "the first property named so");
              break;
            }
      } catch (ParseAbort &) {
        while (!at(Tok::Eof) && !at(Tok::Semi) && !at(Tok::KwTel) && !at_decl_start()) take();
        accept(Tok::Semi);
      }
      return;
    }
    if (at_assumption()) {
      try {
        n.assumptions.push_back(assumption());
      } catch (ParseAbort &) {
        while (!at(Tok::Eof) && !at(Tok::Semi) && !at(Tok::KwTel) && !at_decl_start()) take();
        accept(Tok::Semi);
      }
      return;
    }
    if (at(Tok::Ident) && cur().text == "reset" && peek(1).kind != Tok::Eq && peek(1).kind != Tok::Comma) {
      reset_block(n);
      return;
    }
    if (at(Tok::KwIf) || at_frame() || at_lazy_block()) {
      statement_block(n);
      return;
    }
    equation_recovering(n.equations);
  }

  // ---- Kind 2's if statements and frame blocks (syntax/statement_blocks.hpp) ----
  // Contextual words: `frame (`, `fi`, `elsif` are names elsewhere (an equation starts
  // with a name followed by '=', ',' or '[').
  bool at_word(const char *w) const {
    if (!at(Tok::Ident) || cur().text != w) return false;
    Tok next = peek(1).kind;
    return next != Tok::Eq && next != Tok::Comma && next != Tok::LBracket;
  }
  bool at_frame() const { return at(Tok::Ident) && cur().text == "frame" && peek(1).kind == Tok::LParen; }
  bool at_lazy_block() const { return at(Tok::KwWhen) || (at_word("cond") && peek(1).kind == Tok::Bar); }
  std::set<std::string> &file_names() {
    if (!file_names_) {
      file_names_.emplace();
      for (auto &t : toks_)
        if (t.kind == Tok::Ident) file_names_->insert(t.text);
    }
    return *file_names_;
  }
  void statement_block(NodeDecl &n) {
    Span b = cur().span;
    try {
      std::vector<BlockStatement> body;
      if (at(Tok::KwIf) || at_lazy_block()) {
        BlockStatement s;
        s.nested = at(Tok::KwIf) ? if_statement() : lazy_block();
        body.push_back(std::move(s));
        statement_blocks_.push_back(from(b));
        expand_statements(n, std::move(body), nullptr, file_names(), d_);
        return;
      }
      FrameBlock f;
      take();
      expect(Tok::LParen, "after 'frame'");
      do {
        if (!at(Tok::Ident)) error_expected("a variable name in the frame's list");
        Token t = take();
        f.vars.push_back(LhsItem{t.text, t.span});
      } while (accept(Tok::Comma));
      expect(Tok::RParen, "to close the frame's variables");
      while (!at(Tok::KwLet) && !at(Tok::Eof) && !at(Tok::KwTel) && !at_decl_start()) {
        Equation init = equation();
        if (!init.index_vars.empty()) {
          d_.error("syntax.unsupported", init.span, "a definition by index in a frame block is not read by rml");
          continue;
        }
        f.inits.push_back(std::move(init));
      }
      expect(Tok::KwLet, "to open the frame block's body");
      struct InFrame {
        bool &flag;
        ~InFrame() { flag = false; }
      } in_frame{in_frame_body_};
      in_frame_body_ = true;
      while (!at(Tok::KwTel) && !at(Tok::Eof) && !at_decl_start() && !d_.saturated()) body.push_back(block_statement());
      expect(Tok::KwTel, "to close the frame block");
      accept(Tok::Semi);
      f.span = from(b);
      statement_blocks_.push_back(f.span);
      expand_statements(n, std::move(body), &f, file_names(), d_);
    } catch (ParseAbort &) {
      while (!at(Tok::Eof) && !at(Tok::KwTel) && !at_decl_start() && !at_word("fi") && !at_word("end")) take();
      if (at_word("fi") || at_word("end")) take();
      accept(Tok::Semi);
    }
  }
  // Kind 2's `when c then S [else S] end` and `cond | c: S ... [otherwise: S] end`: each
  // branch computed only where it is taken (IfStatement::lazy).
  std::unique_ptr<IfStatement> lazy_block() {
    auto s = std::make_unique<IfStatement>();
    s->lazy = true;
    Span b = cur().span;
    DepthGuard g(*this);
    if (at(Tok::KwWhen)) {
      take();
      s->conds.push_back(expr());
      expect(Tok::KwThen, "after the when block's condition");
      s->branches.push_back(branch_statements());
      if (accept(Tok::KwElse)) s->branches.push_back(branch_statements());
    } else {
      take();  // cond
      while (accept(Tok::Bar)) {
        s->conds.push_back(expr());
        expect(Tok::Colon, "after the cond branch's condition");
        s->branches.push_back(branch_statements());
      }
      if (at_word("otherwise")) {
        take();
        expect(Tok::Colon, "after 'otherwise'");
        s->branches.push_back(branch_statements());
      }
    }
    if (!at_word("end")) error_expected(std::string("'end' to close the ") + (s->conds.size() == 1 ? "when" : "cond") + " block");
    take();
    accept(Tok::Semi);
    s->span = from(b);
    return s;
  }
  // `if c then S [elsif c then S]* [else S] fi`.
  std::unique_ptr<IfStatement> if_statement() {
    auto s = std::make_unique<IfStatement>();
    Span b = take().span;
    DepthGuard g(*this);
    s->conds.push_back(expr());
    expect(Tok::KwThen, "after the if statement's condition");
    s->branches.push_back(branch_statements());
    while (at_word("elsif")) {
      take();
      s->conds.push_back(expr());
      expect(Tok::KwThen, "after the elsif's condition");
      s->branches.push_back(branch_statements());
    }
    if (accept(Tok::KwElse)) s->branches.push_back(branch_statements());
    if (!at_word("fi")) error_expected("'fi' to close the if statement");
    take();
    accept(Tok::Semi);
    s->span = from(b);
    return s;
  }
  std::vector<BlockStatement> branch_statements() {
    std::vector<BlockStatement> out;
    while (!at(Tok::KwElse) && !at_word("elsif") && !at_word("fi") && !at_word("end") && !at_word("otherwise") &&
           !at(Tok::Bar) && !at(Tok::Eof) && !at(Tok::KwTel) && !at_decl_start() && !d_.saturated())
      out.push_back(block_statement());
    return out;
  }
  BlockStatement block_statement() {
    BlockStatement s;
    if (at(Tok::KwIf) || at_lazy_block()) {
      s.nested = at(Tok::KwIf) ? if_statement() : lazy_block();
      return s;
    }
    if (at_property() || at_assert() || at_assumption() || at_frame() ||
        (at(Tok::Ident) && cur().text == "reset" && peek(1).kind != Tok::Eq && peek(1).kind != Tok::Comma)) {
      d_.error("syntax.unsupported", cur().span, "an if statement or a frame block holds equations and if statements only");
      throw ParseAbort{};
    }
    s.eq = equation();
    return s;
  }

  // Vélus / Heptagon `reset eq; ... every c;` (`reset` is a name elsewhere).
  void reset_block(NodeDecl &n) {
    ResetBlock blk;
    blk.span = take().span;
    int id = static_cast<int>(n.resets.size());
    size_t first = n.equations.size();
    struct Body {  // no type ascription here: its local would not be restarted with the block
      std::vector<Equation> *&cur, *was;
      ~Body() { cur = was; }
    } body{current_equations_, current_equations_};
    current_equations_ = nullptr;
    while (!at(Tok::KwEvery) && !at(Tok::KwTel) && !at(Tok::Eof) && !at_decl_start() && !d_.saturated()) {
      if (at_property() || at_assert() || at_assumption() || (at(Tok::Ident) && cur().text == "reset")) {
        d_.error("syntax.unsupported", cur().span, "a reset block holds equations only (no assertion, property or nested reset)");
        throw ParseAbort{};
      }
      equation_recovering(n.equations);
    }
    for (size_t k = first; k < n.equations.size(); ++k) n.equations[k].block = id;
    if (n.equations.size() == first) error_expected("an equation in the reset block");
    blk.every_span = cur().span;
    expect(Tok::KwEvery, "to end the reset block");
    blk.cond = expr();
    if (!accept(Tok::Semi) && !at(Tok::KwTel)) error_expected("';' after the reset block");
    n.resets.push_back(std::move(blk));
  }

  void equation_recovering(std::vector<Equation> &out) {
    struct Ascribing {  // a type ascription is read in an equation of the node (ascription())
      bool &on, was;
      ~Ascribing() { on = was; }
    } ascribing{ascribing_, ascribing_};
    ascribing_ = &out == current_equations_;
    try {
      out.push_back(equation());
    } catch (ParseAbort &) {
      // Skip to the end of the broken equation.
      while (!at(Tok::Eof) && !at(Tok::Semi) && !at(Tok::KwTel) && !at_decl_start()) take();
      accept(Tok::Semi);
    }
  }

  Equation equation() {
    Equation eq;
    Span b = cur().span;
    bool paren = accept(Tok::LParen);
    do {
      if (!at_name()) error_expected("a variable name or '_' on the left of an equation");
      Token t = take();
      eq.lhs.push_back(LhsItem{t.kind == Tok::KwIn ? std::string("in") : t.text, t.span});
    } while (accept(Tok::Comma));
    if (paren) expect(Tok::RParen, "to close the left-hand side");
    // Kind 2's definition of an array by its index variables: `A[i] = e`, `A[i][j] = e`.
    while (!paren && eq.lhs.size() == 1 && at(Tok::LBracket)) {
      take();
      if (!at(Tok::Ident) || peek(1).kind != Tok::RBracket) {
        d_.error("syntax.unsupported", cur().span,
                 "an array is defined by index variables ('" + eq.lhs[0].name +
                     "[i] = e', each a name); an equation of one element or a slice is not read");
        throw ParseAbort{};
      }
      eq.index_spans.push_back(cur().span);
      eq.index_vars.push_back(take().text);
      take();
    }
    expect(Tok::Eq, "after the left-hand side of the equation");
    eq.rhs = expr();
    if (at(Tok::KwTel) || at(Tok::KwEvery)) {  // Heptagon and Vélus let the last equation (of a block) go without ';'
      eq.span = from(b);
      return eq;
    }
    if (!at(Tok::Semi)) error_expected("';' to end the equation");
    take();
    eq.span = from(b);
    return eq;
  }

  // ---- expressions (grammar.md §5) ----
 public:
  ExprPtr expr() {
    DepthGuard g(*this);
    return arrow();
  }

 private:
  ExprPtr arrow() {
    auto l = fby();
    if (at(Tok::Arrow)) {
      Span os = take().span;
      DepthGuard g(*this);
      auto r = arrow();
      return binary(Op::Arrow, std::move(l), std::move(r), os);
    }
    return l;
  }
  ExprPtr fby() {
    auto l = implication();
    if (at(Tok::KwFby)) {
      Span os = take().span;
      DepthGuard g(*this);
      auto r = fby();
      return binary(Op::Fby, std::move(l), std::move(r), os);
    }
    return l;
  }
  ExprPtr implication() {  // Lustre's `a => b`, right associative, looser than `or`
    auto l = disj();
    if (at(Tok::FatArrow)) {
      Span os = take().span;
      DepthGuard g(*this);
      auto r = implication();
      return binary(Op::Implies, std::move(l), std::move(r), os);
    }
    return l;
  }
  ExprPtr disj() {
    auto l = conj();
    while (at(Tok::KwOr) || at(Tok::KwXor)) {
      Span os = cur().span;
      Op op = take().kind == Tok::KwOr ? Op::Or : Op::Xor;
      l = binary(op, std::move(l), conj(), os);
    }
    return l;
  }
  ExprPtr conj() {
    auto l = negation();
    while (at(Tok::KwAnd)) {
      Span os = take().span;
      l = binary(Op::And, std::move(l), negation(), os);
    }
    return l;
  }
  ExprPtr negation() {
    if (at(Tok::KwNot)) {
      Span b = take().span;
      DepthGuard g(*this);
      auto a = negation();
      auto e = unary(b, std::move(a), Op::Not);
      e->op_span = b;
      return e;
    }
    return comparison();
  }
  ExprPtr unary(Span op_span, ExprPtr a, Op op) {
    Span s = Span::cover(op_span, a->span);  // read the span before moving `a`
    return node(ExprKind::Unary, s, one(std::move(a)), op);
  }
  static std::vector<ExprPtr> one(ExprPtr a) {
    std::vector<ExprPtr> v;
    v.push_back(std::move(a));
    return v;
  }
  static Op cmp_op(Tok k) {
    switch (k) {
      case Tok::Eq: return Op::Eq;
      case Tok::Ne: return Op::Ne;
      case Tok::Lt: return Op::Lt;
      case Tok::Le: return Op::Le;
      case Tok::Gt: return Op::Gt;
      case Tok::Ge: return Op::Ge;
      default: return Op::None;
    }
  }
  ExprPtr comparison() {
    auto l = sampled_sum();
    Op op = cmp_op(cur().kind);
    if (op != Op::None) {
      Span os = take().span;
      l = binary(op, std::move(l), sampled_sum(), os);
      if (cmp_op(cur().kind) != Op::None) {
        d_.error("parse.expected", cur().span, "comparison operators do not chain; add parentheses");
        throw ParseAbort{};
      }
    }
    return l;
  }
  // A sum, sampled by `when` in a Lustre node (sampled()).
  ExprPtr sampled_sum() { return lustre_when_ ? when_suffix(additive()) : additive(); }
  ExprPtr additive() {
    auto l = multiplicative();
    while (at(Tok::Plus) || at(Tok::Minus)) {
      Span os = cur().span;
      Op op = take().kind == Tok::Plus ? Op::Add : Op::Sub;
      l = binary(op, std::move(l), multiplicative(), os);
    }
    return l;
  }
  ExprPtr multiplicative() {
    auto l = bit_or();
    for (;;) {
      Op op;
      switch (cur().kind) {
        case Tok::Star: op = Op::Mul; break;
        case Tok::Slash: op = Op::Div; break;
        case Tok::KwDiv: op = Op::IntDiv; break;
        case Tok::KwMod: op = Op::Mod; break;
        default: return l;
      }
      Span os = take().span;
      l = binary(op, std::move(l), bit_or(), os);
    }
  }
  // Kind 2's bitwise operators on machine integers, tighter than `*` as in Kind 2: `||`
  // looser than `&&`, both left associative, looser than the shifts `lsh` and `rsh`
  // (non-associative; names elsewhere, operators only after an operand).
  ExprPtr bit_or() {
    auto l = bit_and();
    while (at(Tok::BarBar)) {
      Span os = take().span;
      l = binary(Op::BitOr, std::move(l), bit_and(), os);
    }
    return l;
  }
  ExprPtr bit_and() {
    auto l = shifted();
    while (at(Tok::AmpAmp)) {
      Span os = take().span;
      l = binary(Op::BitAnd, std::move(l), shifted(), os);
    }
    return l;
  }
  ExprPtr shifted() {
    auto l = replicated();
    if (at(Tok::Ident) && (cur().text == "lsh" || cur().text == "rsh")) {
      Op op = cur().text == "lsh" ? Op::Lsh : Op::Rsh;
      Span os = take().span;
      l = binary(op, std::move(l), replicated(), os);
    }
    return l;
  }
  // Lustre's `e ^ n` (an array of n copies of e), left associative: `false^N^M`.
  ExprPtr replicated() {
    auto l = sampled();
    while (at(Tok::Caret)) {
      Span os = take().span;
      l = binary(Op::Caret, std::move(l), sampled(), os);
    }
    return l;
  }
  // rml's `when` binds tighter than the arithmetic operators (the paper's `do * 2.0 * i
  // when bp` samples i). In a Lustre node (a `returns` header) it binds as Lustre's
  // compilers read it (Vélus's grammar, Heptagon's precedences; Kind 2 binds it looser
  // still): looser than `+ - * / mod div`, tighter than the comparisons, so `s - 1 when c`
  // is `(s - 1) when c` there (grammar.md §5).
  ExprPtr sampled() {
    auto l = prefix();
    return lustre_when_ ? std::move(l) : when_suffix(std::move(l));
  }
  ExprPtr when_suffix(ExprPtr l) {
    while (at(Tok::KwWhen) || at(Tok::KwWhenot)) {
      Span os = cur().span;
      bool pos = take().kind == Tok::KwWhen;
      if (pos && accept(Tok::KwNot)) pos = false;
      auto c = prefix();
      Span s = Span::cover(l->span, c->span);
      std::vector<ExprPtr> a;
      a.push_back(std::move(l));
      a.push_back(std::move(c));
      auto e = std::make_unique<Expr>(ExprKind::When, s);
      e->positive = pos;
      e->op_span = os;
      e->args = std::move(a);
      l = finish(std::move(e));
    }
    return l;
  }
  ExprPtr prefix() {
    Span b = cur().span;
    switch (cur().kind) {
      case Tok::Minus: {
        take();
        if (at(Tok::Int) && cur().ival == std::numeric_limits<int64_t>::min()) {  // -9223372036854775808 (lexer)
          take();
          return mk_int(std::numeric_limits<int64_t>::min(), from(b));
        }
        DepthGuard g(*this);
        auto a = prefix();
        auto e = unary(b, std::move(a), Op::Neg);
        e->op_span = b;
        return e;
      }
      case Tok::Bang: {  // Kind 2's bitwise not
        take();
        DepthGuard g(*this);
        auto a = prefix();
        auto e = unary(b, std::move(a), Op::BitNot);
        e->op_span = b;
        return e;
      }
      case Tok::KwMachine:
      case Tok::Ident:
        if (auto m = machine_cast()) {
          // Kind 2's conversion to a machine integer, `uint8 e` or `sint@<17> e`: its operand
          // reaches as far right as an expression does (Kind 2's lowest precedence).
          DepthGuard g(*this);
          std::vector<ExprPtr> a;
          a.push_back(expr());
          auto e = node(ExprKind::Call, from(b), std::move(a));
          e->name = m->cast_name();
          return e;
        }
        return postfix();
      case Tok::KwReal:
      case Tok::KwInt: {  // Kind 2's conversion operators `real e`, `int e` (as `pre`'s operand)
        if (peek(1).kind == Tok::LParen) return postfix();  // real(e): a call (primary())
        std::string n = take().text;
        DepthGuard g(*this);
        std::vector<ExprPtr> a;
        a.push_back(prefix());
        auto e = node(ExprKind::Call, from(b), std::move(a));
        e->name = n;
        return e;
      }
      case Tok::KwPre:
      case Tok::KwPost: {
        Op op = take().kind == Tok::KwPre ? Op::Pre : Op::Post;
        DepthGuard g(*this);
        auto a = prefix();
        auto e = unary(b, std::move(a), op);
        e->op_span = b;
        return e;
      }
      case Tok::KwNot: {  // `not` in an operand position, e.g. `a = not b`
        take();
        auto a = comparison();
        auto e = unary(b, std::move(a), Op::Not);
        e->op_span = b;
        return e;
      }
      case Tok::KwMerge: return merge();
      case Tok::KwWhen: {  // Kind 2's `when c then e1 else e2`: syntax/datatypes.hpp
        take();
        std::vector<ExprPtr> a;
        a.push_back(expr());
        expect(Tok::KwThen, "after the condition of 'when ... then ... else ...'");
        a.push_back(expr());
        expect(Tok::KwElse, "in 'when ... then ... else ...'");
        a.push_back(expr());
        auto e = node(ExprKind::Call, from(b), std::move(a));
        e->name = kWhenCall;
        whens_.push_back(e->span);
        return e;
      }
      case Tok::KwIf: {
        take();
        auto c = expr();
        expect(Tok::KwThen, "in the conditional");
        auto t = expr();
        expect(Tok::KwElse, "in the conditional");
        auto f = expr();
        std::vector<ExprPtr> a;
        a.push_back(std::move(c));
        a.push_back(std::move(t));
        a.push_back(std::move(f));
        auto e = node(ExprKind::If, from(b), std::move(a));
        e->op_span = b;
        return e;
      }
      case Tok::KwLet: {
        take();
        std::string n = expect_ident("a name after 'let'");
        expect(Tok::Eq, "in the let binding");
        auto v = expr();
        expect(Tok::KwIn, "after the let binding");
        auto body = expr();
        std::vector<ExprPtr> a;
        a.push_back(std::move(v));
        a.push_back(std::move(body));
        auto e = node(ExprKind::Let, from(b), std::move(a));
        e->name = n;
        e->op_span = b;
        return e;
      }
      case Tok::KwCurrent: {
        // `current(...)` is a call: of the user's node `current` (Vélus's stopwatch declares
        // one), else Lustre's operator (sema/expand_current). `current e`, a prefix operator
        // like `pre`, is the same call of one operand, and prints as `current(e)`.
        if (peek(1).kind == Tok::LParen) return postfix();
        Span kw = take().span;
        DepthGuard g(*this);
        auto a = prefix();
        std::vector<ExprPtr> args;
        args.push_back(std::move(a));
        auto e = node(ExprKind::Call, from(b), std::move(args));
        e->name = "current";
        e->op_span = kw;
        return e;
      }
      default: return postfix();
    }
  }
  // Kind 2's and Vélus's `merge(c; a; b)`: a parenthesis holding `;` at its own depth.
  bool semicolon_merge_at() const {
    if (!at(Tok::LParen)) return false;
    int depth = 0;
    for (size_t k = 0;; ++k) {
      Tok t = peek(k).kind;
      if (t == Tok::Eof) return false;
      if (t == Tok::LParen || t == Tok::LBracket || t == Tok::LBrace) ++depth;
      else if (t == Tok::RParen || t == Tok::RBracket || t == Tok::RBrace) {
        if (--depth == 0) return false;
      } else if (t == Tok::Semi) {
        return depth == 1;
      }
    }
  }
  ExprPtr merge() {
    Span b = take().span;
    if (semicolon_merge_at()) {  // merge(c; a; b), the same merge as `merge c a b`
      take();
      std::vector<ExprPtr> a;
      a.push_back(expr());
      expect(Tok::Semi, "between the operands of 'merge(c; a; b)'");
      a.push_back(expr());
      expect(Tok::Semi, "between the operands of 'merge(c; a; b)'");
      a.push_back(expr());
      expect(Tok::RParen, "to close 'merge(c; a; b)'");
      auto e = node(ExprKind::Merge, from(b), std::move(a));
      e->op_span = b;
      return e;
    }
    ++merge_operand_;
    auto c = postfix();
    --merge_operand_;
    auto is_clause = [&] {
      return at(Tok::LParen) && (peek(1).kind == Tok::KwTrue || peek(1).kind == Tok::KwFalse) &&
             (peek(2).kind == Tok::Arrow || peek(2).kind == Tok::FatArrow);  // Vélus writes `=>`
    };
    std::vector<ExprPtr> a;
    a.push_back(std::move(c));
    if (ctor_clause_at()) return ctor_merge(b, std::move(a));
    if (is_clause()) {  // Lustre/Heptagon form: merge c (true -> x) (false -> y)
      ExprPtr branch[2];
      for (int k = 0; k < 2; ++k) {
        if (!is_clause()) error_expected("a merge clause '(true -> e)' or '(false -> e)'");
        take();
        Token lit = take();
        take();  // '->' or '=>'
        int slot = lit.kind == Tok::KwTrue ? 0 : 1;
        if (branch[slot]) {
          d_.error("parse.expected", lit.span, "this merge has two clauses for the same value");
          throw ParseAbort{};
        }
        branch[slot] = expr();
        expect(Tok::RParen, "to close the merge clause");
      }
      a.push_back(std::move(branch[0]));
      a.push_back(std::move(branch[1]));
    } else {
      // In `merge c a b` a call's '(' must touch its name: `merge bp do (x when c)` has
      // three operands, `merge c a zeros(s)` calls zeros (grammar.md §5).
      ++merge_operand_;
      a.push_back(postfix());
      a.push_back(postfix());
      --merge_operand_;
    }
    auto e = node(ExprKind::Merge, from(b), std::move(a));
    e->op_span = b;
    return e;
  }
  // `merge k (A -> a) (B -> b) ...`: clauses naming an enumeration's constructors (their
  // names in binders, their branches in args[1..]; sema/expand_enum_clocks). With one
  // clause, `(x -> e)` was the paper form's operand `x -> e`, followed by the third one.
  bool ctor_clause_at() const {
    return at(Tok::LParen) && (peek(1).kind == Tok::Ident || peek(1).kind == Tok::KwIn) &&
           (peek(2).kind == Tok::Arrow || peek(2).kind == Tok::FatArrow);
  }
  ExprPtr ctor_merge(Span b, std::vector<ExprPtr> a) {
    std::vector<std::string> names;
    std::vector<Span> spans;
    std::vector<bool> fat;
    while (ctor_clause_at()) {
      take();
      Token name = take();
      if (name.kind == Tok::KwIn) name.text = "in";
      Token arrow = take();
      auto branch = expr();
      expect(Tok::RParen, "to close the merge clause");
      if (names.size() == 0 && !ctor_clause_at()) {  // the paper form: `x -> e` or `x => e`
        std::vector<ExprPtr> ops;
        ops.push_back(mk_var(name.text, name.span));
        ops.push_back(std::move(branch));
        Span whole = Span::cover(name.span, ops[1]->span);
        auto arrow_e = node(ExprKind::Binary, whole, std::move(ops));
        arrow_e->op = arrow.kind == Tok::Arrow ? Op::Arrow : Op::Implies;
        arrow_e->op_span = arrow.span;
        a.push_back(std::move(arrow_e));
        ++merge_operand_;
        a.push_back(postfix());
        --merge_operand_;
        auto e = node(ExprKind::Merge, from(b), std::move(a));
        e->op_span = b;
        return e;
      }
      names.push_back(name.text);
      spans.push_back(name.span);
      fat.push_back(arrow.kind == Tok::FatArrow);
      a.push_back(std::move(branch));
    }
    if (at(Tok::LParen) && (peek(1).kind == Tok::KwTrue || peek(1).kind == Tok::KwFalse)) {
      d_.error("parse.expected", peek(1).span, "a merge has clauses for an enumeration's constructors or for true and false, not both");
      throw ParseAbort{};
    }
    auto e = node(ExprKind::Merge, from(b), std::move(a));
    e->op_span = b;
    e->binders = std::move(names);
    e->binder_spans = std::move(spans);
    e->fat_arrows = std::move(fat);
    return e;
  }
  ExprPtr postfix() {
    auto e = primary();
    for (;;) {
      if (at(Tok::Dot) && peek(1).kind == Tok::Ident) {  // r.x
        take();
        Token f = take();
        Span s = Span::cover(e->span, f.span);
        std::vector<ExprPtr> a;
        a.push_back(std::move(e));
        e = node(ExprKind::Field, s, std::move(a));
        e->name = f.text;
        e->op_span = f.span;
        continue;
      }
      if (at(Tok::LBracket) && peek(1).kind == Tok::Ident && peek(2).kind == Tok::Colon && peek(3).kind == Tok::Eq) {
        take();  // r[x := v] (Kind 2); r[x := v; y := w] is r[x := v][y := w]
        for (;;) {
          Token f = take();
          take();
          take();
          std::vector<ExprPtr> a;
          a.push_back(std::move(e));
          a.push_back(expr());
          Span s = Span::cover(a[0]->span, a[1]->span);
          e = node(ExprKind::Update, s, std::move(a));
          e->binders.push_back(f.text);
          e->binder_spans.push_back(f.span);
          if (!(at(Tok::Semi) && peek(1).kind == Tok::Ident && peek(2).kind == Tok::Colon && peek(3).kind == Tok::Eq)) break;
          take();
        }
        expect(Tok::RBracket, "to close the record update");
        e->span = Span::cover(e->span, prev_span());
        continue;
      }
      if (at(Tok::LBracket)) {
        take();
        std::vector<ExprPtr> a;
        a.push_back(std::move(e));
        do a.push_back(expr());
        while (accept(Tok::Comma));
        expect(Tok::RBracket, "to close the index");
        Span s = Span::cover(a[0]->span, prev_span());
        e = node(ExprKind::Index, s, std::move(a));
      } else {
        return e;
      }
    }
  }
  // Modular reset, Vélus/Heptagon form: `f(args) every c` (c a primary expression).
  ExprPtr every_suffix(ExprPtr call, Span b) {
    if (!at(Tok::KwEvery)) return call;
    Span kw = take().span;
    std::vector<ExprPtr> a;
    a.push_back(std::move(call));
    a.push_back(postfix());
    auto e = node(ExprKind::Reset, from(b), std::move(a));
    e->op_span = kw;
    return e;
  }
  // Lustre V6 / Kind 2 form, after its '(': `(restart f every c)(args)`.
  ExprPtr restart(Span b) {
    Span kw = take().span;
    Token id = cur();
    std::string n = expect_ident("the node to restart");
    expect(Tok::KwEvery, "after the restarted node");
    auto c = expr();
    expect(Tok::RParen, "to close '(restart ... every ...)'");
    auto args = call_args();
    auto call = node(ExprKind::Call, Span::cover(id.span, prev_span()), std::move(args));
    call->name = n;
    std::vector<ExprPtr> a;
    a.push_back(std::move(call));
    a.push_back(std::move(c));
    auto e = node(ExprKind::Reset, from(b), std::move(a));
    e->op_span = kw;
    e->name = "restart";  // the spelling, for the printer
    return e;
  }
  // Kind 2's type ascription `(e : t)`, at its ':': e's value, of type t, where t's range
  // or refinement is checked: a fresh local of type t defined by e, as a typed constant of
  // a node is (node_constants), so that a subrange or refinement is a property of the node
  // as a local's is. Read in a node's equations only: elsewhere (a block, a contract, a
  // property, a constant) its local would be computed where the expression is not.
  ExprPtr ascription(Span b, ExprPtr e) {
    take();  // ':'
    TypeSyntax t = type();
    expect(Tok::RParen, "to close the type ascription '(e : t)'");
    if (!ascribing_) {
      d_.error("syntax.unsupported", from(b),
               "a type ascription '(e : t)' is read by rml in a node's equations only (not in a block, a contract, a property or a constant)");
      return e;
    }
    std::string name;
    do name = "ascribed" + std::to_string(++ascribed_count_);
    while (file_names().count(name));
    VarDecl v;
    v.name = name;
    v.span = from(b);
    v.type = std::move(t);
    Equation eq;
    eq.lhs.push_back(LhsItem{name, from(b)});
    eq.rhs = std::move(e);
    eq.span = from(b);
    if (v.type->subrange) ascribed_checks_.push_back(range_check(name, *v.type, "subrange", from(b)));
    ascribed_.emplace_back(std::move(v), std::move(eq));
    ascriptions_.push_back(from(b));
    return mk_var(name, from(b));
  }
  // An ascription's subrange as a property of its node, `lo <= v and v <= hi` (a side `*`
  // left out), named `v:T` as a refinement's is (Kind 2 checks it so).
  Assumption range_check(const std::string &v, const TypeSyntax &t, const std::string &type_name, Span span) {
    ExprPtr cond;
    auto conj = [&](ExprPtr c) { cond = cond ? binary(Op::And, std::move(cond), std::move(c), span) : std::move(c); };
    if (t.range_lo) conj(binary(Op::Le, t.range_lo->clone(), mk_var(v, span), span));
    if (t.range_hi) conj(binary(Op::Le, mk_var(v, span), t.range_hi->clone(), span));
    if (!cond) cond = mk_bool(true, span);
    Assumption a;
    a.property = true;
    a.keyword = "check";
    a.cond = std::move(cond);
    a.span = span;
    a.name = v + ":" + type_name;
    a.name_span = span;
    a.text = print_expr(*a.cond) + " (the range of " + type_name + ")";
    return a;
  }
  // The ascriptions to named types that denote subranges (through aliases), checked.
  void ascribed_ranges(Program &p) {
    std::map<std::string, const TypeDecl *> types;
    for (auto &d : p.decls)
      if (auto *t = std::get_if<TypeDecl>(&d)) types[t->name] = t;
    for (auto &a : ascribed_named_) {
      const TypeSyntax *t = nullptr;
      std::string name = a.type;
      for (int hops = 0; hops < 64; ++hops) {  // (a cycle of aliases is sema's error)
        auto it = types.find(name);
        if (it == types.end() || !it->second->alias) break;
        t = &*it->second->alias;
        if (t->kind != TypeSyntax::Named) break;
        name = t->name;
      }
      if (!t || !t->subrange) continue;
      for (auto &d : p.decls)
        if (auto *n = std::get_if<NodeDecl>(&d); n && n->name == a.node) n->assumptions.push_back(range_check(a.local, *t, a.type, a.span));
    }
  }
  // Kind 2's (and Scade's) activation, after its '(': `(activate N every c)(args)` is N's
  // instance on the clock c, `N(args when c)` (Kind 2 allows it where that clock is
  // expected: a merge's branch); `every k = C` (C a constructor of an enumeration declared
  // before) is the enumeration's clock `C(k)` and
  // `every not c` the clock `not c`, as Kind 2 writes them. `initial default (d, ..)` makes
  // it Lustre's condact (sema/expand_condact: the outputs held where c is false, d before
  // c first holds). `restart every r`, or `(activate (restart N every r) every c)`,
  // restarts the instance where r holds, r sampled by c as in Kind 2.
  ExprPtr activate(Span b) {
    Span kw = take().span;  // `activate`
    ExprPtr restart_cond;
    auto restart_clause = [&] {
      expect(Tok::KwEvery, "after 'restart'");
      restart_cond = expr();
    };
    Token id = cur();
    std::string n;
    if (accept(Tok::LParen)) {
      expect(Tok::KwRestart, "after '(activate ('");
      id = cur();
      n = expect_ident("the node to restart");
      restart_clause();
      expect(Tok::RParen, "to close '(restart ... every ...)'");
    } else {
      n = expect_ident("the node to activate");
    }
    expect(Tok::KwEvery, "after the activated node");
    ExprPtr c = expr();
    std::vector<ExprPtr> defaults;
    bool with_default = false;
    if (at(Tok::Ident) && cur().text == "initial" && peek(1).kind == Tok::Ident && peek(1).text == "default") {
      take(), take();
      with_default = true;
      ExprPtr d = expr();
      if (d->kind == ExprKind::Tuple) defaults = std::move(d->args);
      else defaults.push_back(std::move(d));
    }
    if (!restart_cond && accept(Tok::KwRestart)) restart_clause();
    expect(Tok::RParen, "to close '(activate ... every ...)'");
    std::vector<ExprPtr> args = call_args();
    if (args.empty() && !with_default)
      d_.error("syntax.unsupported", from(b), "an activation of a node without inputs is not read by rml (its clock would be c)");
    if (with_default && restart_cond)
      d_.error("syntax.unsupported", from(b), "an activation with both 'initial default' and 'restart' is not read by rml");
    activates_.push_back(from(b));
    // x sampled by the activation's clock, as Kind 2 spells it.
    auto sampled = [&](ExprPtr x) {
      auto w = std::make_unique<Expr>(ExprKind::When, Span::cover(x->span, c->span));
      w->op_span = kw;
      w->positive = true;
      ExprPtr cond;
      if (c->kind == ExprKind::Unary && c->op == Op::Not && c->args[0]->kind == ExprKind::Var) {
        w->positive = false;
        cond = c->args[0]->clone();
      } else if (c->kind == ExprKind::Binary && c->op == Op::Eq && c->args[0]->kind == ExprKind::Var &&
                 c->args[1]->kind == ExprKind::Var &&
                 (enum_ctors_.count(c->args[1]->name) || enum_ctors_.count(c->args[0]->name))) {  // `k = C`: the clock C(k)
        const bool ctor_right = enum_ctors_.count(c->args[1]->name) > 0;
        std::vector<ExprPtr> k;
        k.push_back(c->args[ctor_right ? 0 : 1]->clone());
        cond = node(ExprKind::Call, c->span, std::move(k));
        cond->name = c->args[ctor_right ? 1 : 0]->name;
      } else {
        cond = c->clone();
      }
      w->args.push_back(std::move(x));
      w->args.push_back(std::move(cond));
      return finish(std::move(w));
    };
    auto call = node(ExprKind::Call, Span::cover(id.span, prev_span()), {});
    call->name = n;
    if (with_default) {  // condact(c, N(args), defaults..)
      call->args = std::move(args);
      std::vector<ExprPtr> a;
      a.push_back(std::move(c));
      a.push_back(std::move(call));
      for (auto &d : defaults) a.push_back(std::move(d));
      auto e = node(ExprKind::Call, from(b), std::move(a));
      e->name = "condact";
      return e;
    }
    for (auto &x : args) call->args.push_back(sampled(std::move(x)));
    if (!restart_cond) return call;
    std::vector<ExprPtr> a;
    a.push_back(std::move(call));
    a.push_back(sampled(std::move(restart_cond)));
    auto e = node(ExprKind::Reset, from(b), std::move(a));
    e->op_span = kw;
    return e;
  }
  // Kind 2's type arguments after a name, from `@<`: `N@<int, real>(x)` (a call of N's
  // instance) or `any@<T>` (a value of T the program does not fix): sema/instantiate_types.
  // A machine integer type at the cursor (`int8` .. `int64`, `uint8` .. `uint32`,
  // `sint<N>`, `uint<N>`), taken; nothing (and nothing taken) for any other name.
  std::optional<MachineInt> machine_type() {
    Span b = cur().span;
    std::optional<MachineInt> m;
    if (at(Tok::KwMachine)) {
      m = MachineInt::concise(take().text);
    } else if (!at(Tok::Ident)) {
      return std::nullopt;
    } else if ((cur().text == "sint" || cur().text == "uint") && peek(1).kind == Tok::Lt && peek(2).kind == Tok::Int &&
               peek(3).kind == Tok::Gt) {
      bool is_signed = take().text == "sint";
      take();
      int64_t bits = take().ival;
      take();
      if (bits < 1 || bits > 64) {
        d_.error("syntax.unsupported", from(b), "a machine integer has 1 to 64 bits, not " + std::to_string(bits));
        bits = 64;
      }
      m = MachineInt{static_cast<uint8_t>(bits), is_signed};
    } else {
      return std::nullopt;
    }
    if (m->bits == 64 && !m->is_signed)
      d_.error("syntax.unsupported", from(b),
               "64-bit unsigned machine integers are not read by rml (their values above 2^63 - 1 are not rml ints); "
               "uint<63> and int64 are");
    return m;
  }
  // A conversion to a machine integer at the cursor: `uint8`, `int16`, ... (reserved words,
  // as in Kind 2) or `sint@<N>`, `uint@<N>`; taken, its operand not. Nothing (and nothing
  // taken) otherwise.
  std::optional<MachineInt> machine_cast() {
    Span b = cur().span;
    if (at(Tok::KwMachine)) return machine_type();
    if ((cur().text == "sint" || cur().text == "uint") && peek(1).kind == Tok::AtLt && peek(2).kind == Tok::Int &&
        peek(3).kind == Tok::Gt) {
      bool is_signed = take().text == "sint";
      take();
      int64_t bits = take().ival;
      take();
      if (bits < 1 || bits > 64 || (bits == 64 && !is_signed)) {
        d_.error("syntax.unsupported", from(b),
                 bits == 64 ? "64-bit unsigned machine integers are not read by rml (their values above 2^63 - 1 are not rml ints)"
                            : "a machine integer has 1 to 64 bits, not " + std::to_string(bits));
        bits = is_signed ? 64 : 63;
      }
      return MachineInt{static_cast<uint8_t>(bits), is_signed};
    }
    return std::nullopt;
  }
  ExprPtr type_applied(Span b, const std::string &n) {
    Span at_span = take().span;
    std::vector<std::shared_ptr<const TypeSyntax>> targs;
    do targs.push_back(std::make_shared<const TypeSyntax>(type()));
    while (accept(Tok::Comma));
    expect(Tok::Gt, "to close the type arguments");
    if (n == "any" && !at(Tok::LParen)) {
      if (targs.size() != 1) {
        d_.error("arity.args", at_span, "'any' takes one type argument, but " + std::to_string(targs.size()) + " are given");
        throw ParseAbort{};
      }
      auto e = node(ExprKind::Call, from(b), {});
      e->name = n;
      e->type_args = std::move(targs);
      return e;
    }
    if (!at(Tok::LParen)) {  // a constructor of a datatype's instance, `None@<int>`: syntax/datatypes.cpp
      auto e = node(ExprKind::Call, from(b), {});
      e->name = n;
      e->type_args = std::move(targs);
      bare_type_applied_.push_back(e->span);
      return e;
    }
    auto a = call_args();
    auto e = node(ExprKind::Call, from(b), std::move(a));
    e->name = n;
    e->type_args = std::move(targs);
    return every_suffix(std::move(e), b);
  }

  // `n<<statics>>(args)` from its arguments' '(': a call whose first arguments are static.
  ExprPtr static_call(Span b, const std::string &n, std::vector<ExprPtr> statics) {
    auto a = call_args();
    uint32_t k = static_cast<uint32_t>(statics.size());
    for (auto &x : a) statics.push_back(std::move(x));
    auto e = node(ExprKind::Call, from(b), std::move(statics));
    e->name = n;
    e->statics = k;
    return e;
  }
  // `(+)` after a Heptagon iterator's sizes, followed by its arguments: the operator's
  // spelling, or null.
  const char *iterated_operator() const {
    if (!at(Tok::LParen) || peek(2).kind != Tok::RParen || peek(3).kind != Tok::LParen) return nullptr;
    switch (peek(1).kind) {
      case Tok::Plus: return "+";
      case Tok::Minus: return "-";
      case Tok::Star: return "*";
      case Tok::Slash: return "/";
      case Tok::Lt: return "<";
      case Tok::Le: return "<=";
      case Tok::Gt: return ">";
      case Tok::Ge: return ">=";
      case Tok::Ne: return "<>";
      case Tok::Eq: return "=";
      case Tok::KwAnd: return "and";
      case Tok::KwOr: return "or";
      case Tok::KwXor: return "xor";
      case Tok::KwMod: return "mod";
      default: return nullptr;
    }
  }
  std::vector<ExprPtr> call_args() {
    std::vector<ExprPtr> a;
    expect(Tok::LParen);
    if (!at(Tok::RParen)) {
      do a.push_back(expr());
      while (accept(Tok::Comma));
    }
    expect(Tok::RParen, "to close the argument list");
    return a;
  }
  // `R { x = e; y = e }`, from its '{' (name "": Heptagon's `{ x = e }`, whose type the
  // fields name).
  ExprPtr record_value(Span b, const std::string &n) {
    take();
    auto e = std::make_unique<Expr>(ExprKind::Record, b);
    e->name = n;
    while (!at(Tok::RBrace)) {
      e->binder_spans.push_back(cur().span);
      e->binders.push_back(expect_ident("a field name"));
      expect(Tok::Eq, "after the field name");
      e->args.push_back(expr());
      if (!accept(Tok::Semi) && !accept(Tok::Comma)) break;
    }
    expect(Tok::RBrace, "to close the record value");
    e->span = from(b);
    return finish(std::move(e));
  }
  // Whether a token can begin the operand after `match` (`match` is a name elsewhere).
  static bool starts_operand(Tok k) {
    return k == Tok::Ident || k == Tok::Int || k == Tok::Real || k == Tok::LParen || k == Tok::KwTrue ||
           k == Tok::KwFalse || k == Tok::KwPre || k == Tok::KwNot || k == Tok::KwIf || k == Tok::LBrace;
  }
  ExprPtr primary() {
    Span b = cur().span;
    switch (cur().kind) {
      case Tok::Int: {
        if (cur().ival == std::numeric_limits<int64_t>::min()) {  // 2^63 not after a unary minus
          d_.error("lex.limit", cur().span, "integer literal does not fit in 63 bits (-9223372036854775808 is read, as the least int)");
          throw ParseAbort{};
        }
        auto e = mk_int(cur().ival, b);
        take();
        return e;
      }
      case Tok::Real: {
        auto e = mk_real(cur().rval, b);
        take();
        return e;
      }
      case Tok::KwTrue:
      case Tok::KwFalse: return mk_bool(take().kind == Tok::KwTrue, b);
      case Tok::Hash: {  // Lustre's `#(a, b, c)`: a call of `#` (sema/expand_at_most_one)
        take();
        auto a = call_args();
        auto e = node(ExprKind::Call, from(b), std::move(a));
        e->name = "#";
        return e;
      }
      case Tok::Colon:
        if (in_contract_ && at_double(Tok::Colon)) {  // a contract's mode reference `::m`, `::C::m`
          std::string path;
          while (at_double(Tok::Colon)) {
            take();
            take();
            path += "::" + expect_ident("a mode name after '::'");
          }
          return mk_var(path, from(b));
        }
        error_expected("an expression");
      case Tok::KwCurrent: {  // a call of a node named `current` (see unary())
        take();
        auto a = call_args();
        auto e = node(ExprKind::Call, from(b), std::move(a));
        e->name = "current";
        return e;
      }
      case Tok::KwReal:
      case Tok::KwInt: {  // conversions real(e), int(e)
        if (peek(1).kind != Tok::LParen) error_expected("an expression (a type name is only a conversion when called)");
        std::string n = take().text;
        auto a = call_args();
        auto e = node(ExprKind::Call, from(b), std::move(a));
        e->name = n;
        return e;
      }
      case Tok::Ident: {
        if (in_frame_body_ && cur().text == "last" && peek(1).kind == Tok::Ident) {
          // Kind 2's `last v` in a frame block: v's previous value (syntax/statement_blocks.hpp)
          take();
          Token v = take();
          std::vector<ExprPtr> a;
          a.push_back(mk_var(v.text, v.span));
          auto e = node(ExprKind::Call, from(b), std::move(a));
          e->name = kLastCall;
          return e;
        }
        if (cur().text == "match" && starts_operand(peek(1).kind)) return match_expr(b);
        if ((cur().text == "forall" || cur().text == "exists") && peek(1).kind == Tok::LParen && quantifier_ahead()) return quantifier(b);
        Token id = take();
        std::string n = id.text;
        bool adjacent = cur().span.begin == id.span.end;
        if (at(Tok::Question) && adjacent && peek(1).kind == Tok::LParen) {  // Kind 2's tester `C?(e)`
          take();
          auto a = call_args();
          auto e = node(ExprKind::Call, from(b), std::move(a));
          e->name = kTesterCall;
          e->binders = {n};
          e->binder_spans = {id.span};
          testers_.push_back(e->span);
          return e;
        }
        if (n == "any" && at(Tok::LBrace) && peek(1).kind == Tok::Ident && peek(2).kind == Tok::Colon) {
          // Kind 2's `any { x: T | P }`: syntax/any_values.hpp
          take();
          AnyValue a;
          a.var_span = cur().span;
          a.var = take().text;
          take();  // :
          a.type = type();
          expect(Tok::Bar, "between the type and the condition of 'any'");
          a.pred = expr();
          expect(Tok::RBrace, "to close 'any { ... }'");
          a.span = from(b);
          return table_call(kAnyCall, {}, anys_, std::move(a));
        }
        if (at(Tok::LBrace)) return record_value(b, n);  // a record value: R { x = e; y = e }
        if (at(Tok::AtLt)) return type_applied(b, n);
        if (at_double(Tok::Lt) && adjacent) {  // static arguments: f<<3, n + 1>>(x)
          take();
          take();
          std::vector<ExprPtr> statics;
          do statics.push_back(sampled_sum());  // not a comparison: '>>' closes
          while (accept(Tok::Comma));
          if (!at_double(Tok::Gt)) error_expected("'>>' to close the static arguments");
          take();
          take();
          if (!at(Tok::LParen) || iterated_operator()) {  // Heptagon's `map<<n>> f (a)`, `fold<<n>> (+) (a, 0)`
            std::string f;
            if (const char *op = iterated_operator()) {
              take();
              take();
              take();
              f = op;
            } else if (at(Tok::Ident) && peek(1).kind == Tok::LParen) {
              f = take().text;
            } else {
              d_.error("syntax.unsupported", id.span,
                       "'" + n + "<<...>>' followed by " + describe(cur()) +
                           ": a Heptagon iterator applies a node name or an operator in parentheses, then its arguments");
              throw ParseAbort{};
            }
            auto e = static_call(b, n, std::move(statics));
            e->binders = {f};
            return e;
          }
          return every_suffix(static_call(b, n, std::move(statics)), b);
        }
        if (at(Tok::LParen) && (merge_operand_ == 0 || adjacent)) {
          auto a = call_args();
          auto e = node(ExprKind::Call, from(b), std::move(a));
          e->name = n;
          return every_suffix(std::move(e), b);
        }
        return mk_var(n, b);
      }
      case Tok::KwIn: take(); return mk_var("in", b);  // a Lustre name (after `let x = e`, `in` ends e)
      case Tok::LParen: {
        take();
        if (at(Tok::KwRestart)) return restart(b);
        if (at(Tok::Ident) && cur().text == "activate" && (peek(1).kind == Tok::Ident || peek(1).kind == Tok::LParen))
          return activate(b);
        int saved_merge = merge_operand_;
        merge_operand_ = 0;
        struct Restore { int &r; int v; ~Restore() { r = v; } } restore{merge_operand_, saved_merge};
        if (at(Tok::RParen)) error_expected("an expression inside '()'");
        std::vector<ExprPtr> a;
        a.push_back(expr());
        if (at(Tok::Colon)) return ascription(b, std::move(a[0]));
        if (at(Tok::Comma)) {
          while (accept(Tok::Comma)) a.push_back(expr());
          expect(Tok::RParen, "to close the tuple");
          return node(ExprKind::Tuple, from(b), std::move(a));
        }
        expect(Tok::RParen, "to close the parenthesis");
        return std::move(a[0]);
      }
      case Tok::LBrace: {  // Heptagon's record value without its type: { x = e; y = e }
        if (peek(1).kind == Tok::Ident && peek(2).kind == Tok::Eq) return record_value(b, "");
        take();  // Kind 2's group value {e1, e2}: a tuple
        std::vector<ExprPtr> a;
        do a.push_back(expr());
        while (accept(Tok::Comma));
        expect(Tok::RBrace, "to close the group value");
        if (a.size() == 1) return std::move(a[0]);
        return node(ExprKind::Tuple, from(b), std::move(a));
      }
      case Tok::LBracket: {
        take();
        std::vector<ExprPtr> a;
        if (!at(Tok::RBracket)) {
          do a.push_back(expr());
          while (accept(Tok::Comma));
        }
        expect(Tok::RBracket, "to close the array literal");
        return node(ExprKind::Array, from(b), std::move(a));
      }
      case Tok::Backslash: {
        take();
        auto e = std::make_unique<Expr>(ExprKind::Lambda, b);
        if (accept(Tok::LParen)) {
          do {
            e->binder_spans.push_back(cur().span);
            e->binders.push_back(expect_ident("a lambda parameter"));
          } while (accept(Tok::Comma));
          expect(Tok::RParen, "to close the lambda parameters");
        } else {
          e->binder_spans.push_back(cur().span);
          e->binders.push_back(expect_ident("a lambda parameter"));
        }
        expect(Tok::FatArrow, "after the lambda parameters");
        e->args.push_back(expr());
        e->span = from(b);
        return finish(std::move(e));
      }
      default: error_expected("an expression");
    }
  }
};

}  // namespace

Program parse_program(const SourceFile &file, Diagnostics &diags) {
  Parser p(file, diags);
  return p.program();
}

ExprPtr parse_expression(const SourceFile &file, Diagnostics &diags) {
  Parser p(file, diags);
  return p.single_expression();
}

std::optional<Assumption> parse_assumption(const SourceFile &file, Diagnostics &diags) {
  Parser p(file, diags);
  return p.lone_assumption();
}

}  // namespace rml
