#include "oracle/json_input.hpp"

#include <cstdint>

namespace rml::json_input {

namespace {

using json = nlohmann::json;

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_ws(const std::string &t, size_t i) {
  while (i < t.size() && is_ws(t[i])) ++i;
  return i;
}

// Past the string that starts at t[i] == '"'.
size_t skip_string(const std::string &t, size_t i) {
  for (++i; i < t.size();) {
    if (t[i] == '\\') i += 2;
    else if (t[i] == '"') return i + 1;
    else ++i;
  }
  return t.size();
}

// Past the value that starts at t[i], in text that parsed (lists and objects by counting
// brackets outside strings: no recursion).
size_t skip_value(const std::string &t, size_t i) {
  if (i >= t.size()) return i;
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] == '[' || t[i] == '{') {
    size_t depth = 0;
    while (i < t.size()) {
      char c = t[i];
      if (c == '"') {
        i = skip_string(t, i);
        continue;
      }
      ++i;
      if (c == '[' || c == '{') ++depth;
      else if ((c == ']' || c == '}') && --depth == 0) return i;
    }
    return i;
  }
  while (i < t.size() && !is_ws(t[i]) && t[i] != ',' && t[i] != ']' && t[i] != '}') ++i;
  return i;
}

// The byte offset of the value at `path` (or of its last key, with `key`); npos if absent.
// `text` may have parsed only up to that value (an error found while parsing): then what
// follows is unread, may repeat any key, and must not be looked at. So each step takes the
// first occurrence of its key, but the last step its `nth` (the parser stops at the second
// occurrence of a key: that is where the duplicate is).
size_t locate(const std::string &t, const Path &path, bool key, size_t nth = 1) {
  size_t i = t.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // nlohmann skips a BOM too
  i = skip_ws(t, i);
  for (size_t s = 0; s < path.size(); ++s) {
    const std::string &step = path[s];
    size_t seen = 0, wanted = s + 1 == path.size() ? nth : 1;
    if (i >= t.size()) return std::string::npos;
    if (t[i] == '[') {
      if (step.empty() || step.size() > 18 || step.find_first_not_of("0123456789") != std::string::npos) return std::string::npos;
      size_t k = std::stoull(step);
      ++i;
      for (size_t n = 0;; ++n) {
        i = skip_ws(t, i);
        if (i >= t.size() || t[i] == ']') return std::string::npos;
        if (n == k) break;
        i = skip_ws(t, skip_value(t, i));
        if (i >= t.size() || t[i] != ',') return std::string::npos;
        ++i;
      }
    } else if (t[i] == '{') {
      ++i;
      bool matched = false;
      size_t found = std::string::npos, key_at = std::string::npos;
      for (;;) {
        i = skip_ws(t, i);
        if (i >= t.size() || t[i] != '"') break;
        size_t ks = i, ke = skip_string(t, i);
        std::string k = t.substr(ks + 1, ke - ks >= 2 ? ke - ks - 2 : 0);
        if (k.find('\\') != std::string::npos) {  // escapes: let nlohmann decode the key
          json decoded = json::parse(t.substr(ks, ke - ks), nullptr, false);
          if (decoded.is_string()) k = decoded.get<std::string>();
        }
        i = skip_ws(t, ke);
        // The parser reports a key before it reads the ':' (a duplicate key may be
        // followed by anything): match the key first.
        bool colon = i < t.size() && t[i] == ':';
        if (colon) i = skip_ws(t, i + 1);
        if (k == step && ++seen == wanted) {
          matched = true, key_at = ks, found = colon ? i : std::string::npos;
          break;
        }
        if (!colon) break;
        i = skip_ws(t, skip_value(t, i));
        if (i < t.size() && t[i] == ',') ++i;
        else break;
      }
      if (!matched) return std::string::npos;
      if (key && s + 1 == path.size()) return key_at;
      if (found == std::string::npos) return std::string::npos;
      i = found;
    } else {
      return std::string::npos;
    }
  }
  return i;  // `key` with a last step into a list: the value
}

std::string clip(const std::string &s) {
  if (s.size() <= kMaxShown) return s;
  size_t n = kMaxShown;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // a UTF-8 boundary
  return s.substr(0, n) + "...";
}

// nlohmann's message without "[json.exception.parse_error.101] parse error at line 1,
// column 5: " (the location is ours), at most 200 characters.
std::string nlohmann_reason(const std::string &what) {
  std::string m = what;
  if (size_t col = m.find("column "); col != std::string::npos)
    if (size_t colon = m.find(": ", col); colon != std::string::npos) m = m.substr(colon + 2);
  if (m.size() > 200) m = m.substr(0, 200) + "...";
  return m;
}

