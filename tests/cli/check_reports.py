#!/usr/bin/env python3
"""check_reports.py FORMAT FILE: what rml-check --format sarif|kind2 says about
examples/sat.lus (clocks, causality, productivity, initialisation and 'y <= 5 and y >= 0'
valid; 'y <= 4' falsified at line 7 with x = 6 at cycle 0). Exit 1 with the reason."""
import json
import sys

fmt, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
if fmt == "sarif":
    results = doc["runs"][0]["results"]
    verdicts = [(r["ruleId"], r["kind"]) for r in results if r["ruleId"].startswith("rml-check.")]
    want = [("rml-check.clocks", "pass"), ("rml-check.causality", "pass"), ("rml-check.productivity", "pass"),
            ("rml-check.initialisation", "pass"), ("rml-check.property", "pass"), ("rml-check.property", "fail")]
    assert verdicts == want, verdicts
    fail = [r for r in results if r["ruleId"] == "rml-check.property" and r["kind"] == "fail"][0]
    assert fail["level"] == "error", fail
    assert fail["locations"][0]["physicalLocation"]["region"]["startLine"] == 7, fail
    assert "replay" in fail["properties"], fail
elif fmt == "kind2":
    props = [o for o in doc if o["objectType"] == "property"]
    answers = [(p["name"], p["answer"]["value"]) for p in props]
    want = [("clocks", "valid"), ("causality", "valid"), ("productivity", "valid"), ("initialisation", "valid"),
            ("y <= 5 and y >= 0", "valid"), ("y <= 4", "falsifiable")]
    assert answers == want, answers
    streams = {s["name"]: s["instantValues"] for s in props[-1]["counterExample"][0]["streams"]}
    assert streams["x"] == [[0, 5]], streams  # shrunk: the smallest x with y = 5
    assert doc[0]["objectType"] == "kind2Options" and doc[-1]["objectType"] == "analysisStop", doc
else:
    sys.exit("unknown format " + fmt)
print("ok")
