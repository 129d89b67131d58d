#include "syntax/lexer.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_map>

namespace rml {

const char *tok_name(Tok t) {
  switch (t) {
    case Tok::Eof: return "end of file";
    case Tok::Ident: return "identifier";
    case Tok::TyVar: return "type variable";
    case Tok::Int: return "integer literal";
    case Tok::Real: return "real literal";
    case Tok::String: return "string";
    case Tok::KwNode: return "'node'";
    case Tok::KwFunction: return "'function'";
    case Tok::KwFun: return "'fun'";
    case Tok::KwReturns: return "'returns'";
    case Tok::KwVar: return "'var'";
    case Tok::KwLet: return "'let'";
    case Tok::KwTel: return "'tel'";
    case Tok::KwConst: return "'const'";
    case Tok::KwWhen: return "'when'";
    case Tok::KwWhenot: return "'whenot'";
    case Tok::KwMerge: return "'merge'";
    case Tok::KwFby: return "'fby'";
    case Tok::KwPost: return "'post'";
    case Tok::KwPre: return "'pre'";
    case Tok::KwIf: return "'if'";
    case Tok::KwThen: return "'then'";
    case Tok::KwElse: return "'else'";
    case Tok::KwNot: return "'not'";
    case Tok::KwAnd: return "'and'";
    case Tok::KwOr: return "'or'";
    case Tok::KwXor: return "'xor'";
    case Tok::KwMod: return "'mod'";
    case Tok::KwDiv: return "'div'";
    case Tok::KwTrue: return "'true'";
    case Tok::KwFalse: return "'false'";
    case Tok::KwInt: return "'int'";
    case Tok::KwBool: return "'bool'";
    case Tok::KwReal: return "'real'";
    case Tok::KwFloat: return "'float'";
    case Tok::KwIn: return "'in'";
    case Tok::KwEvery: return "'every'";
    case Tok::KwRestart: return "'restart'";
    case Tok::KwType: return "'type'";
    case Tok::KwCurrent: return "'current'";
    case Tok::KwMachine: return "a machine integer type";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::Eq: return "'='";
    case Tok::Arrow: return "'->'";
    case Tok::FatArrow: return "'=>'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Lt: return "'<'";
    case Tok::Le: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::Ge: return "'>='";
    case Tok::Ne: return "'<>'";
    case Tok::Backslash: return "'\\'";
    case Tok::Caret: return "'^'";
    case Tok::Hash: return "'#'";
    case Tok::Dot: return "'.'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Bar: return "'|'";
    case Tok::AtLt: return "'@<'";
    case Tok::AmpAmp: return "'&&'";
    case Tok::BarBar: return "'||'";
    case Tok::Bang: return "'!'";
    case Tok::Question: return "'?'";
  }
  return "?";
}

static const std::unordered_map<std::string, Tok> &keywords() {
  static const std::unordered_map<std::string, Tok> kw = {
      {"node", Tok::KwNode},     {"function", Tok::KwFunction}, {"fun", Tok::KwFun},
      {"returns", Tok::KwReturns}, {"var", Tok::KwVar},         {"let", Tok::KwLet},
      {"tel", Tok::KwTel},       {"const", Tok::KwConst},       {"when", Tok::KwWhen},
      {"whenot", Tok::KwWhenot}, {"merge", Tok::KwMerge},       {"fby", Tok::KwFby},
      {"post", Tok::KwPost},     {"pre", Tok::KwPre},           {"if", Tok::KwIf},
      {"then", Tok::KwThen},     {"else", Tok::KwElse},         {"not", Tok::KwNot},
      {"and", Tok::KwAnd},       {"or", Tok::KwOr},             {"xor", Tok::KwXor},
      {"mod", Tok::KwMod},       {"div", Tok::KwDiv},           {"true", Tok::KwTrue},
      {"false", Tok::KwFalse},   {"int", Tok::KwInt},           {"bool", Tok::KwBool},
      {"real", Tok::KwReal},     {"float", Tok::KwFloat},       {"every", Tok::KwEvery},
      {"restart", Tok::KwRestart},
      {"in", Tok::KwIn},         {"type", Tok::KwType},         {"current", Tok::KwCurrent},
      {"int8", Tok::KwMachine},  {"int16", Tok::KwMachine},     {"int32", Tok::KwMachine},
      {"int64", Tok::KwMachine}, {"uint8", Tok::KwMachine},     {"uint16", Tok::KwMachine},
      {"uint32", Tok::KwMachine}, {"uint64", Tok::KwMachine},
  };
  return kw;
}

namespace {

struct Lexer {
  const SourceFile &f;
  Diagnostics &d;
  const std::string &s;
  uint32_t i = 0;
  std::vector<Token> out;
  std::vector<Comment> *comments = nullptr;
  // Inside a property annotation written as a block comment, `(*%PROPERTY e; *)` or
  // `/*!PROPERTY : e; */`: the comment's closer, which ends the annotation (else empty).
  std::string pragma_close;
  uint32_t pragma_start = 0;
  bool pragma_contract = false;  // the open annotation is a contract `(*@contract ... *)`

