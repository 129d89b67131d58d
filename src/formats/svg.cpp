#include "formats/svg.hpp"

#include <algorithm>
#include <sstream>

namespace rml::formats {

namespace {

size_t columns(const std::string &s) {  // UTF-8 code points ('‖' is one)
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

}  // namespace

std::string xml_escape(const std::string &s) {
  std::string r;
  for (char ch : s) {
    switch (ch) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      default: r += ch;
    }
  }
  return r;
}

std::string write_svg(const ChronogramTable &t, const std::string &title, const std::vector<CellMark> &marks) {
  const int char_w = 8, row_h = 24, pad = 8;
  size_t name_w = 5;
  for (auto &n : t.names) name_w = std::max(name_w, columns(n));
  std::vector<int> cell_w(t.rows.size(), 0);
  for (size_t n = 0; n < t.rows.size(); ++n) {
    size_t w = std::to_string(n).size();
    for (auto &c : t.rows[n]) w = std::max(w, columns(c));
    cell_w[n] = static_cast<int>(w) * char_w + 2 * pad;
  }
  const int x0 = static_cast<int>(name_w) * char_w + 2 * pad, y0 = 2 * row_h;
  int width = x0;
  for (int w : cell_w) width += w;
  const int height = y0 + static_cast<int>(t.names.size()) * row_h + pad;
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"monospace\" font-size=\"13\">\n"
    << "<title>" << xml_escape(title) << "</title>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n"
    << "<text x=\"" << pad << "\" y=\"" << row_h - 8 << "\" font-weight=\"bold\">" << xml_escape(title) << "</text>\n";
  // The header: cycle numbers; a rule under it and between cycles.
  s << "<g class=\"cycles\" fill=\"#555\">\n<text x=\"" << pad << "\" y=\"" << y0 - 8 << "\">cycle</text>\n";
  int x = x0;
  for (size_t n = 0; n < t.rows.size(); ++n) {
    s << "<text x=\"" << x + cell_w[n] / 2 << "\" y=\"" << y0 - 8 << "\" text-anchor=\"middle\">" << n << "</text>\n";
    x += cell_w[n];
  }
  s << "</g>\n<line x1=\"0\" y1=\"" << y0 << "\" x2=\"" << width << "\" y2=\"" << y0 << "\" stroke=\"#999\"/>\n";
  x = x0;
  for (size_t n = 0; n < t.rows.size(); ++n) {
    s << "<line x1=\"" << x << "\" y1=\"" << y0 - row_h << "\" x2=\"" << x << "\" y2=\"" << height - pad
      << "\" stroke=\"#ddd\"/>\n";
    x += cell_w[n];
  }
  for (size_t r = 0; r < t.names.size(); ++r) {
    int y = y0 + static_cast<int>(r + 1) * row_h;
    s << "<g class=\"variable\" id=\"v" << r << "\">\n<text x=\"" << pad << "\" y=\"" << y - 8 << "\">" << xml_escape(t.names[r])
      << "</text>\n";
    x = x0;
    for (size_t n = 0; n < t.rows.size(); ++n) {
      const std::string &c = t.rows[n][r];
      int cx = x + cell_w[n] / 2;
      if (c == "_") {
        s << "<line class=\"absent\" x1=\"" << cx - 6 << "\" y1=\"" << y - 12 << "\" x2=\"" << cx + 6 << "\" y2=\"" << y - 12
          << "\" stroke=\"#999\" stroke-width=\"2\"/>\n";
      } else {
        const char *cls = c == "?" ? "unknown" : c == "‖" ? "error" : c == "nil" ? "nil" : "value";
        const char *fill = c == "‖" ? "#c00" : (c == "?" || c == "nil") ? "#888" : "black";
        s << "<text class=\"" << cls << "\" x=\"" << cx << "\" y=\"" << y - 8 << "\" text-anchor=\"middle\" fill=\"" << fill
          << "\"" << (c == "nil" ? " font-style=\"italic\"" : "") << ">" << xml_escape(c) << "</text>\n";
      }
      for (auto &m : marks)
        if (m.row == r && m.cycle == n)
          s << "<rect class=\"mark\" x=\"" << x + 2 << "\" y=\"" << y - row_h + 3 << "\" width=\"" << cell_w[n] - 4
            << "\" height=\"" << row_h - 4 << "\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n";
      x += cell_w[n];
    }
    s << "</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace rml::formats