// Builds the document from SAX events with an explicit stack of open lists and objects,
// checking the bounds as it goes; it knows the path of every value, for locating errors.
class Builder {
 public:
  Builder(const std::string &name, const std::string &text) : name_(name), text_(text) {}
  json root;

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return put(v); }
  bool number_float(json::number_float_t v, const std::string &literal) {
    // strtod gives 0 for a literal below half the smallest subnormal: a silent loss.
    std::string mantissa = literal.substr(0, literal.find_first_of("eE"));
    if (v == 0 && mantissa.find_first_of("123456789") != std::string::npos)
      fail(where(name_, text_, path()), clip(literal) +
                                            " is not 0 but is too small for a double (the smallest nonzero double is "
                                            "4.9e-324): write 0 if 0 is meant");
    return put(v);
  }
  bool string(std::string &v) { return put(std::move(v)); }
  bool binary(json::binary_t &) {  // only in binary formats, never in JSON text
    fail(name_, "not valid JSON: a binary value");
  }

  bool start_object(size_t) { return open(json::object()); }
  bool key(std::string &k) {
    Frame &f = stack_.back();
    bool twice = f.v->contains(k);
    f.key = std::move(k);
    if (twice) {
      size_t at = locate(text_, path(), true, 2);
      fail(at == std::string::npos ? name_ : name_ + ":" + line_col(text_, at),
           "the key " + json_input::quoted(f.key) + " appears twice in this object");
    }
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(size_t) { return open(json::array()); }
  bool end_array() { return close(); }

  bool parse_error(size_t pos, const std::string &last_token, const json::exception &e) {
    if (e.id == 406) {  // number overflow: `pos` is just past the literal
      size_t at = pos >= last_token.size() ? pos - last_token.size() : 0;
      fail(name_ + ":" + line_col(text_, at),
           clip(last_token) + " is beyond the range of a double (at most 1.7976931348623157e308 in magnitude)");
    }
    fail(name_ + ":" + line_col(text_, pos ? pos - 1 : 0), "not valid JSON: " + nlohmann_reason(e.what()));
    return false;
  }

 private:
  struct Frame {
    json *v;
    size_t next = 0;  // a list: the index of the value being read
    std::string key;  // an object: the key of the value being read
  };
  const std::string &name_, &text_;
  std::vector<Frame> stack_;

  [[noreturn]] static void fail(const std::string &at, const std::string &message) { throw Error(at, message); }

  Path path() const {
    Path p;
    for (const Frame &f : stack_) p.push_back(f.v->is_array() ? std::to_string(f.next) : f.key);
    return p;
  }
  json *slot() {  // where the next value goes
    if (stack_.empty()) return &root;
    Frame &f = stack_.back();
    if (f.v->is_array()) {
      f.v->push_back(nullptr);
      return &f.v->back();
    }
    return &(*f.v)[f.key];
  }
  bool put(json v) {
    *slot() = std::move(v);
    if (!stack_.empty() && stack_.back().v->is_array()) ++stack_.back().next;
    return true;
  }
  bool open(json empty) {
    if (stack_.size() >= kMaxDepth)
      fail(where(name_, text_, path()), "JSON nested deeper than " + std::to_string(kMaxDepth) +
                                            " levels of lists and objects (the limit)");
    // A container's address is stable while it is open: only its last child grows.
    json *v = slot();
    *v = std::move(empty);
    stack_.push_back(Frame{v, 0, {}});
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (!stack_.empty() && stack_.back().v->is_array()) ++stack_.back().next;
    return true;
  }
};

}  // namespace

nlohmann::json parse(const std::string &name, const std::string &text) {
  Builder b(name, text);
  json::sax_parse(text, &b);  // every failure throws from the builder
  return std::move(b.root);
}

std::string line_col(const std::string &text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  size_t line = 1, start = 0;
  for (size_t k = 0; k < offset; ++k)
    if (text[k] == '\n') ++line, start = k + 1;
  return std::to_string(line) + ":" + std::to_string(offset - start + 1);
}

std::string where(const std::string &name, const std::string &text, const Path &path, bool key) {
  size_t at = locate(text, path, key);
  return at == std::string::npos ? name : name + ":" + line_col(text, at);
}

std::string shown(const nlohmann::json &v) { return clip(v.dump(-1, ' ', false, json::error_handler_t::replace)); }

std::string quoted(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() >= kMaxShown) {
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      out += "...";
      break;
    }
    if (c < 0x20 || c == 0x7F) {
      static const char *hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return "'" + out + "'";
}

}  // namespace rml::json_input