  Lexer(const SourceFile &file, Diagnostics &diags) : f(file), d(diags), s(file.text) {}

  void record(Comment::Kind k, uint32_t b) {
    if (comments) comments->push_back(Comment{k, span(b, i)});
  }

  Span span(uint32_t b, uint32_t e) const { return Span{&f, b, e}; }
  char peek(uint32_t k = 0) const { return i + k < s.size() ? s[i + k] : '\0'; }

  void push(Tok k, uint32_t b) { out.push_back(Token{k, span(b, i), {}, 0, 0}); }

  // Nested (* *) comments; /* */ is not nested (C convention).
  void block_comment(bool ml_style) {
    uint32_t start = i;
    i += 2;
    int depth = 1;
    while (i < s.size()) {
      if (ml_style && s[i] == '(' && peek(1) == '*') {
        if (++depth > Limits::kMaxDepth) {
          d.error("lex.limit", span(i, i + 2), "comments nested deeper than 256 levels");
          i = static_cast<uint32_t>(s.size());
          return;
        }
        i += 2;
      } else if (ml_style && s[i] == '*' && peek(1) == ')') {
        i += 2;
        if (--depth == 0) return record(Comment::Block, start);
      } else if (!ml_style && s[i] == '*' && peek(1) == '/') {
        i += 2;
        return record(Comment::Block, start);
      } else {
        ++i;
      }
    }
    d.error("lex.comment", span(start, start + 2),
            ml_style ? "unterminated comment: this '(*' has no matching '*)'"
                     : "unterminated comment: this '/*' has no matching '*/'");
  }

  // At `i`, after an opener of `open` characters: Kind 2's and JKind's property pragmas
  // `%PROPERTY ["name"] e;` and `!PROPERTY ["name"] : e;` are the statement
  // `check ["name"] e;` (the rest is lexed as code). False, and nothing consumed, for any
  // other text.
  bool property_pragma(uint32_t b, uint32_t open) {
    if (s.compare(i + open, 9, "%PROPERTY") != 0 && s.compare(i + open, 9, "!PROPERTY") != 0) return false;
    bool bang = s[i + open] == '!';
    i += open + 9;
    out.push_back(Token{Tok::Ident, span(b, i), "check", 0, 0});
    auto skip_blanks = [&] {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    };
    skip_blanks();
    if (i < s.size() && s[i] == '"') {  // the property's name
      string_literal();
      skip_blanks();
    }
    if (bang && i < s.size() && s[i] == ':') ++i;
    return true;
  }

  // At a `"`: a string, which ends on the same line (no escapes; a property's name). An
  // unterminated one is an error at its opening quote, and the rest of its line is
  // skipped; so is a control character in it (a name is printed in reports and file names).
  void string_literal() {
    uint32_t b = i++;
    while (i < s.size() && s[i] != '"' && s[i] != '\n' && s[i] != '\r') {
      unsigned char ch = static_cast<unsigned char>(s[i]);
      if ((ch < 0x20 && ch != '\t') || ch == 0x7F) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02x", ch);
        d.error("lex.string", span(i, i + 1), std::string("a string cannot hold the control character ") + buf);
        while (i < s.size() && s[i] != '\n') ++i;
        return;
      }
      ++i;
    }
    if (i >= s.size() || s[i] != '"') {
      d.error("lex.string", span(b, b + 1), "unterminated string: this '\"' has no closing '\"' on its line");
      return;
    }
    ++i;
    out.push_back(Token{Tok::String, span(b, i), s.substr(b + 1, i - 1 - (b + 1)), 0, 0});
  }

