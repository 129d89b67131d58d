#!/usr/bin/env python3
"""reports_agree.py RML_CHECK FILE...: the law that rml-check's text and JSON reports say
the same thing. For each file, rml-check runs twice under one deterministic budget
(--rlimit, so both runs reach the same verdicts), once printing text and once --json;
each verdict line of the text ("  kind 'text' (line N): verdict (horizon H cycles,
buffering H+1 cycles) -- method", a named property's `  property "NAME" 'text' (line N):
...`, under "file: node main") must be the JSON report's entry at the same place:
same main node, kind, name, text, line, verdict, horizon and method, and nothing more on
either side (JSON: a named property has `name` and `text`, another its text as `name`);
the exit codes must be equal too.

Negative control (--self-test): the comparison is run on one file's reports with a
JSON verdict flipped, a method changed and an entry dropped, and, when the file has a
named property, its name changed and its name dropped, and must report each one.
Exit 1 with the differences."""
import json
import re
import subprocess
import sys

LINE = re.compile(r"^  (\w+)(?: (?:\"([^\"]*)\" )?'(.*)' \(line (\d+)\))?: (valid|falsified|unknown)"
                  r"(?: \(horizon (\d+) cycles?(?:, buffering (\d+) cycles)?\))? -- (.*)$")
HEAD = re.compile(r"^(.*): node (\S+)$")
BUDGET = ["--rlimit", "3000000", "--no-cex-files"]


def text_entries(out):
    """(main, kind, name, text, line, verdict, horizon, method) per verdict line of the text report."""
    rows, main = [], None
    for ln in out.splitlines():
        m = HEAD.match(ln)
        if m and not ln.startswith(" "):
            main = m.group(2)
            continue
        m = LINE.match(ln)
        if m and main is not None:
            kind, name, text, line, verdict, horizon, buffering, method = m.groups()
            if buffering and int(buffering) != int(horizon) + 1:  # a window of H + 1 cycles
                method += " [buffering %s with horizon %s]" % (buffering, horizon)
            prop = kind == "property"
            rows.append((main, kind, name if prop else None, text if prop else None, int(line) if line else None, verdict,
                         int(horizon) if horizon else None, method))
    return rows


def json_entries(doc):
    rows = []
    for rep in doc.get("reports", []):
        for p in rep.get("properties", []):
            kind = p["kind"]
            prop = kind == "property"
            named = prop and "text" in p  # a named property; another has its text as its name
            rows.append((rep["main"], kind, p.get("name") if named else None,
                         (p.get("text") if named else p.get("name")) if prop else None,
                         p.get("line") if prop else None, p["verdict"],
                         p.get("horizon") if kind == "productivity" else None, p["method"]))
    return rows


def differences(text_rows, json_rows):
    out = []
    for k in range(max(len(text_rows), len(json_rows))):
        t = text_rows[k] if k < len(text_rows) else None
        j = json_rows[k] if k < len(json_rows) else None
        if t != j:
            out.append("entry %d: text %r, json %r" % (k, t, j))
    return out


def run(rml_check, path, extra):
    return subprocess.run([rml_check, path] + BUDGET + extra, capture_output=True, text=True, timeout=600)


def compare(rml_check, path):
    t = run(rml_check, path, [])
    j = run(rml_check, path, ["--json"])
    problems = []
    if t.returncode != j.returncode:
        problems.append("exit codes differ: text %d, json %d" % (t.returncode, j.returncode))
    if t.returncode == 2:  # a front-end error: the JSON holds the diagnostic, the text has no verdicts
        return problems
    text_rows, json_rows = text_entries(t.stdout), json_entries(json.loads(j.stdout))
    if not text_rows:
        problems.append("no verdict line in the text report")
    problems += differences(text_rows, json_rows)
    return problems


def self_test(rml_check, path):
    t = run(rml_check, path, [])
    j = json.loads(run(rml_check, path, ["--json"]).stdout)
    text_rows = text_entries(t.stdout)
    assert not differences(text_rows, json_entries(j)), "the unmutated reports must agree"
    props = j["reports"][0]["properties"]
    mutants = []
    m1 = json.loads(json.dumps(j)); p = m1["reports"][0]["properties"][-1]
    p["verdict"] = "valid" if p["verdict"] != "valid" else "falsified"; mutants.append(("flipped verdict", m1))
    m2 = json.loads(json.dumps(j)); m2["reports"][0]["properties"][0]["method"] += " (changed)"; mutants.append(("method", m2))
    m3 = json.loads(json.dumps(j)); del m3["reports"][0]["properties"][len(props) // 2]; mutants.append(("dropped entry", m3))
    named = [k for k, p in enumerate(props) if "text" in p]
    if named:
        k = named[0]
        m4 = json.loads(json.dumps(j)); m4["reports"][0]["properties"][k]["name"] += " (renamed)"; mutants.append(("renamed", m4))
        m5 = json.loads(json.dumps(j)); p = m5["reports"][0]["properties"][k]
        p["name"] = p.pop("text"); mutants.append(("name dropped", m5))
    missed = [name for name, doc in mutants if not differences(text_rows, json_entries(doc))]
    if missed:
        sys.exit("the comparison misses: " + ", ".join(missed))
    print("self-test: every mutation is reported")


def main():
    args = sys.argv[1:]
    if len(args) >= 2 and args[1] == "--self-test":
        self_test(args[0], args[2])
        return
    rml_check, files = args[0], args[1:]
    bad = 0
    for f in files:
        problems = compare(rml_check, f)
        if problems:
            bad += 1
            print(f + ":\n  " + "\n  ".join(problems))
    print("%d files, %d disagree" % (len(files), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
