#!/bin/sh
# Reproduces every row of reference/VERDICTS.md. Run from the repository root:
#   sh reference/verdicts/reproduce.sh
# Variants that are not corpus files are generated in $OUT (default /tmp/rml-verdicts).
CHECK=./build/src/rml-check
RML=./build/src/rml
V=reference/verdicts
OUT=${OUT:-/tmp/rml-verdicts}
mkdir -p "$OUT"

# --- variants (printed semantics, front-end errors repaired) -----------------------------
# fig20: the repaired file with Figure 17's eager fby_end put back (NOTES fig20 "typos 1-7 fixed")
sed -e '/^  rst = true fby end;$/{N;s/^  rst = true fby end;\n  o = merge rst (init when rst) ((zeros(shape) fby i1) when not rst);$/  o = if (true fby end) then init else (init fby i1);/}' \
  reference/paper/fig20_diff_lstm_end.rml > "$OUT/fig20_eager_fby_end.rml"
# fig21: the repaired file with the printed post_end line 3 (eager if) put back
sed 's/^  o = merge end (init when end) ((post i1) when not end);$/  o = if end then init else (post i1);/' \
  reference/paper/fig21_lstm_bi.rml > "$OUT/fig21_eager_post_end.rml"
# lus/lstm_reset printed: only its two name errors and the swapped arguments fixed
sed -e 's/relu(lstm_out)/relu(s1o)/' -e 's/x1 = lstm(res, x0);/x1 = lstm(x0, ck);/' \
  reference/lus/lstm_reset.printed.rml > "$OUT/lstm_reset_fe_fixed.rml"

# fig16 with an unbounded liveness assumption in the node (open question Q1)
printf 'node backfill(i: int, bp: bool) -> (o: int)\n  assume always eventually bp;\n  o = merge bp (i when bp) ((post o) when not bp);\n' \
  > "$OUT/fig16_unbounded_assume.rml"

row() { # FILE [ARGS...]: one rml-check row (verdict lines and exit status)
  f=$1; shift
  out=$($CHECK "$f" "$@" 2>&1); rc=$?
  echo "### rml-check $f $*   [exit $rc]"
  echo "$out" | grep -E '^\S+: node|^  (clocks|causality|productivity):|front end ok|^[0-9]+ errors?$'
}

for f in reference/paper/*.rml reference/lus/*.rml reference/fractaltensor/*.rml; do row "$f"; done
for m in infer diff_app diff_app_pipe; do
  row reference/paper/fig03_gradient_descent.rml --main $m
  row reference/paper/fig03_gradient_descent.printed.rml --main $m
done
row reference/paper/fig03_gradient_descent.rml --main diff_app_pipe --assume 'always eventually bp within 3'
row reference/paper/fig03_gradient_descent.printed.rml --main diff_app_pipe --assume 'always eventually bp within 3'
row reference/paper/fig16_backfill.rml --assume 'always eventually bp within 5'
row reference/paper/fig16_backfill.rml --assume 'always eventually bp'
row reference/paper/fig17_batch_norm.rml --assume 'always eventually batch_end within 4'
row reference/paper/fig20_diff_lstm_end.rml --assume 'always eventually (end and bp) within 4'
row reference/paper/fig20_diff_lstm_end.rml --assume 'always eventually (end and bp) within 4' --assume 'always (bp or not end)'
row reference/paper/fig21_lstm_bi.rml --assume 'always eventually end within 4'
row "$OUT/fig20_eager_fby_end.rml"
row "$OUT/fig20_eager_fby_end.rml" --assume 'always eventually (end and bp) within 4'
row "$OUT/fig21_eager_post_end.rml"
row "$OUT/fig21_eager_post_end.rml" --assume 'always eventually end within 4'
row "$OUT/lstm_reset_fe_fixed.rml"
row "$OUT/fig16_unbounded_assume.rml"

# --- oracle runs --------------------------------------------------------------------------
runall() { # FILE MAIN TRACE VARS [EXTRA]: run with --all, summarise
  echo "### rml run $1 --main $2 --inputs $3 $5"
  $RML run "$1" --main "$2" --inputs "$3" --all --format csv $5 2>/dev/null > "$OUT/run.csv"
  python3 $V/summarize.py "$OUT/run.csv" "$4"
}
echo "### rml run reference/paper/fig15_pcounter.rml --main pcounter --cycles 6"
$RML run reference/paper/fig15_pcounter.rml --main pcounter --cycles 6 2>&1
echo "### rml run reference/paper/fig16_backfill.rml --inputs reference/paper/fig16_backfill.trace.csv"
$RML run reference/paper/fig16_backfill.rml --main backfill --inputs reference/paper/fig16_backfill.trace.csv 2>&1
$RML run reference/paper/fig16_backfill.rml --main backfill --inputs $V/fig16_gap6.csv 2>&1
runall reference/paper/fig03_gradient_descent.rml infer $V/fig03_infer.csv o,diff_app_pipe_1_diff_fby1_1_s
runall reference/paper/fig03_gradient_descent.printed.rml infer $V/fig03_infer.csv o
runall reference/paper/fig03_gradient_descent.printed.rml train $V/fig03_train.csv i,diff_app_pipe_1_di
runall reference/paper/fig17_batch_norm.rml check_batch_norm $V/fig17_check_batch_norm.csv batch_end,y
runall reference/paper/fig20_diff_lstm_end.rml check_diff_lstm_end $V/fig20_check_diff_lstm_end.csv end,bp,h_next,dx
runall "$OUT/fig20_eager_fby_end.rml" check_diff_lstm_end $V/fig20_check_diff_lstm_end.csv end,bp,h_next,dx
runall "$OUT/fig20_eager_fby_end.rml" check_diff_lstm_end $V/fig20_check_diff_lstm_end.csv end,bp,h_next,dx --lazy-if
runall reference/paper/fig21_lstm_bi.rml check_lstm_bi $V/fig21_check_lstm_bi.csv end,o
runall "$OUT/fig21_eager_post_end.rml" check_lstm_bi $V/fig21_check_lstm_bi.csv end,o
runall "$OUT/fig21_eager_post_end.rml" check_lstm_bi $V/fig21_check_lstm_bi.csv end,o --lazy-if
runall reference/lus/lstm_reset.rml model $V/lstm_reset_model.csv ck,x3
runall "$OUT/lstm_reset_fe_fixed.rml" model $V/lstm_reset_model.csv x3