  // Kind 2's hexadecimal literals: an int `0x1fe4E`, a real with a point or a binary
  // exponent (`0x1p-3`, `0x.1`, `0x12.34p+4`, `0x1234.`), the value C's strtod gives.
  void hex_number() {
    uint32_t b = i;
    i += 2;  // 0x
    auto hex_digits = [&] {
      uint32_t from = i;
      while (std::isxdigit(static_cast<unsigned char>(peek()))) ++i;
      return i > from;
    };
    bool digits = hex_digits(), real = false;
    if (peek() == '.' && peek(1) != '.') {
      real = true;
      ++i;
      digits = hex_digits() || digits;
    }
    if (digits && (peek() == 'p' || peek() == 'P')) {
      real = true;
      ++i;
      if (peek() == '+' || peek() == '-') ++i;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) {
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i;
        d.error("lex.number", span(b, i), "malformed number: binary exponent has no digits");
        return;
      }
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++i;
    }
    if (!digits || std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
      while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i;
      d.error("lex.number", span(b, i), digits ? "malformed number: letters directly after hexadecimal digits"
                                               : "malformed number: no hexadecimal digit after '0x'");
      return;
    }
    std::string text = s.substr(b, i - b);
    Token t{real ? Tok::Real : Tok::Int, span(b, i), text, 0, 0};
    errno = 0;
    if (real) {
      t.rval = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && std::abs(t.rval) > 1.0) {
        d.error("lex.number", t.span, "real literal out of range of a 64-bit float");
        return;
      }
      if (t.rval == 0 && text.find_first_of("123456789abcdefABCDEF", 2) < text.find_first_of("pP")) {
        d.error("lex.number", t.span, "real literal is not 0 but is too small for a 64-bit float (the smallest nonzero one is 4.9e-324)");
        return;
      }
    } else {
      long long v = std::strtoll(text.c_str() + 2, nullptr, 16);
      if (errno == ERANGE) {
        d.error("lex.limit", t.span, "integer literal does not fit in 63 bits");
        return;
      }
      t.ival = v;
    }
    out.push_back(std::move(t));
  }

  void number() {
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X') &&
        (std::isxdigit(static_cast<unsigned char>(peek(2))) || (peek(2) == '.' && std::isxdigit(static_cast<unsigned char>(peek(3))))))
      return hex_number();
    uint32_t b = i;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++i;
    bool real = false;
    if (peek() == '.' && peek(1) != '.') {
      real = true;
      ++i;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++i;
    }
    if (peek() == 'e' || peek() == 'E') {
      uint32_t save = i;
      ++i;
      if (peek() == '+' || peek() == '-') ++i;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) {
        // "1e" or "1e+" : a malformed exponent, not a number followed by a name.
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i;
        d.error("lex.number", span(b, i), "malformed number: exponent has no digits");
        (void)save;
        return;
      }
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++i;
      real = true;
    }
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
      while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i;
      d.error("lex.number", span(b, i), "malformed number: letters directly after digits");
      return;
    }
    std::string text = s.substr(b, i - b);
    Token t{real ? Tok::Real : Tok::Int, span(b, i), text, 0, 0};
    if (real) {
      errno = 0;
      t.rval = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && std::abs(t.rval) > 1.0) {
        d.error("lex.number", t.span, "real literal out of range of a 64-bit float");
        return;
      }
      // strtod gives 0 below half the smallest subnormal: a silent loss, as a trace's
      // reader says too (a subnormal result is kept: it is the nearest float).
      if (t.rval == 0 && text.substr(0, text.find_first_of("eE")).find_first_of("123456789") != std::string::npos) {
        d.error("lex.number", t.span, "real literal is not 0 but is too small for a 64-bit float (the smallest nonzero one is 4.9e-324)");
        return;
      }
    } else {
      errno = 0;
      long long v = std::strtoll(text.c_str(), nullptr, 10);
      // 2^63 after a minus: the least int, -9223372036854775808 (the parser folds the two
      // tokens and refuses the literal anywhere else).
      if (errno == ERANGE && text.find_first_not_of('0') != std::string::npos &&
          text.substr(text.find_first_not_of('0')) == "9223372036854775808" && !out.empty() && out.back().kind == Tok::Minus) {
        t.ival = std::numeric_limits<int64_t>::min();
        out.push_back(std::move(t));
        return;
      }
      if (errno == ERANGE) {
        d.error("lex.limit", t.span, "integer literal does not fit in 63 bits");
        return;
      }
      t.ival = v;
    }
    out.push_back(std::move(t));
  }

  void run() {
    if (s.size() > Limits::kMaxFileBytes) {
      d.error("lex.limit", span(0, 0), "file is larger than 16 MiB");
      out.push_back(Token{Tok::Eof, span(0, 0), {}, 0, 0});
      return;
    }
    while (i < s.size()) {
      char c = s[i];
      uint32_t b = i;
      if (!pragma_close.empty() && s.compare(i, 2, pragma_close) == 0) {
        i += 2;  // the end of a property annotation or a contract in a block comment
        pragma_close.clear();
        if (pragma_contract) out.push_back(Token{Tok::Ident, span(b, i), "noc", 0, 0});
        pragma_contract = false;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i;
      } else if ((c == '(' || c == '/') && peek(1) == '*') {
        // A property annotation or a Kind 2 contract in a block comment is code up to the
        // closer: the contract's delimiters become Kind 2's `con` and `noc`. Another `@`
        // annotation would be read as a comment, its meaning lost: an error.
        bool ml = c == '(';
        if (pragma_close.empty() && s.compare(i + 2, 9, "@contract") == 0 &&
            !(std::isalnum(static_cast<unsigned char>(peek(11))) || peek(11) == '_')) {
          i += 11;
          out.push_back(Token{Tok::Ident, span(b, i), "con", 0, 0});
          pragma_close = ml ? "*)" : "*/";
          pragma_start = b;
          pragma_contract = true;
        } else if (peek(2) == '@') {
          d.error("syntax.unsupported", span(b, b + 3),
                  std::string("this Kind 2 annotation '") + c + "*@' is not read by rml (only '" + c + "*@contract' is)");
          block_comment(ml);
        } else if (pragma_close.empty() && property_pragma(b, 2)) {
          pragma_close = ml ? "*)" : "*/";
          pragma_start = b;
        } else {
          block_comment(ml);
        }
      } else if (c == '-' && peek(1) == '-' && property_pragma(b, 2)) {
        // Kind 2's line pragmas `--%PROPERTY e;` and `--!PROPERTY : e;`.
      } else if ((c == '/' && peek(1) == '/') || (c == '-' && peek(1) == '-')) {
        if (c == '-' && peek(2) == '@')
          d.error("syntax.unsupported", span(b, b + 3), "Kind 2 annotations '--@' are not supported by rml");
        while (i < s.size() && s[i] != '\n') ++i;
        record(Comment::Line, b);
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i;
        while (peek() == '\'') ++i;  // Heptagon's primed names `y'`, `b''` (a type variable starts with ')
        std::string w = s.substr(b, i - b);
        auto it = keywords().find(w);
        out.push_back(Token{it == keywords().end() ? Tok::Ident : it->second, span(b, i), w, 0, 0});
      } else if (c == '\'' && peek(1) == '(') {
        // Kind 2's tuple value `'(a, b)`: the tuple `(a, b)` (a quote right after a name is
        // part of it, Heptagon's primed names above).
        ++i;
      } else if (c == '\'' && (std::isalpha(static_cast<unsigned char>(peek(1))) || peek(1) == '_')) {
        ++i;
        while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++i;
        out.push_back(Token{Tok::TyVar, span(b, i), s.substr(b, i - b), 0, 0});
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number();
      } else if (c == '"') {
        string_literal();
      } else {
        Tok k;
        int len = 1;
        switch (c) {
          case '(': k = Tok::LParen; break;
          case ')': k = Tok::RParen; break;
          case '[': k = Tok::LBracket; break;
          case ']': k = Tok::RBracket; break;
          case ',': k = Tok::Comma; break;
          case ';': k = Tok::Semi; break;
          case ':': k = Tok::Colon; break;
          case '+': k = Tok::Plus; break;
          case '*': k = Tok::Star; break;
          case '/': k = Tok::Slash; break;
          case '\\': k = Tok::Backslash; break;
          case '^': k = Tok::Caret; break;
          case '#':
            if (peek(1) != '(') goto bad;
            k = Tok::Hash;
            break;
          case '.': k = Tok::Dot; break;
          case '{': k = Tok::LBrace; break;
          case '}': k = Tok::RBrace; break;
          case '|':
            if (peek(1) == '|') k = Tok::BarBar, len = 2;  // Kind 2's bitwise or
            else k = Tok::Bar;
            break;
          case '&':  // Heptagon's `a & b` is `a and b`; Kind 2's `a && b` is bitwise
            if (peek(1) == '&') k = Tok::AmpAmp, len = 2;
            else k = Tok::KwAnd;
            break;
          case '~':  // Heptagon's unary minus `~-` (ints) and `~-.` (reals)
            if (peek(1) != '-') goto bad;
            k = Tok::Minus;
            len = peek(2) == '.' ? 3 : 2;
            break;
          case '-':
            if (peek(1) == '>') k = Tok::Arrow, len = 2;
            else k = Tok::Minus;
            break;
          case '=':
            if (peek(1) == '>') k = Tok::FatArrow, len = 2;
            else if (peek(1) == '=' && peek(2) == '>') k = Tok::FatArrow, len = 3;  // Kind 2's `==>`
            else if (peek(1) == '=') k = Tok::Eq, len = 2;
            else k = Tok::Eq;
            break;
          case '<':
            if (peek(1) == '=') k = Tok::Le, len = 2;
            else if (peek(1) == '>') k = Tok::Ne, len = 2;
            else k = Tok::Lt;
            break;
          case '>':
            if (peek(1) == '=') k = Tok::Ge, len = 2;
            else k = Tok::Gt;
            break;
          case '?':  // only Kind 2's tester `C?(e)`
            if (peek(1) != '(' || out.empty() || out.back().kind != Tok::Ident || out.back().span.end != b) goto bad;
            k = Tok::Question;
            break;
          case '@':  // only Kind 2's type arguments `@<`
            if (peek(1) != '<') goto bad;
            k = Tok::AtLt, len = 2;
            break;
          case '!':  // `!=` is `<>`; `!` alone is Kind 2's bitwise not
            if (peek(1) == '=') k = Tok::Ne, len = 2;
            else k = Tok::Bang;
            break;
          default:
          bad: {
            // One diagnostic per run of bad bytes (a binary file should not give 10^6 errors).
            while (i < s.size() && !std::isprint(static_cast<unsigned char>(s[i])) && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
            if (i == b) ++i;
            std::string shown;
            unsigned char uc = static_cast<unsigned char>(c);
            if (std::isprint(uc)) shown = std::string("'") + c + "'";
            else {
              char buf[8];
              std::snprintf(buf, sizeof buf, "0x%02x", uc);
              shown = std::string("byte ") + buf;
            }
            d.error("lex.char", span(b, b + 1), "unexpected character " + shown);
            if (d.saturated()) i = static_cast<uint32_t>(s.size());
            continue;
          }
        }
        i += len;
        push(k, b);
      }
    }
    if (!pragma_close.empty())
      d.error("lex.comment", span(pragma_start, pragma_start + 2),
              std::string(pragma_contract ? "unterminated contract" : "unterminated property annotation") + ": this '" + s.substr(pragma_start, 2) + "' has no matching '" + pragma_close + "'");
    out.push_back(Token{Tok::Eof, span(static_cast<uint32_t>(s.size()), static_cast<uint32_t>(s.size())), {}, 0, 0});
  }
};

}  // namespace

std::vector<Token> lex(const SourceFile &file, Diagnostics &diags, std::vector<Comment> *comments) {
  Lexer l(file, diags);
  l.comments = comments;
  l.run();
  return std::move(l.out);
}

}  // namespace rml
